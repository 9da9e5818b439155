"""Safe suggestions on the review panel: why a suggestion goes its way, and two readings to
choose from (never a one-click removal) when the text does not say which side is wrong."""
import pytest

from radreview.review import services as review
from radreview.review.models import Decision
from radreview.review.services import ReviewError
from radreview.studies.models import Study
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
NEGATED = "There is no small left pleural effusion."


def _study_with_two_readings():
    study = rf.make_review_study(with_combined=False)
    report = study.reports.get(kind="uploaded")
    report.detections.update(flagged=False)
    fix = rf.raw(report, rf.CLEAR, "correction", confidence=0.7, suggestion=None, flagged=True,
                 evidence={"original": "The lungs are otherwise clear.", "suggestion": None,
                           "suggestion_reason": "only a summary (sentence 8) disagrees",
                           "readings": [
                               {"choice": "keep", "sentence": rf.CLEAR,
                                "text": "The lungs are otherwise clear.",
                                "label": "Keep this sentence as written"},
                               {"choice": "align", "sentence": rf.IMPRESSION_EFFUSION,
                                "text": "Lungs clear.",
                                "label": "and change sentence 8 to agree"},
                               {"choice": "other", "sentence": rf.CLEAR, "text": NEGATED,
                                "label": "Or, if the finding is not there, change this "
                                         "sentence to"}]})
    rf.combined(report, rf.CLEAR, [fix], confidence=0.7)
    return study


def _panel(client, study, index):
    html = client.get(f"/studies/{study.pk}/").content.decode()
    start = html.index(f'id="panel-{index}"')
    return html[start:html.index("</article>", start)]


def test_two_readings_replace_the_one_click_accept(radiologist_client):
    study = _study_with_two_readings()
    panel = _panel(radiologist_client, study, rf.CLEAR)
    assert "Two readings: you choose" in panel
    assert "Why no suggestion: only a summary (sentence 8) disagrees" in panel
    assert "Keep this sentence as written" in panel and "and change sentence 8 to agree" in panel
    assert "Small left pleural effusion." in panel  # what sentence 8 reads now
    assert NEGATED in panel
    # the primary action (a) keeps the sentence: nothing on this panel removes it
    assert 'class="primary reject"' in panel and "Keep this sentence</button>" in panel
    assert "Remove this sentence" not in panel


def test_choosing_the_aligned_summary_edits_that_sentence(radiologist_client):
    study = _study_with_two_readings()
    version = Study.objects.get(pk=study.pk).review_version
    response = radiologist_client.post(f"/studies/{study.pk}/review/decide/",
                                       {"action": "edit", "sentence": rf.IMPRESSION_EFFUSION,
                                        "text": "Lungs clear.", "version": version}, **HTMX)
    assert response.status_code == 200
    decision = Decision.objects.get(study=study)
    assert decision.sentence.index == rf.IMPRESSION_EFFUSION
    assert decision.after_text == "Lungs clear."
    # The answer carries only what changed: sentence 8, and also the panel of the flag whose
    # reading quotes what sentence 8 now reads.
    html = response.content.decode()
    assert f'id="sentence-{rf.IMPRESSION_EFFUSION}"' in html
    assert f'id="panel-{rf.CLEAR}"' in html and f'id="sentence-{rf.CLEAR}"' not in html
    panel = html[html.index(f'id="panel-{rf.CLEAR}"'):]
    assert "(sentence 8 now reads <q>Lungs clear.</q>)" in panel[:panel.index("</article>")]


def test_a_suggestion_says_why_it_goes_this_way(radiologist_client):
    study = rf.make_review_study()
    report = study.reports.get(kind="uploaded")
    fix = report.detections.get(detector="correction")
    fix.evidence = {**fix.evidence, "suggestion_reason": "the findings (sentence 2) state it"}
    fix.save()
    panel = _panel(radiologist_client, study, rf.EFFUSION)
    assert panel.count("Why this way: the findings (sentence 2) state it") == 2  # flag + source
    assert 'class="primary accept"' in panel


def test_a_flag_that_proposes_keeping_its_sentence_cannot_be_accepted_into_a_removal(
        radiologist):
    """Whatever the client: the panel proposes keeping the sentence (two readings), so an
    accept — which would remove it — is refused and nothing is recorded."""
    study = _study_with_two_readings()
    version = Study.objects.get(pk=study.pk).review_version
    with pytest.raises(ReviewError, match="proposes keeping the sentence"):
        review.decide(study, radiologist, action="accept", sentence_index=rf.CLEAR,
                      version=version)
    assert not Decision.objects.exists()
