"""The system combination calibrated from the radiologists' decisions, all made through the API:
the fit is refused (with how many decisions are needed) until there are enough, then on other
studies the share of true sentences it flags stays within α; the page shows it, activating it
puts it in the combination's settings."""
import random

import pytest
from django.core.management import call_command

from radreview.audit.models import AuditEvent
from radreview.calibration import combination
from radreview.calibration.models import CombinationCalibration
from radreview.detectors.services import combination_config
from radreview.jobs.models import Job
from radreview.review.models import Detection
from tests import factories
from tests.factories import PASSWORD
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db

REPORT = ("FINDINGS: The heart is normal in size. The lungs are clear. There is no pleural "
          "effusion. No pneumothorax is seen.")
SITE_THRESHOLD = 0.3
CORRECTED = "Corrected by the radiologist."
ALPHA = 0.2


@pytest.fixture(autouse=True)
def small_minimum(settings):
    settings.COMBINATION_CALIBRATION_MINIMUM = 10


def reviewed_study(api, rng, uploader):
    """A study the combination ran on — wrong sentences score high, right ones mostly low — and
    a radiologist's review of it through the API: every flag accepted when the sentence is
    wrong, rejected when it is right, unflagged wrong sentences edited, then signed.
    Returns {sentence index: (score or None, wrong)}."""
    study = factories.make_study(uploaded_by=uploader)
    report = factories.make_report(study, REPORT)
    truth = {}
    for sentence in report.sentences.order_by("index"):
        wrong = rng.random() < 0.35
        score = rng.uniform(0.35, 0.95) if wrong else rng.uniform(0.0, 0.45)
        if not wrong and rng.random() < 0.3:
            score = None  # the combination raised nothing on it
        truth[sentence.index] = (score, wrong)
        if score is not None:
            rf.raw(report, sentence.index, Detection.COMBINED, confidence=round(score, 4),
                   flagged=score >= SITE_THRESHOLD, suggestion=CORRECTED)
    rf.finish_pipeline(study)
    Job.objects.create(study=study, stage="combine", order=9, state=Job.State.DONE,
                       result={"combined": sum(s is not None for s, _ in truth.values())})
    version = 0
    for index, (score, wrong) in truth.items():
        flagged = score is not None and score >= SITE_THRESHOLD
        if flagged:
            body = {"action": "accept" if wrong else "reject", "sentence": index}
        elif wrong:
            body = {"action": "edit", "sentence": index, "text": CORRECTED}
        else:
            continue
        made = api.post(f"/api/studies/{study.pk}/decisions/", {**body, "version": version},
                        format="json")
        assert made.status_code == 201, made.content
        version = made.json()["version"]
    signed = api.post(f"/api/studies/{study.pk}/signoffs/",
                      {"version": version, "password": PASSWORD, "attested": True}, format="json")
    assert signed.status_code == 201, signed.content
    return truth


def test_too_few_decisions_refuse_the_fit_and_say_how_many_are_needed(api_client, radiologist,
                                                                       admin_client_):
    rng = random.Random(1)
    for _ in range(2):
        reviewed_study(api_client, rng, radiologist)
    page = admin_client_.get("/site/calibration/").content.decode()
    assert "Not calibrated" in page
    assert "Not enough decisions yet: fitting needs at least 10" in page
    refused = admin_client_.post("/site/calibration/combination/fit/",
                                 {"combination-alpha": ALPHA})
    assert refused.status_code == 400 and "Not enough decisions yet" in refused.content.decode()
    assert not CombinationCalibration.objects.exists()


def test_fitted_on_api_decisions_it_flags_at_most_alpha_of_the_true_sentences_of_other_studies(
        api_client, radiologist, admin_client_):
    rng = random.Random(7)
    for _ in range(30):
        reviewed_study(api_client, rng, radiologist)
    examples = combination.examples()
    assert len(examples) == 120 and {e.score is None for e in examples} == {True, False}

    fitted = admin_client_.post("/site/calibration/combination/fit/",
                                {"combination-alpha": ALPHA})
    calibration = CombinationCalibration.objects.get()
    assert fitted["Location"] == f"/site/calibration/combination/{calibration.pk}/"
    assert calibration.threshold is not None and calibration.alpha == ALPHA
    assert calibration.result["held_out"]["adjusted_risk"] <= ALPHA
    assert AuditEvent.objects.filter(action="combination_calibration_created").exists()
    detail = admin_client_.get(fitted["Location"]).content.decode()
    assert 'id="held-out"' in detail and 'id="reliability"' in detail and 'id="activate"' in detail
    assert combination_config().calibration is None  # fitted, not active yet

    admin_client_.post(f"/site/calibration/combination/{calibration.pk}/activate/")
    active = combination_config().calibration
    assert active is not None and active.version == calibration.version

    # Other studies, reviewed the same way after the fit: the decisions the fit never saw.
    other = [reviewed_study(api_client, rng, radiologist) for _ in range(20)]
    right = [score for truth in other for score, wrong in truth.values() if not wrong]
    wrong = [score for truth in other for score, is_wrong in truth.values() if is_wrong]
    flagged_right = sum(score is not None and active.flags(score) for score in right)
    flagged_wrong = sum(score is not None and active.flags(score) for score in wrong)
    assert flagged_right / len(right) <= ALPHA
    assert flagged_wrong / len(wrong) > 0.5  # and it still catches most wrong sentences


def test_the_command_fits_and_activates(api_client, radiologist, site_admin, capsys):
    rng = random.Random(7)
    for _ in range(30):
        reviewed_study(api_client, rng, radiologist)
    call_command("calibrate_combination", "--alpha", str(ALPHA), "--activate")
    out = capsys.readouterr().out
    calibration = combination.active()
    assert calibration is not None and f"version {calibration.version}" in out
    assert "true sentences flagged" in out
