"""The Cornerstone3D viewer on the review page, reading RadReview's WADO-RS in Chromium:
window/level by dragging, zoom, a length measurement, and signing with the attestation."""
import io
import re

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from radreview.review.models import SignOff
from tests import factories
from tests.support.dicom_study import make_dicom_review_study
from tests.web.review import factories as rf

from .conftest import log_in, sign_with_attestation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_viewer(page, live_server, study):
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    expect(page.locator(".cs-viewer")).to_have_attribute("data-ready", "true", timeout=30_000)
    return page.locator(".cs-pane .cs-canvas").first


def pixels(locator) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(locator.screenshot())).convert("L"), dtype=float)


def drag(page, locator, dx: float, dy: float, button: str = "left") -> None:
    box = locator.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down(button=button)
    page.mouse.move(x + dx / 2, y + dy / 2, steps=5)
    page.mouse.move(x + dx, y + dy, steps=5)
    page.mouse.up(button=button)


def test_dragging_window_level_changes_the_rendered_pixels(page, live_server):
    study = make_dicom_review_study()
    log_in(page, live_server, factories.make_user(username="dr-window"))
    canvas = open_viewer(page, live_server, study)
    expect(page.locator(".cs-pane")).to_have_count(2)
    before = pixels(canvas)
    assert before.std() > 5, "the image is not drawn"
    window = page.locator(".cs-window").text_content()
    drag(page, canvas, 120, 80)
    expect(page.locator(".cs-window")).not_to_have_text(window)
    after = pixels(canvas)
    assert np.abs(after - before).mean() > 5


def test_review_in_the_viewer_and_sign_with_the_attestation(page, live_server):
    user = factories.make_user(username="dr-viewer", first_name="Ada", last_name="Lovelace")
    study = make_dicom_review_study()
    log_in(page, live_server, user)
    canvas = open_viewer(page, live_server, study)

    page.click(".cs-viewer [data-preset='2']")
    expect(page.locator(".cs-viewer")).to_have_attribute("data-preset", "lung")
    page.click(".cs-viewer [data-action='zoom-in']")
    expect(page.locator(".cs-zoom")).to_have_text("125%")
    page.keyboard.press("m")  # the measuring tool; "m" means nothing to the review
    measure = page.locator(".cs-viewer [data-tool='Length']")
    expect(measure).to_have_attribute("aria-pressed", "true")
    drag(page, canvas, 150, 0)
    expect(page.locator(".cs-measurements li")).to_have_count(1)
    expect(page.locator(".cs-measurements li")).to_have_text(re.compile(r"^\d+\.\d (mm|px)$"))
    page.keyboard.press("0")
    expect(page.locator(".cs-zoom")).to_have_text("100%")

    # The review's own keys work beside the viewer's.
    for left in range(len(rf.FLAGGED) - 1, -1, -1):
        page.keyboard.press("r")
        expect(page.locator("#flag-count")).to_contain_text(f"{left} of 4 flags open")
    sign_with_attestation(page, password="not-my-password")
    expect(page.locator("#review-message")).to_contain_text("password is not right")
    assert not SignOff.objects.exists()
    sign_with_attestation(page)
    expect(page.locator("#review-notice")).to_have_text("Signed version 1.")
    signoff = SignOff.objects.get()
    assert signoff.signer_name == "Ada Lovelace" and signoff.signer_role == "Radiologist"
    expect(page.locator(".signed-line")).to_contain_text("Ada Lovelace, Radiologist")
