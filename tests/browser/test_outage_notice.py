"""In the browser: while the database is unreachable, the review page shows ONE outage notice
(not one box per poll), and it goes away by itself when the database is back."""
import pytest
from playwright.sync_api import expect

from tests import factories
from tests.web.review import factories as rf
from tests.web.test_outages import database_down

from .conftest import log_in

pytestmark = [pytest.mark.browser]


def test_one_outage_notice_that_reconnects_by_itself(page, live_server, settings):
    settings.REVIEW_POLL_SECONDS = 1
    settings.OUTAGE_RETRY_AFTER_SECONDS = 1
    study = rf.make_review_study()
    log_in(page, live_server, factories.make_user(username="dr-outage"))
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    expect(page.locator("#review")).to_be_visible()

    answers = []
    page.on("response", lambda response: answers.append(response.status)
            if "/review/poll/" in response.url else None)
    with database_down():
        expect(page.locator("#outage-notice")).to_be_visible()
        expect(page.locator("#outage-notice")).to_contain_text("reconnecting by itself")
        page.wait_for_timeout(3500)  # several more polls fail meanwhile
        assert answers.count(503) >= 3, answers
        expect(page.locator("[role=alert].error")).to_have_count(1)
    expect(page.locator("#outage-notice")).to_have_count(0, timeout=10_000)
    expect(page.locator("[role=alert].error")).to_have_count(0)
