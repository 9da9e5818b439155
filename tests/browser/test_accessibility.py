"""WCAG 2.1 A and AA in Chromium (issue 36): axe-core on every page of the reading room and the
admin pages in each state, under the real Content-Security-Policy; the keyboard model (Tab and
Enter alone decide every flag; shortcuts off or remapped per user; the focus ring); the
screen-reader names; the viewer's images with the keyboard."""
import re

import pytest
from django.contrib.staticfiles import finders
from django.test import override_settings
from playwright.sync_api import expect

from radreview import settings as production
from radreview.jobs.models import Job
from radreview.review.models import Decision
from radreview.studies.models import Study
from tests import factories
from tests.support.dicom_study import make_dicom_review_study
from tests.web.review import factories as rf

from .axe import AXE_URL, assert_no_violations, violations
from .conftest import log_in, sign_with_attestation
from .test_layout import contrast

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUSED = "() => document.activeElement && document.activeElement.id"
# The focused element's outline and the colour behind it; the selected sentence's outline.
RINGS = """() => {
  const rgb = (value) => value.match(/[\\d.]+/g).map(Number).slice(0, 3);
  const ground = (element) => {
    for (let at = element; at; at = at.parentElement) {
      const parts = getComputedStyle(at).backgroundColor.match(/[\\d.]+/g).map(Number);
      if (parts.length === 3 || parts[3] > 0) return parts.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const focused = document.activeElement, style = getComputedStyle(focused);
  const selected = getComputedStyle(document.querySelector("#review .sent.selected"));
  return {focus: [rgb(style.outlineColor), style.outlineStyle, parseFloat(style.outlineWidth)],
          around: ground(focused.parentElement),
          selection: [rgb(selected.outlineColor), selected.outlineStyle]};
}"""


def reading_room(browser):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def open_study(page, live_server, study, *, viewer=True):
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    if viewer:
        expect(page.locator(".cs-viewer")).to_have_attribute("data-ready", "true", timeout=30_000)


def failed_study():
    study = factories.make_study(description="Chest PA")
    factories.make_report(study, "FINDINGS: Heart size is normal.\nIMPRESSION: No acute disease.")
    Job.objects.create(study=study, stage="ingest", order=0, state=Job.State.DONE, progress=1.0)
    Job.objects.create(study=study, stage="audit", order=1, state=Job.State.FAILED,
                       error="The reference index was built with another embedder.")
    Study.objects.filter(pk=study.pk).update(status=Study.Status.FAILED)
    return study


def tab_to(page, element_id: str, limit: int = 80) -> int:
    """Press Tab until the element has the focus; how many presses it took."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED) == element_id:
            return presses
    raise AssertionError(f"Tab never reached #{element_id}")


def test_axe_runs_under_the_real_policy_and_only_in_tests(page, live_server):
    log_in(page, live_server, factories.make_user(username="dr-policy"))
    answer = page.goto(f"{live_server.url}/")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self' 'wasm-unsafe-eval'" in policy and "unsafe-inline" not in \
        policy.split("script-src")[1].split(";")[0]
    # The policy is enforced in this browser: an inline script does not run, axe (same site) does.
    assert page.evaluate("""() => { const s = document.createElement("script");
        s.textContent = "window.inlineRan = true"; document.head.append(s);
        return window.inlineRan === undefined; }""")
    assert violations(page) == []
    assert page.evaluate("typeof axe.run") == "function"
    # The production settings serve no axe: it comes only from the test settings.
    assert finders.find("axe/axe.min.js")
    with override_settings(STATICFILES_DIRS=production.STATICFILES_DIRS):
        assert finders.find("axe/axe.min.js") is None
    assert AXE_URL.startswith("/static/axe/")


def test_reading_room_in_every_state(browser, live_server):
    context, page = reading_room(browser)
    try:
        study = make_dicom_review_study()
        log_in(page, live_server, factories.make_user(username="dr-axe"))
        open_study(page, live_server, study)
        # Viewer loaded, the first flag selected.
        expect(page.locator("#sentence-2")).to_have_class(re.compile(r"\bselected\b"))
        assert_no_violations(page, "the study page, viewer loaded, flag selected")
        # Screen-reader names: each pane an image named by its view and study; a flagged
        # sentence read as its text, then its flag.
        expect(page.get_by_role("img", name="PA view of Chest PA and lateral, 2026-03-04")) \
            .to_have_count(1)
        expect(page.get_by_role("img", name="Lateral view of Chest PA and lateral, 2026-03-04")) \
            .to_have_count(1)
        spoken = page.locator("#sentence-3").evaluate(
            "(el) => Array.from(el.querySelectorAll(':scope > :not([aria-hidden])'))"
            ".map((part) => part.textContent).join('')")
        assert spoken.startswith("A right upper lobe nodule measures 2 cm. (flagged: High harm")
        assert page.locator("#sentence-3").get_attribute("aria-label") is None

        page.evaluate("document.querySelectorAll('#review details').forEach((d) => d.open = true)")
        assert_no_violations(page, "every collapsed section open")
        page.keyboard.press("e")
        expect(page.locator("#edit-text-2")).to_be_focused()
        assert_no_violations(page, "the editor open")
        page.keyboard.press("Escape")

        # A decision and its undo: the log holds an undone entry.
        page.keyboard.press("a")
        expect(page.locator("#flag-count")).to_contain_text("3 of 4 flags open")
        expect(page.locator("#undo-hint")).to_be_visible()  # a key's decision, one key from undone
        page.keyboard.press("u")
        expect(page.locator("#flag-count")).to_contain_text("4 of 4 flags open")
        page.locator("#decision-log summary").click()
        expect(page.locator("#decision-log .decision-line.undone")).to_have_count(1)
        assert_no_violations(page, "the decision log with an undone entry")

        for index in rf.FLAGGED:
            page.locator(f"#sentence-{index}").click()
            page.locator(f"#panel-{index} [data-action=primary]").click()
            expect(page.locator(f"#sentence-{index}")).not_to_have_class(re.compile("flag-open"))
        sign_with_attestation(page)
        expect(page.locator("#review-notice")).to_have_text("Signed version 1.")
        assert_no_violations(page, "a signed study")
        page.goto(f"{live_server.url}/studies/{study.pk}/signed/1/")
        assert_no_violations(page, "a signed version")

        # A study without DICOM: its previews, each an image named by view and study, which
        # zooms with + and moves with the arrows once zoomed.
        plain = rf.make_review_study()
        open_study(page, live_server, plain, viewer=False)
        stage = page.get_by_role("img", name=re.compile("^PA view of Chest PA and lateral"))
        expect(stage).to_have_count(1)
        assert_no_violations(page, "a study with previews")
        stage.focus()
        page.keyboard.press("+")
        moved = stage.locator("img").get_attribute("style")
        page.keyboard.press("ArrowLeft")
        expect(stage.locator("img")).not_to_have_attribute("style", moved)

        failed = failed_study()
        open_study(page, live_server, failed, viewer=False)
        expect(page.locator(".status-failed").first).to_be_visible()
        assert_no_violations(page, "a failed study")
        for path in ("/", "/studies/upload/", "/studies/import/", f"/studies/{study.pk}/audit/",
                     "/accounts/settings/"):
            page.goto(f"{live_server.url}{path}")
            assert_no_violations(page, path)
    finally:
        context.close()


def test_admin_pages(page, live_server):
    study = make_dicom_review_study()
    failed = failed_study()
    page.goto(f"{live_server.url}/accounts/login/")
    assert_no_violations(page, "the sign-in page")
    admin = factories.make_user(role="admin", username="admin-axe")
    log_in(page, live_server, admin)
    for path in ("/", "/site/setup/", "/site/library/", "/site/calibration/", "/site/drafting/",
                 "/site/drafting/studies/", "/site/models/", "/audit/", "/admin/",
                 "/admin/accounts/user/", f"/admin/accounts/user/{admin.pk}/change/",
                 "/admin/detectors/filterrule/add/", "/admin/review/decision/",
                 "/admin/library/referenceimage/", "/admin/audit/auditevent/",
                 "/accounts/two-factor/", "/accounts/settings/", f"/studies/{failed.pk}/",
                 f"/studies/{study.pk}/", f"/studies/{study.pk}/audit/"):
        page.goto(f"{live_server.url}{path}")
        assert_no_violations(page, f"{path} (admin)")
    # The calibration page's two forms each have their own α, each with its name.
    page.goto(f"{live_server.url}/site/calibration/")
    expect(page.locator("#id_alpha")).to_have_count(1)
    expect(page.get_by_label(re.compile("share of true sentences the combination"))).to_have_id(
        "id_combination-alpha")


def test_every_flag_decided_with_tab_and_enter_alone(browser, live_server):
    context, page = reading_room(browser)
    try:
        study = make_dicom_review_study()
        log_in(page, live_server, factories.make_user(username="dr-tab"))
        open_study(page, live_server, study)
        # The first stop skips the menu bar.
        page.keyboard.press("Tab")
        expect(page.locator(".skip-link")).to_be_focused()
        expect(page.locator(".skip-link")).to_be_in_viewport()
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('header') === null")
        # One stop in the report: the selected flag; the next stop is its panel's first action.
        tab_to(page, "sentence-2")
        expect(page.locator("#sentence-2")).to_have_class(re.compile(r"\bselected\b"))
        for decided, index in enumerate(rf.FLAGGED, start=1):
            expect(page.locator(f"#sentence-{index}")).to_be_focused()
            page.keyboard.press("Tab")
            primary = page.locator(f"#panel-{index} [data-action=primary]")
            expect(primary).to_be_focused()
            if decided == 1:
                # The focus ring: solid, at least 3:1 against what is around it, and unlike the
                # selected sentence's frame (which the sentence shows while the focus is here).
                rings = page.evaluate(RINGS)
                colour, style, width = rings["focus"]
                assert style == "solid" and width >= 2
                assert contrast(colour, rings["around"]) >= 3
                assert rings["selection"][1] == "dashed" and rings["selection"][0] != colour
            page.keyboard.press("Enter")
            expect(page.locator("#flag-count")).to_contain_text(
                f"{len(rf.FLAGGED) - decided} of {len(rf.FLAGGED)} flags open")
        assert Decision.objects.filter(study=study).count() == len(rf.FLAGGED)
    finally:
        context.close()


def test_shortcuts_off_and_remapped(browser, live_server):
    context, page = reading_room(browser)
    try:
        study = make_dicom_review_study()
        user = factories.make_user(username="dr-no-keys")
        log_in(page, live_server, user)
        page.goto(f"{live_server.url}/accounts/settings/")
        page.uncheck("#id_on")
        page.click("#shortcuts-form button[type=submit]")
        expect(page.locator(".message")).to_have_text("Your shortcut settings are saved.")
        user.refresh_from_db()
        assert user.shortcuts_on is False

        open_study(page, live_server, study)
        expect(page.locator("#shortcuts")).to_contain_text("Single-key shortcuts are off")
        expect(page.locator("#panel-2 [data-action=primary] kbd")).to_have_count(0)
        # Letters and digits do nothing: no decision, no viewer tool or preset.
        for key in ("a", "r", "u", "j", "m", "2", "i"):
            page.keyboard.press(key)
        expect(page.locator("[data-tool=WindowLevel]")).to_have_attribute("aria-pressed", "true")
        assert page.locator(".cs-viewer").get_attribute("data-preset") is None
        # The arrows on the focused sentence still move between flags; Tab and Enter decide.
        tab_to(page, "sentence-2")
        page.keyboard.press("ArrowDown")
        expect(page.locator("#sentence-3")).to_be_focused()
        expect(page.locator("#panel-3")).to_be_visible()
        page.keyboard.press("Enter")  # on a sentence: to its panel's first button
        expect(page.locator("#panel-3 [data-action=primary]")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator("#flag-count")).to_contain_text("3 of 4 flags open")
        assert [d.action for d in Decision.objects.filter(study=study)] == ["accept"]

        # Back on, with accept on "x": "x" decides, "a" does not.
        page.goto(f"{live_server.url}/accounts/settings/")
        page.check("#id_on")
        page.fill("#id_primary", "x")
        page.click("#shortcuts-form button[type=submit]")
        expect(page.locator(".message")).to_be_visible()
        page.fill("#id_keep", "x")  # one key, one action
        page.click("#shortcuts-form button[type=submit]")
        expect(page.locator("#shortcuts-form .error")).to_contain_text("already does")
        open_study(page, live_server, study)
        expect(page.locator("#shortcuts")).to_contain_text("x accept")
        page.keyboard.press("a")
        page.keyboard.press("Shift+X")  # a capital is another key: a screen reader's, say
        page.wait_for_load_state("networkidle")
        assert Decision.objects.filter(study=study).count() == 1
        page.keyboard.press("x")
        expect(page.locator("#flag-count")).to_contain_text("2 of 4 flags open")
        assert Decision.objects.filter(study=study).count() == 2
    finally:
        context.close()


def test_viewer_images_with_the_keyboard(browser, live_server):
    context, page = reading_room(browser)
    try:
        study = make_dicom_review_study()
        log_in(page, live_server, factories.make_user(username="dr-viewer-keys"))
        open_study(page, live_server, study)
        # The images are in the Tab order, each after the viewer's toolbar.
        pane = page.locator(".cs-canvas").first
        page.locator(".cs-toolbar [data-action=fullscreen]").focus()
        page.keyboard.press("Tab")
        expect(pane).to_be_focused()
        window = page.locator(".cs-window")
        before = window.text_content()
        page.keyboard.press("Shift+ArrowUp")  # the level
        expect(window).not_to_have_text(before)
        shot = pane.screenshot()
        page.keyboard.press("ArrowRight")  # the image moves; the report's selection does not
        page.wait_for_timeout(300)
        assert pane.screenshot() != shot
        expect(page.locator("#sentence-2")).to_have_class(re.compile(r"\bselected\b"))
        page.keyboard.press("Enter")  # measure from the centre
        for _ in range(10):
            page.keyboard.press("Shift+ArrowRight")
        page.keyboard.press("Enter")
        expect(page.locator(".cs-measurements li")).to_have_count(1)
        expect(page.locator(".cs-measurements li")).to_contain_text(re.compile(r"\d+\.\d mm"))
        expect(page.locator(".cs-status")).to_have_text("Measurement recorded.")
        # One begun and left with Tab is dropped.
        page.keyboard.press("Enter")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Tab")
        expect(page.locator(".cs-status")).to_have_text("Measurement cancelled.")
        expect(page.locator(".cs-measurements li")).to_have_count(1)
        expect(page.locator(".cs-canvas").nth(1)).to_be_focused()  # Tab leaves an image
    finally:
        context.close()
