"""In the browser: review a flagged study with the keyboard, sign it, export it; two reviewers
at once; what a radiologist may not open."""
import io
import json
import re

import pydicom
import pytest
from fhir.resources.R4B.diagnosticreport import DiagnosticReport
from playwright.sync_api import expect

from radreview.review.models import Decision, SignOff
from radreview.studies.models import Study
from tests import factories
from tests.support.dicom_study import make_dicom_review_study
from tests.web.review import factories as rf

from .conftest import log_in, sign_with_attestation

pytestmark = [pytest.mark.browser]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
POLL = re.compile(r"/review/poll/")


@pytest.fixture
def fast_poll(settings):
    settings.REVIEW_POLL_SECONDS = 1


def open_study(page, live_server, study):
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    expect(page.locator("#review")).to_be_visible()


def test_review_with_the_keyboard_sign_and_export(page, live_server, tmp_path):
    user = factories.make_user(username="dr-keyboard")
    study = make_dicom_review_study()
    log_in(page, live_server, user)
    open_study(page, live_server, study)

    # The first open flag is selected and its panel shows its detectors' evidence.
    expect(page.locator("#sentence-2")).to_have_class(re.compile(r"\bselected\b"))
    expect(page.locator("#panel-2")).to_be_visible()
    expect(page.locator("#panel-2")).to_contain_text("Supported by 2 of 10 sampled reports")
    expect(page.locator("#panel-3")).to_be_hidden()
    expect(page.locator("#report-warning")).to_be_visible()
    expect(page.locator("#shortcuts")).to_be_visible()
    expect(page.locator(".sent[data-flag]")).to_have_count(4)
    expect(page.locator("#sentence-3 .flag-badge")).to_have_text("‼ high")
    expect(page.locator(".cs-viewer")).to_have_attribute("data-ready", "true")
    shot = tmp_path / "review.png"
    page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 20_000

    # Samples on demand.
    page.locator("#panel-2 details.samples summary").click()
    expect(page.locator("#panel-2 .verdict").nth(2)).to_contain_text("Sample 3 does not entail it")

    page.keyboard.press("a")  # accept: replaced by the suggestion
    expect(page.locator("#sentence-2 .sentence")).to_have_text(rf.EFFUSION_SUGGESTION)
    expect(page.locator("#review-notice")).to_have_text("Accepted the flag on sentence 3.")
    expect(page.locator("#panel-3")).to_be_visible()  # on to the next open flag

    page.keyboard.press("r")  # reject: the sentence stays
    expect(page.locator("#sentence-3 .decision-mark")).to_contain_text("flag rejected")
    expect(page.locator("#sentence-3 .sentence")).to_have_text(
        "A right upper lobe nodule measures 2 cm."
    )

    expect(page.locator("#panel-6")).to_be_visible()
    page.keyboard.press("e")  # edit inline; typing (with a, r, e, u in it) decides nothing
    editor = page.locator("#edit-text-6")
    expect(editor).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type("No prior exam is available for comparison.")
    assert Decision.objects.count() == 2
    page.keyboard.press("Enter")
    expect(page.locator("#sentence-6 .sentence")).to_have_text(
        "No prior exam is available for comparison."
    )
    expect(page.locator("#sentence-6 del.was")).to_have_text("Unchanged from prior.")

    page.keyboard.press("u")  # undo the edit
    expect(page.locator("#review-notice")).to_have_text("Undid the edit sentence on sentence 7.")
    expect(page.locator("#sentence-6 .sentence")).to_have_text("Unchanged from prior.")
    expect(page.locator("#flag-count")).to_contain_text("2 of 4 flags open")

    page.keyboard.press("k")  # back to the reopened flag, then reject what is left
    expect(page.locator("#panel-6")).to_be_visible()
    page.keyboard.press("r")
    expect(page.locator("#panel-7")).to_be_visible()
    page.keyboard.press("r")
    expect(page.locator("#flag-count")).to_contain_text("0 of 4 flags open")

    sign_with_attestation(page)
    expect(page.locator("#review-notice")).to_have_text("Signed version 1.")
    expect(page.locator("#signed-versions tbody tr")).to_have_count(1)
    signoff = SignOff.objects.get()
    assert Study.objects.get(pk=study.pk).status == Study.Status.SIGNED
    assert [d.action for d in Decision.objects.order_by("id")] == [
        "accept", "reject", "edit", "undo", "reject", "reject"]

    downloads = {}
    for fmt in ("txt", "fhir", "sr"):
        with page.expect_download() as info:
            page.click(f"#signed-versions a[data-format={fmt}]")
        downloads[fmt] = open(info.value.path(), "rb").read()
        assert info.value.suggested_filename.startswith(f"study-{study.pk}-v1.")
    assert downloads["txt"].decode().startswith(
        "Patient: Doe, Jane\nPatient ID: P-0042\n\n" + signoff.report.text)
    fhir = DiagnosticReport.model_validate_json(downloads["fhir"])
    assert fhir.status == "final" and fhir.presentedForm[0].data.decode() == signoff.report.text
    assert (
        json.loads(downloads["fhir"])["conclusion"]
        == "Small left pleural effusion. No pneumothorax."
    )
    sr = pydicom.dcmread(io.BytesIO(downloads["sr"]))
    assert sr.StudyInstanceUID == rf.STUDY_UID and sr.Modality == "SR"


def test_a_second_reviewers_decision_shows_up_and_a_stale_one_conflicts(
    page, browser, live_server, fast_poll
):
    study = rf.make_review_study()
    log_in(page, live_server, factories.make_user(username="dr-first"))
    open_study(page, live_server, study)
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        other = context.new_page()
        other.set_default_timeout(15_000)
        log_in(other, live_server, factories.make_user(username="dr-second"))
        open_study(other, live_server, study)

        other.keyboard.press("j")  # the nodule flag
        other.keyboard.press("r")
        expect(other.locator("#sentence-3 .decision-mark")).to_contain_text("flag rejected")
        # The first reviewer's page picks it up on its own (poll), without a reload.
        expect(page.locator("#sentence-3 .decision-mark")).to_contain_text("flag rejected")
        expect(page.locator("#review-notice")).to_contain_text("reject flag by dr-second")

        # Now the first page does not hear of the next change before acting on it.
        page.route(POLL, lambda route: route.fulfill(status=204))
        expect(other.locator("#panel-6")).to_be_visible()
        other.keyboard.press("r")
        expect(other.locator("#flag-count")).to_contain_text("2 of 4 flags open")
        expect(page.locator("#panel-2")).to_be_visible()
        page.keyboard.press("a")
        expect(page.locator("#review-message")).to_contain_text("not saved")
        expect(page.locator("#review-message")).to_contain_text("dr-second")
        expect(page.locator("#sentence-6 .decision-mark")).to_contain_text(
            "flag rejected"
        )  # refreshed
        expect(page.locator("#sentence-2 .sentence")).to_have_text(
            "There is a small left pleural effusion."
        )
        assert Decision.objects.count() == 2

        page.keyboard.press("a")  # on the refreshed version the same decision goes through
        expect(page.locator("#sentence-2 .sentence")).to_have_text(rf.EFFUSION_SUGGESTION)
        assert list(Decision.objects.values_list("user__username", flat=True)) == [
            "dr-second", "dr-second", "dr-first"]
    finally:
        context.close()


def test_a_radiologist_cannot_reach_admin_pages(page, live_server):
    log_in(page, live_server, factories.make_user())
    for path in ("/admin/", "/admin/review/decision/", "/audit/", "/audit/export.csv"):
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 403, path
        expect(page.locator("h1")).to_have_text("Not allowed")
    page.goto(f"{live_server.url}/")
    expect(page.locator("nav[aria-label=Main]")).not_to_contain_text("Audit trail")
    expect(page.locator("nav[aria-label=Main]")).not_to_contain_text("Users")
