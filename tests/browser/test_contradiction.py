"""In the browser: the five-sentence report of issue 12, uploaded through the upload page,
shows both contradicting pairs on the review page, each side naming the other, the normal
side doubted, and no suggestion that removes or negates the effusion."""
import pytest
from playwright.sync_api import expect

from radreview.review.models import SignOff
from tests import factories

from .conftest import log_in, sign_with_attestation

pytestmark = [pytest.mark.browser, pytest.mark.pipeline]

REPORT = ("FINDINGS: Heart size is normal. There is a large right pleural effusion. No "
          "pneumothorax.\nIMPRESSION: No acute cardiopulmonary process. Mild cardiomegaly.")
# sentence index -> (the other sentence's number on the page, its text, doubted here)
PAIRS = {
    0: (5, "Mild cardiomegaly.", True),
    4: (1, "Heart size is normal.", False),
    1: (4, "No acute cardiopulmonary process.", False),
    3: (2, "There is a large right pleural effusion.", True),
}
EFFUSION = 1


def test_the_five_sentence_report_shows_both_pairs_and_keeps_the_effusion(
        page, live_server, celery_worker):
    log_in(page, live_server, factories.make_user())
    page.click("text=Upload a study")
    page.fill("#id_report_text", REPORT)
    page.click("button:has-text('Upload')")
    page.wait_for_url(f"{live_server.url}/studies/*/")

    # the jobs panel polls until the pipeline ends; the page then shows the flags
    page.wait_for_selector(".sent[data-flag]", timeout=120_000)
    expect(page.locator(".sent[data-flag]")).to_have_count(4)

    for index, (number, other, doubted) in PAIRS.items():
        page.locator(f"#sentence-{index} .sentence").click()
        panel = page.locator(f"#panel-{index}")
        expect(panel).to_be_visible()
        source = panel.locator("section.detector-contradiction")
        expect(source).to_have_count(1)
        expect(source.locator("h4")).to_contain_text("Contradicting sentences")
        expect(source.locator(".explanation")).to_contain_text(
            f"Contradicts sentence {number}, \u201c{other}\u201d")
        expect(source.locator("q.other-sentence")).to_have_text(other)
        expect(source.locator(".contradiction-doubt")).to_contain_text(
            "Doubted: this sentence" if doubted else "Doubted: the other sentence")

    # the doubted summary is the one offered a change: aligned with the effusion
    page.locator("#sentence-3 .sentence").click()
    suggestion = page.locator("#panel-3 .suggestion:not(.readings)")
    expect(suggestion).to_be_visible()
    inserted = " ".join(suggestion.locator("ins").all_inner_texts()).split()
    assert inserted == ["Large", "right", "pleural", "effusion"]  # the period is kept

    # the effusion: no replacement, and no reading that removes or negates it (keep it, and
    # align the summary, is the one offered)
    panel = page.locator(f"#panel-{EFFUSION}")
    page.locator(f"#sentence-{EFFUSION} .sentence").click()
    expect(panel).to_be_visible()
    expect(panel.locator(".suggestion:not(.readings)")).to_have_count(0)
    expect(panel.locator(".reading-other")).to_have_count(0)
    expect(panel.locator(".use-suggestion")).to_have_count(0)
    expect(panel).not_to_contain_text("There is no large right pleural effusion")
    expect(panel).not_to_contain_text("Remove this sentence")


def test_pressing_a_through_every_flag_keeps_every_true_finding(page, live_server,
                                                                 celery_worker):
    """One rule for every flag: ``a`` does what the panel proposes, and its button says it in
    words. Walking the contradiction study's flags with ``a`` alone must not delete the
    findings the panels say to keep (issue 30: it once removed "Mild cardiomegaly")."""
    log_in(page, live_server, factories.make_user())
    page.click("text=Upload a study")
    page.fill("#id_report_text", REPORT)
    page.click("button:has-text('Upload')")
    page.wait_for_url(f"{live_server.url}/studies/*/")
    page.wait_for_selector(".sent[data-flag]", timeout=120_000)
    flags = page.locator(".sent[data-flag]").count()
    for open_left in range(flags - 1, -1, -1):
        primary = page.locator(".panel:not([hidden]) button[data-action=primary]")
        expect(primary).to_have_count(1)
        assert primary.inner_text().split(maxsplit=1)[1].startswith(
            ("Keep this sentence", "Change to", "Remove this sentence"))
        page.keyboard.press("a")
        expect(page.locator("#flag-count")).to_contain_text(f"{open_left} of {flags} flags open")
    sign_with_attestation(page)
    expect(page.locator("#review-notice")).to_have_text("Signed version 1.")
    signed = SignOff.objects.get().report.text.lower()
    assert "large right pleural effusion" in signed
    assert "cardiomegaly" in signed
