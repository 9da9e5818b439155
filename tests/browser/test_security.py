"""In the browser: single sign-on through the real provider, an admin's first sign-in with
the authenticator's set-up, the pages working under the Content-Security-Policy, and the idle
logoff's warning."""
import re

import pytest
from playwright.sync_api import expect

from radreview.accounts.models import User
from tests import factories
from tests.support import oidc
from tests.web.review import factories as rf

from .conftest import log_in

pytestmark = pytest.mark.browser


def csp_violations(page) -> list[str]:
    found: list[str] = []
    page.on("console", lambda message: found.append(message.text)
            if "Content Security Policy" in message.text else None)
    return found


def test_a_radiologist_signs_in_through_the_hospitals_provider(page, live_server, sso):
    page.goto(f"{live_server.url}/accounts/login/")
    page.click("#sso-login")
    page.wait_for_selector("#provider-username")  # the provider's own login page
    assert page.url.startswith(sso.url)
    page.fill("#provider-username", "alice")
    page.fill("#provider-password", oidc.PASSWORD)
    page.click("#provider-submit")
    page.wait_for_url(f"{live_server.url}/")
    assert "alice · Radiologist" in page.inner_text(".who")
    assert User.objects.get(username="alice").role == User.Role.RADIOLOGIST


def test_a_provider_user_without_a_role_is_shown_why(page, live_server, sso):
    page.goto(f"{live_server.url}/accounts/login/")
    page.click("#sso-login")
    page.fill("#provider-username", "carol")
    page.fill("#provider-password", oidc.PASSWORD)
    page.click("#provider-submit")
    page.wait_for_url(f"{live_server.url}/accounts/login/?sso=refused")
    assert "has no RadReview role" in page.inner_text("[role=alert]")


def test_an_admins_first_sign_in_sets_up_the_authenticator_before_anything_else(
        page, live_server):
    admin = factories.make_user(User.Role.ADMIN)
    violations = csp_violations(page)
    log_in(page, live_server, admin)  # password, then the QR code page and its first code
    assert "authenticator is set up" in page.inner_text(".messages")
    assert admin.totpdevice_set.get().confirmed
    page.goto(f"{live_server.url}/site/setup/")
    expect(page.locator('[data-step="admin_second_factor"]')).to_have_attribute(
        "data-done", "yes")
    assert violations == []


def test_the_review_page_works_under_the_policy_without_violations(page, live_server):
    radiologist = factories.make_user()
    study = rf.make_review_study()
    violations = csp_violations(page)
    log_in(page, live_server, radiologist)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    # review.js selects the first open flag and opens its panel; htmx sends the decision.
    expect(page.locator(f"#panel-{rf.EFFUSION}")).to_be_visible()
    page.keyboard.press("r")
    expect(page.locator(f"#sentence-{rf.EFFUSION} .decision-mark")).to_contain_text("flag rejected")
    page.goto(f"{live_server.url}/studies/upload/")
    page.goto(f"{live_server.url}/")
    assert violations == []


def test_an_idle_session_is_warned_then_signed_out(page, live_server, settings):
    settings.SESSION_IDLE_SECONDS = 6
    settings.SESSION_IDLE_WARNING_SECONDS = 4
    log_in(page, live_server, factories.make_user())
    warning = page.locator("#idle-warning")
    warning.wait_for(state="visible", timeout=10_000)
    page.click("#idle-warning button")  # stay signed in
    warning.wait_for(state="hidden")
    # the page's own timer or its next poll takes it to the login page (either encoding of "/")
    page.wait_for_url(re.compile(re.escape(f"{live_server.url}/accounts/login/?next=")
                                 + r"(/|%2F)$"), timeout=20_000)
    assert "signed out after" in page.inner_text(".messages")
