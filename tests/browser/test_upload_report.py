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
