"""The study page's layout with the viewer, measured in Chromium: the reading room at 1920 x 1080
(both images at least 800 px tall, the selected flagged sentence and its panel on screen
together, the images still while the reviewer moves between flags and decides), the stacked
page at 1280 x 800, and the viewer's readouts legible in full screen."""
import io
import re

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from tests import factories
from tests.support.dicom_study import make_dicom_review_study
from tests.web.review import factories as rf

from .conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A chest radiograph is taller than wide: 2,828 x 2,320 pixels is a common detector format.
PORTRAIT = (2828, 2320)
MIN_IMAGE_HEIGHT = 800
FLAGGED = [f"sentence-{index}" for index in rf.FLAGGED]

# Every canvas: its box on the page and the size of its drawing buffer.
CANVASES = """() => Array.from(document.querySelectorAll('.cs-canvas canvas')).map((canvas) => {
  const box = canvas.getBoundingClientRect();
  return {x: box.x, y: box.y, width: box.width, height: box.height,
          buffer: [canvas.width, canvas.height], ratio: devicePixelRatio};
})"""

# Whether an element is really on screen: inside the window, and the topmost element in the
# middle of each of its lines (not clipped away by a scrolling region, not under the panel).
ON_SCREEN = """(element) => {
  const box = element.getBoundingClientRect();
  const inside = box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight
    && box.right <= innerWidth;
  if (!inside) return false;
  return Array.from(element.getClientRects()).every((line) => {
    const hit = document.elementFromPoint(line.x + line.width / 2, line.y + line.height / 2);
    return hit !== null && element.contains(hit);
  });
}"""


# An element's text colour and the first opaque background behind it (RGB).
COLOURS = """(element) => {
  const rgb = (value) => value.match(/[\\d.]+/g).map(Number);
  const clear = (each) => rgb(getComputedStyle(each).backgroundColor)[3] === 0;
  let behind = element;
  while (behind && clear(behind)) behind = behind.parentElement;
  const background = behind ? rgb(getComputedStyle(behind).backgroundColor) : [255, 255, 255];
  return [rgb(getComputedStyle(element).color).slice(0, 3), background.slice(0, 3)];
}"""


def contrast(foreground, background) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (0-255)."""
    def luminance(colour):
        linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
                  for c in colour]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def checkerboard(rows: int, cols: int, block: int = 8) -> np.ndarray:
    """Stored values whose every row and column has dark and bright squares, so the image's
    extent on the black canvas shows whatever window the viewer opens it with."""
    squares = (np.add.outer(np.arange(rows) // block, np.arange(cols) // block) % 2).astype(bool)
    return np.where(squares, 3000, 1000).astype(np.uint16)


def portrait_study():
    rows, cols = (side // 10 for side in PORTRAIT)
    return make_dicom_review_study({"pixels": checkerboard(rows, cols)})


def open_study(page, live_server, study):
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    expect(page.locator(".cs-viewer")).to_have_attribute("data-ready", "true", timeout=30_000)


def canvases(page) -> list[dict]:
    boxes = page.evaluate(CANVASES)
    assert len(boxes) == 2
    for box in boxes:  # drawn at the size shown, not stretched from a smaller buffer
        assert box["buffer"] == [round(box["width"] * box["ratio"]),
                                 round(box["height"] * box["ratio"])]
    return boxes


def image_extent(canvas) -> tuple[int, int]:
    """Width and height of the drawn image inside a canvas: the rows and columns a good part of
    which is lit (the view's name, written on the image, is too small to count)."""
    lit = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("L")) > 60
    rows, cols = np.flatnonzero(lit.mean(axis=1) > 0.2), np.flatnonzero(lit.mean(axis=0) > 0.2)
    assert rows.size and cols.size, "no image drawn"
    return int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)


def on_screen(page, selector: str) -> bool:
    return page.locator(selector).evaluate(ON_SCREEN)


def expect_together(page, sentence: str) -> None:
    """The sentence is the selected one, and it, its panel's title, the sentence there and the
    panel's primary action are on screen at once (the rest of the panel scrolls)."""
    expect(page.locator(f"#{sentence}")).to_have_class(re.compile(r"\bselected\b"))
    panel = f"#panel-{sentence.removeprefix('sentence-')}"
    expect(page.locator(panel)).to_be_visible()
    for selector in (f"#{sentence}", f"{panel} h2", f"{panel} .panel-text",
                     f"{panel} [data-action=primary]"):
        assert on_screen(page, selector), f"{selector} is not on screen"


def test_reading_room_at_1920_by_1080(browser, live_server):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        study = portrait_study()
        log_in(page, live_server, factories.make_user(username="dr-reading-room"))
        open_study(page, live_server, study)

        # The hanging protocol: PA left of the lateral, side by side, each at least 800 px tall,
        # the whole window's height, on the left of the report; the page does not scroll.
        boxes = canvases(page)
        pa, lateral = boxes
        assert pa["x"] + pa["width"] <= lateral["x"]
        assert abs(pa["y"] - lateral["y"]) < 1
        for box in boxes:
            assert box["height"] >= MIN_IMAGE_HEIGHT
            assert box["y"] >= 0 and box["y"] + box["height"] <= 1080
        report = page.locator("#review .review-report").bounding_box()
        assert lateral["x"] + lateral["width"] <= report["x"]
        assert page.evaluate("document.documentElement.scrollHeight") <= 1080
        # The radiographs themselves, fitted to their panes, are at least 800 px tall too.
        for canvas in page.locator(".cs-canvas canvas").all():
            width, height = image_extent(canvas)
            assert height >= MIN_IMAGE_HEIGHT, (width, height)
            assert width / height == pytest.approx(PORTRAIT[1] / PORTRAIT[0], rel=0.03)

        # Every flag in turn (j), then a decision (the panel's primary button, clicked): the
        # flag and its panel are on screen together, and the images never move.
        expect_together(page, FLAGGED[0])
        for sentence in FLAGGED[1:]:
            page.keyboard.press("j")
            expect_together(page, sentence)
            assert canvases(page) == boxes
        page.keyboard.press("k")
        expect_together(page, FLAGGED[-2])
        page.locator(f"#panel-{rf.FLAGGED[-2]} [data-action=primary]").click()
        expect(page.locator("#flag-count")).to_contain_text("3 of 4 flags open")
        expect_together(page, FLAGGED[-1])  # on to the next open flag
        assert canvases(page) == boxes
        page.keyboard.press("r")
        expect(page.locator("#flag-count")).to_contain_text("2 of 4 flags open")
        expect_together(page, FLAGGED[0])  # back to the first open one
        assert canvases(page) == boxes
        assert page.evaluate("window.scrollY") == 0
    finally:
        context.close()


def test_stacked_page_at_1280_by_800(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        study = make_dicom_review_study()
        log_in(page, live_server, factories.make_user(username="dr-laptop"))
        open_study(page, live_server, study)

        # Opening: the images are on screen, drawn at their panes' size.
        for box in canvases(page):
            assert box["height"] >= 400 and box["y"] + box["height"] <= 800
        # The next flag brings its sentence and its panel's primary button on screen together.
        page.keyboard.press("j")
        expect_together(page, FLAGGED[1])
        button = page.locator(f"#panel-{rf.FLAGGED[1]} [data-action=primary]")
        expect(button).to_be_enabled()
        button.click()
        expect(page.locator("#flag-count")).to_contain_text("3 of 4 flags open")
        expect_together(page, FLAGGED[2])
    finally:
        context.close()


def test_full_screen_fills_the_screen_and_its_readouts_are_legible_on_black(page, live_server):
    study = make_dicom_review_study()
    log_in(page, live_server, factories.make_user(username="dr-full-screen"))
    open_study(page, live_server, study)
    before = canvases(page)
    page.keyboard.press("f")
    page.wait_for_function("document.fullscreenElement?.id === 'dicom-viewer'")
    # The canvases follow their panes to the screen's height (their buffers too: canvases()).
    page.wait_for_function(f"""() => Array.from(document.querySelectorAll('.cs-canvas canvas'))
        .every((canvas) => canvas.height > {max(box["height"] for box in before)})""")
    for box in canvases(page):
        assert box["height"] >= 0.85 * page.viewport_size["height"]
    expect(page.locator(".cs-zoom")).to_have_text("100%")  # still fitted
    for selector in (".cs-zoom", ".cs-window", ".cs-pane figcaption", ".cs-toolbar button"):
        for element in page.locator(f"#dicom-viewer {selector}").all():
            foreground, background = element.evaluate(COLOURS)
            assert contrast(foreground, background) >= 4.5, (selector, foreground, background)
    page.keyboard.press("f")
    page.wait_for_function("document.fullscreenElement === null")
