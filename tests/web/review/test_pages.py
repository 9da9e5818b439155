"""The review page and its htmx actions, through the Django test client."""
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from radreview.review import report_cache
from radreview.review.models import Decision, SignOff
from radreview.studies.models import Study
from tests import factories
from tests.factories import PASSWORD
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def page(client, study):
    response = client.get(f"/studies/{study.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def post(client, study, what, **data):
    if "version" not in data:
        data["version"] = Study.objects.get(pk=study.pk).review_version
    return client.post(f"/studies/{study.pk}/review/{what}/", data, **HTMX)


def sentence_html(html, index):
    match = re.search(
        rf'<span class="sent [^"]*"\s+id="sentence-{index}".*?</span>'
        r'(?=<form|\s*<span class="sent\s|\s*</div>)',
        html,
        re.S,
    )
    assert match, f"sentence {index} not rendered"
    return match.group(0)


def test_review_page_highlights_flags_with_icon_and_harm_word(radiologist_client):
    study = rf.make_review_study()
    html = page(radiologist_client, study)
    nodule = sentence_html(html, rf.NODULE)
    assert "flag harm-high conf-high flag-open" in nodule
    assert '<span class="icon">‼</span> high' in nodule  # never colour alone
    # Read as the sentence, then its flag (a label would replace the sentence).
    assert "aria-label" not in nodule
    assert re.search(r'<span class="sentence">[^<]+</span><span class="visually-hidden flag-words">'
                     r' \(flagged: High harm, 0.91 score, open\)</span>', nodule)
    assert "flag harm-low" in sentence_html(html, rf.UNCHANGED)
    assert "data-flag" not in sentence_html(html, rf.TUBE)  # combined row below the threshold
    assert html.count("data-flag") == len(rf.FLAGGED)
    assert '<strong>4</strong> of 4 flags open' in html
    assert 'id="report-warning"' in html and "2 of its sentences" in html
    assert html.count('id="shortcuts"') == 1 and "<kbd>a</kbd> accept" in html
    # Every sentence in place, grouped by section, with its RadFlag support.
    assert [m for m in re.findall(r'data-section="(\w+)"', html)] == [
        "indication",
        "findings",
        "impression",
    ]
    assert html.count('class="sentence"') == 9
    assert "Supported by 2 of 10 sampled reports" in html


def test_the_side_panel_renders_each_detectors_evidence(radiologist_client):
    html = page(radiologist_client, rf.make_review_study())
    panel = html[html.index('id="panel-2"'):html.index('id="panel-3"')]
    assert (
        "RadFlag (sampling and entailment)" in panel
        and "<strong>2 of 10</strong> sampled reports" in panel
    )
    assert (
        "Show the 10 samples and their verdicts" in panel and "Sample 3 does not entail it" in panel
    )
    assert "FINDINGS: Heart normal. Lungs clear." in panel  # the sample texts, on demand
    assert "<del>a small</del><ins>no</ins>" in panel  # correction diff
    assert "no left pleural effusion" in panel and "iu-5" in panel
    assert "Findings (1) · category Pleura" in panel and "<td>pleural effusion</td>" in panel
    nodule = html[html.index('id="panel-3"'):html.index('id="panel-4"')]
    assert "Is there a lung nodule?" in nodule and "<strong>no</strong>" in nodule
    assert (
        'src="/static/none.png"' in nodule and "elsewhere.example" not in nodule
    )  # local thumbnails only
    assert (
        "Unsupported by similar reference reports" in nodule and "Remove this sentence." in nodule
    )
    unchanged = html[html.index('id="panel-6"'):html.index('id="panel-7"')]
    assert "<q>unchanged</q>, <q>prior</q>" in unchanged and "no prior exam" in unchanged
    impression = html[html.index('id="panel-7"'):html.index('id="panel-8"')]
    assert "Impression disagrees with the findings" in impression
    assert 'href="#sentence-2"' in impression and "<q>no pleural effusion</q>" in impression


@pytest.mark.parametrize("url, shown", [
    ("/library/images/19/thumbnail.png", True),
    ("https://elsewhere.example/x.png", False),
    ("//elsewhere.example/x.png", False),
    ("/\\elsewhere.example/x.png", False),
    ("javascript:alert(1)", False),
])
def test_neighbour_thumbnails_load_only_from_this_site(radiologist_client, url, shown):
    study = rf.make_review_study()
    probe = study.audited_report.detections.get(detector="vrag")
    probe.evidence["neighbours"] = [
        {"reference_id": 1, "image_id": 2, "similarity": 0.9, "thumbnail_url": url}
    ]
    type(probe).objects.filter(pk=probe.pk).update(evidence=probe.evidence)
    html = page(radiologist_client, study)
    assert ('class="thumb"' in html) is shown
    assert (
        "elsewhere.example" not in html.split('id="panel-3"')[1].split("</article>")[0] or not shown
    )


def test_a_detector_without_a_template_gets_the_generic_evidence(radiologist_client):
    study = rf.make_review_study()
    report = study.audited_report
    extra = rf.raw(report, 1, "novel", evidence={"score": 0.4, "notes": ["a", "b"]})
    flag = report.detections.get(detector="combined", sentence_index=rf.EFFUSION)
    flag.sources.add(extra)
    html = page(radiologist_client, study)
    assert '<dl class="evidence-generic">' in html and "<dt>score</dt><dd>0.4</dd>" in html


def test_accept_by_htmx_returns_the_updated_region(radiologist_client, radiologist):
    study = rf.make_review_study()
    response = post(radiologist_client, study, "decide", action="accept", sentence=rf.EFFUSION)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Accepted the flag on sentence 3." in html
    assert 'id="review-version" name="version" value="1" hx-swap-oob="true"' in html
    assert f'<span class="sentence">{rf.EFFUSION_SUGGESTION}</span>' in sentence_html(
        html, rf.EFFUSION
    )
    assert "<strong>3</strong> of 4 flags open" in html
    assert Decision.objects.get().user == radiologist


def oob_ids(html):
    return re.findall(r'<\w+ [^>]*?id="([^"]+)"[^>]*?hx-swap-oob="true"', html)


def test_a_decision_answers_with_only_what_it_changed(radiologist_client):
    """Not the whole region: the decided sentence, its editor and panel, and the parts of the
    page every decision changes, each swapped out of band into the region that stays."""
    study = rf.make_review_study()
    response = post(radiologist_client, study, "decide", action="reject", sentence=rf.NODULE)
    html = response.content.decode()
    assert response.status_code == 200 and response["HX-Reswap"] == "none settle:0ms"
    assert 'id="review"' not in html
    assert sorted(oob_ids(html)) == sorted([
        "review-version", "review-feedback", "flag-count", "undo", f"sentence-{rf.NODULE}",
        f"editor-{rf.NODULE}", f"panel-{rf.NODULE}", "signoff", "decision-log", "study-status"])
    assert "flag rejected, sentence kept" in sentence_html(html, rf.NODULE)
    assert 'title="Undo: reject flag on sentence 4' in html
    assert "Decision log (1)" in html and "Decide the 3 open flags before signing." in html
    assert "Decisions on this sentence (1)" in html  # the panel's own history, read for it
    # The panel's editor takes the version from the region's #review-version, which every
    # answer replaces: a version of its own would go stale after another sentence's decision.
    assert 'name="version"' not in html.split(f'id="editor-{rf.NODULE}"')[1].split("</form>")[0]

    response = post(radiologist_client, study, "undo")
    html = response.content.decode()
    assert response.status_code == 200 and "Undid the reject flag on sentence 4." in html
    assert f'id="sentence-{rf.NODULE}"' in html and 'id="sentence-' not in html.replace(
        f'id="sentence-{rf.NODULE}"', "")
    assert 'value="2" hx-swap-oob="true"' in html and "<strong>4</strong> of 4 flags open" in html
    assert "Decisions on this sentence (2)" in html and "(undone)" in html


def test_a_refused_or_stale_decision_still_answers_with_the_whole_region(radiologist_client):
    study = rf.make_review_study()
    response = post(radiologist_client, study, "decide", action="reject", sentence=rf.CLEAR)
    assert response.status_code == 422 and "HX-Reswap" not in response
    assert '<div id="review"' in response.content.decode()


def test_edit_and_undo_by_htmx(radiologist_client):
    study = rf.make_review_study()
    post(
        radiologist_client,
        study,
        "decide",
        action="edit",
        sentence=1,
        text="The heart is enlarged.",
    )
    response = post(radiologist_client, study, "undo")
    assert (
        response.status_code == 200
        and "Undid the edit sentence on sentence 2." in response.content.decode()
    )
    assert '<span class="sentence">The heart size is normal.</span>' in response.content.decode()
    assert list(Decision.objects.values_list("action", flat=True)) == ["edit", "undo"]


def test_a_stale_decision_gets_409_the_message_and_the_fresh_region(radiologist_client):
    study = rf.make_review_study()
    other = factories.make_user(username="dr-second")
    from radreview.review import services
    services.decide(study, other, action="reject", sentence_index=rf.NODULE, version=0)
    response = post(
        radiologist_client, study, "decide", action="accept", sentence=rf.EFFUSION, version=0
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert (
        'id="review-message" role="alert"' in html and "dr-second" in html and "not saved" in html
    )
    assert 'id="review-version" name="version" value="1"' in html
    assert "flag rejected, sentence kept" in sentence_html(html, rf.NODULE)
    assert Decision.objects.count() == 1


def test_a_refused_action_gets_422_with_its_reason(radiologist_client):
    study = rf.make_review_study()
    response = post(radiologist_client, study, "sign", password=PASSWORD, attest="1")
    assert response.status_code == 422 and "4 flags are still open" in response.content.decode()


def test_without_htmx_actions_redirect_with_a_message(radiologist_client):
    study = rf.make_review_study()
    response = radiologist_client.post(f"/studies/{study.pk}/review/decide/",
                                       {"action": "reject", "sentence": rf.EFFUSION, "version": 0})
    assert response.status_code == 302 and response["Location"] == f"/studies/{study.pk}/"
    assert "Rejected the flag" in page(radiologist_client, study)


def test_admins_read_the_review_without_any_way_to_change_it(admin_client_):
    study = rf.make_review_study()
    html = page(admin_client_, study)
    assert "Read-only: only radiologists decide and sign." in html
    for control in ('data-action="accept"', 'id="undo"', 'id="sign"', "sentence-editor"):
        assert control not in html
    for what, data in (
        ("decide", {"action": "reject", "sentence": rf.EFFUSION}),
        ("undo", {}),
        ("sign", {}),
    ):
        assert post(admin_client_, study, what, **data).status_code == 403
    assert not Decision.objects.exists()


def test_poll_is_empty_until_someone_else_changes_the_review(radiologist_client):
    study = rf.make_review_study()
    url = f"/studies/{study.pk}/review/poll/"
    assert radiologist_client.get(url, {"version": 0}, **HTMX).status_code == 204
    from radreview.review import services

    services.decide(
        study,
        factories.make_user(username="dr-poll"),
        action="reject",
        sentence_index=rf.NODULE,
        version=0,
    )
    response = radiologist_client.get(url, {"version": 0}, **HTMX)
    assert response.status_code == 200
    assert (
        "Updated with a change made elsewhere (reject flag by dr-poll)."
        in response.content.decode()
    )


def test_sign_off_by_htmx_and_the_signed_version_page(radiologist_client):
    study = rf.make_review_study()
    for index in rf.FLAGGED:
        post(radiologist_client, study, "decide", action="reject", sentence=index)
    response = post(radiologist_client, study, "sign", password=PASSWORD, attest="1")
    html = response.content.decode()
    assert response.status_code == 200 and "Signed version 1." in html
    assert '<span id="study-status" hx-swap-oob="true">' in html and "status-signed" in html
    assert 'id="signed-versions"' in html and f'/studies/{study.pk}/signed/1/export/sr/' in html
    assert "already has exactly this text" in html
    signed = radiologist_client.get(f"/studies/{study.pk}/signed/1/").content.decode()
    assert "signed version 1" in signed and SignOff.objects.get().sha256 in signed
    export = radiologist_client.get(f"/studies/{study.pk}/signed/1/export/txt/")
    assert export.status_code == 200 and export["Content-Disposition"].endswith('-v1.txt"')
    assert export.content.decode().startswith(rf.REPORT)
    assert radiologist_client.get(f"/studies/{study.pk}/signed/1/export/pdf/").status_code == 404
    from radreview.studies.models import Report
    Report.objects.filter(pk=SignOff.objects.get().report_id).update(text="tampered")
    refused = radiologist_client.get(f"/studies/{study.pk}/signed/1/export/sr/")
    assert refused.status_code == 409 and b"hash" in refused.content
    assert radiologist_client.get(f"/studies/{study.pk}/signed/2/").status_code == 404


def test_admins_may_export_a_signed_version(admin_client_, radiologist):
    from radreview.review import services

    study = rf.make_review_study()
    for index in rf.FLAGGED:
        services.decide(study, radiologist, action="reject", sentence_index=index,
                        version=Study.objects.get(pk=study.pk).review_version)
    services.sign(study, radiologist, version=Study.objects.get(pk=study.pk).review_version,
                  password=PASSWORD, attested=True)
    assert admin_client_.get(f"/studies/{study.pk}/signed/1/export/fhir/").status_code == 200


def test_the_review_page_costs_a_fixed_number_of_queries(radiologist_client, radiologist,
                                                         django_assert_max_num_queries):
    from radreview.review import services

    small = rf.make_review_study()
    large = rf.make_large_review_study(sentences=40, flags=20)
    for index in (0, 2, 4, 6, 8):  # decisions, an undo and a sign-off must not add queries per row
        services.decide(large, radiologist, action="reject", sentence_index=index,
                        version=Study.objects.get(pk=large.pk).review_version)
    services.undo_last(large, radiologist, version=Study.objects.get(pk=large.pk).review_version)
    for study in (small, large):
        # 13 reads (3 of them the review: the latest decisions, each sentence's latest, the
        # state rows), whether the user viewed the study in this window, the view's audit
        # event (the first in the window) and the reader's presence (one upsert).
        with django_assert_max_num_queries(16):
            response = radiologist_client.get(f"/studies/{study.pk}/")
        assert response.status_code == 200
    html = response.content.decode()
    assert html.count("data-flag") == 20 and html.count('class="decision-line') >= 12


def test_the_decision_response_costs_a_fixed_number_of_queries(
    radiologist_client, django_assert_max_num_queries
):
    study = rf.make_large_review_study(sentences=40, flags=20)
    report_cache.clear()

    def send(what, **data):
        data["version"] = Study.objects.get(pk=study.pk).review_version
        with CaptureQueriesContext(connection) as captured:
            response = post(radiologist_client, study, what, **data)
        assert response.status_code == 200
        return len(captured)

    # The first decision of this process on the study also reads its sentence's flags, then the
    # report's sentences, flags, their sources and the samples, once (review/report_cache.py).
    first = send("decide", action="reject", sentence=0)
    # Later ones: the session and the user; the version claim (which checks the status), the
    # sentence with its state row, the decision, the state row's insert or update and the audit
    # event (an undo: its target and the decision before it instead of the sentence); the
    # answer reads the study with its report, the state rows and the latest decisions. Nothing
    # per sentence, flag or earlier decision. (+2: the test's transaction adds a savepoint and
    # its release around the decision's.)
    later = [send("decide", action="reject", sentence=2), send("undo"),
             send("decide", action="edit", sentence=1, text="Edited once.")]
    assert first <= 11 + 4 + 2 and max(later) <= 11 + 2, (first, later)
    # 28 before the decision's statements were folded and the report's unchanging part kept.
