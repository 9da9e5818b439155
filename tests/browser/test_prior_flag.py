"""In the browser: a report that calls a finding new which the patient's prior report already
had is flagged by the prior report check; the panel quotes the prior sentence and links it to
the prior report shown on the same page (issue 31)."""
from datetime import date

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.web.test_priors import CURRENT, signed_study

from .conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.pipeline]


def test_a_flag_against_the_prior_report_quotes_and_links_the_prior_sentence(
        page, live_server, celery_worker):
    user = factories.make_user()
    signed_study(user, patient_id="P-77", study_date=date(2026, 2, 1))
    log_in(page, live_server, user)
    page.goto(f"{live_server.url}/studies/upload/")
    page.fill("#id_report_text", CURRENT)
    page.fill("#id_patient_id", "P-77")
    page.click("button:has-text('Upload')")
    page.wait_for_url(f"{live_server.url}/studies/*/")
    page.wait_for_selector(".sent[data-flag]", timeout=120_000)

    new_claim = page.locator(".sent[data-flag]", has_text="There is a new small left pleural")
    new_claim.locator(".sentence").click()
    panel = page.locator(".panel:not([hidden])")
    source = panel.locator("section.detector-prior")
    expect(source).to_have_count(1)
    link = source.locator("a.prior-link")
    expect(link).to_have_text("There is a small left pleural effusion.")
    # Followed from the keyboard: the quote wraps in the narrow panel, and a wrapped link's
    # box centre (where a pointer click would land) lies between its two lines.
    link.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#prior-report")).to_be_in_viewport()
    expect(page.locator("#prior-report pre")).to_contain_text(
        "There is a small left pleural effusion.")
