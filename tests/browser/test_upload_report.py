"""In the browser: log in, upload a report, watch the pipeline, read the sentences."""
import pytest

from tests import factories

from .conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.pipeline]

REPORT = (
    "FINDINGS: Heart size is normal. The lungs are clear. No pleural effusion or pneumothorax.\n"
    "IMPRESSION: No acute cardiopulmonary disease."
)


def test_radiologist_uploads_a_report_and_sees_its_sentences(page, live_server, celery_worker):
    log_in(page, live_server, factories.make_user())
    page.click("text=Upload a study")
    page.fill("#id_report_text", REPORT)
    page.click("button:has-text('Upload')")
    page.wait_for_url(f"{live_server.url}/studies/*/")

    # The jobs panel polls until the pipeline ends, then the page reloads with the sentences.
    page.wait_for_selector(".sentence", timeout=90_000)
    sentences = page.locator(".sentence").all_inner_texts()
    assert sentences == [
        "Heart size is normal.", "The lungs are clear.", "No pleural effusion or pneumothorax.",
        "No acute cardiopulmonary disease.",
    ]
    assert page.locator("[data-section=impression] .sentence").count() == 1
    assert page.locator(".job[data-stage=parse_report]").get_attribute("data-state") == "done"


def test_a_5_mb_paste_is_refused_on_the_page_with_the_reason(page, live_server):
    log_in(page, live_server, factories.make_user())
    page.goto(f"{live_server.url}/studies/upload/")
    paste = "(box, n) => { box.value = 'No effusion. '.repeat(n); }"  # fill() types it: slow
    page.eval_on_selector("#id_report_text", paste, 5 * 1024 * 1024 // 13)
    page.click("#upload-submit")
    assert page.locator("#upload-error").inner_text() == (
        "The pasted text is larger than 4 MB; a report may have at most 20,000 characters.")


def test_an_answer_that_is_no_page_of_ours_is_reported_not_left_checking(page, live_server):
    """A proxy in front of RadReview may answer with its own error page."""
    log_in(page, live_server, factories.make_user())
    page.goto(f"{live_server.url}/studies/upload/")
    page.route("**/studies/upload/", lambda route: route.fulfill(
        status=502, content_type="text/html", body="<html><body>Bad Gateway</body></html>")
        if route.request.method == "POST" else route.continue_())
    page.fill("#id_report_text", REPORT)
    page.click("#upload-submit")
    progress = page.locator("#upload-progress-text")
    progress.filter(has_text="The server answered 502; try again.").wait_for()
    assert page.locator("#upload-submit").is_enabled()
