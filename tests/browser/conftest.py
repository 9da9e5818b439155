"""Playwright driving Debian's Chromium (Playwright cannot download its own browser here)."""
import os
import shutil

import pytest

from tests import factories
from tests.support.two_factor import secret_code

CHROMIUM = os.environ.get("RADREVIEW_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

# Playwright's sync API runs an event loop in the test thread; the test itself still talks to
# the database synchronously, which Django would otherwise refuse inside a running loop.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# The live server on the loopback address, not "localhost": the test OpenID provider accepts a
# loopback redirect on any port (RFC 8252), as real providers do for native clients.
os.environ.setdefault("DJANGO_LIVE_TEST_SERVER_ADDRESS", "127.0.0.1")


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}; scripts/test.sh installs Debian's chromium")
    with sync_playwright() as playwright:  # Playwright gives each launch a fresh profile
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def log_in(page, live_server, user) -> None:
    """Sign in with the password; a local admin then sets up an authenticator, as at every
    admin's first sign-in (the site requires one by default)."""
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", factories.PASSWORD)
    page.click("button[type=submit]")
    if user.is_site_admin and user.is_local:
        page.wait_for_url(f"{live_server.url}/accounts/two-factor/")
        page.wait_for_function("document.querySelector('img.qr').naturalWidth > 0")
        page.fill("#id_code", secret_code(page.inner_text("#totp-secret")))
        page.click("button:has-text('Confirm')")
    page.wait_for_url(f"{live_server.url}/")


def sign_with_attestation(page, password: str = factories.PASSWORD) -> None:
    page.check("#attest")
    page.fill("#sign-password", password)
    page.click("#sign")
