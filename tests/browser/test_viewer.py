"""The Cornerstone3D viewer on the review page, reading RadReview's WADO-RS in Chromium:
window/level by dragging, zoom, length measurements in mm from the file's pixel spacing (or
in px, said so, without one), and signing with the attestation."""
import io
import re

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from radreview.review.models import SignOff
from tests import factories
from tests.support.dicom_study import make_dicom_review_study
from tests.support.worker import wait_for
from tests.web.review import factories as rf

from .conftest import log_in, sign_with_attestation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IMAGE_SIZE = 256  # the factory's images are 256 x 256
DETECTOR_SPACING = 0.139  # the factory's Imager Pixel Spacing (mm)
LENGTH = re.compile(r"^(\d+\.\d) (.+)$")


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


def measure(page, canvas, dx: float, zoom: float = 1.0) -> float:
    """Draw a horizontal length from the middle of ``canvas``; the image pixels it spans, as
    the drag and the image's fit to the pane (times the zoom) make them."""
    page.keyboard.press("m")  # the measuring tool; "m" means nothing to the review
    expect(page.locator(".cs-viewer [data-tool='Length']")).to_have_attribute("aria-pressed",
                                                                               "true")
    drag(page, canvas, dx, 0)
    box = canvas.bounding_box()
    return dx / (min(box["width"], box["height"]) / IMAGE_SIZE * zoom)


def listed_length(page, mm_per_pixel: float) -> tuple[float, str, float]:
    """The listed measurement (value, unit, image pixels) once it equals ``mm_per_pixel``
    times its pixel distance (Cornerstone updates the value a moment after the drag)."""
    item = page.locator(".cs-measurements li")
    expect(item).to_have_count(1)

    def settled():
        match = LENGTH.match(item.text_content() or "")
        pixels = item.get_attribute("data-pixels")
        if match and pixels:
            value, expected = float(match[1]), mm_per_pixel * float(pixels)
            if abs(value - expected) <= max(0.06, 0.01 * expected):
                return value, match[2], float(pixels)
        return None

    def shown():
        return f"{item.text_content()!r} over {item.get_attribute('data-pixels')} pixels"

    return wait_for(settled, timeout=10, message=f"a length of {mm_per_pixel} per pixel",
                    details=shown)


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
    dragged_pixels = measure(page, canvas, 150, zoom=1.25)
    # The radiograph carries Imager Pixel Spacing only: millimetres at the detector.
    value, unit, pixels = listed_length(page, DETECTOR_SPACING)
    assert unit == "mm (detector plane)"
    assert pixels == pytest.approx(dragged_pixels, rel=0.1)
    assert value == pytest.approx(DETECTOR_SPACING * dragged_pixels, rel=0.1)
    on_image = page.locator(".cs-pane svg.svg-layer").first
    expect(on_image).to_contain_text(f"{value:.1f} mm (detector plane)")
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


@pytest.mark.parametrize(("dicom_options", "mm_per_pixel", "unit"), [
    # Calibrated: Pixel Spacing at the patient, corrected for magnification.
    ({"pixel_spacing": 0.125}, 0.125, "mm (corrected for magnification)"),
    # A secondary capture (a scanned film) has no spacing at all.
    ({"sop_class": "sc", "modality": "OT"}, 1.0, "px (no pixel spacing in the image)"),
], ids=["calibrated", "no-spacing"])
def test_lengths_use_the_images_own_spacing_or_say_there_is_none(
        page, live_server, dicom_options, mm_per_pixel, unit):
    study = make_dicom_review_study(dicom_options)
    log_in(page, live_server, factories.make_user(username="dr-length"))
    canvas = open_viewer(page, live_server, study)
    dragged_pixels = measure(page, canvas, 200)
    value, shown_unit, pixels = listed_length(page, mm_per_pixel)
    assert shown_unit == unit
    assert pixels == pytest.approx(dragged_pixels, rel=0.1)
