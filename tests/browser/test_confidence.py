"""In the browser: a radiologist opens a flag's panel and reads one confidence, explained — the
combination's calibrated probability, each detector's own figure beside it, and which detector
set the harm."""
import pytest
from playwright.sync_api import expect

from tests import factories
from tests.web.review.combined import CLEAR, EFFUSION, combined_study, radflag_on, vrag_on
from workers.combine.calibration import ProbabilityMap, ScoreCalibration

from .conftest import log_in

pytestmark = [pytest.mark.browser]


def test_the_panel_reads_the_probability_each_members_figure_and_the_harm_source(page, live_server):
    user = factories.make_user(username="dr-confidence")
    calibration = ScoreCalibration(ProbabilityMap((0.0, 0.3), (0.1, 0.72), (40, 25)), 0.5, 0.1,
                                   version=2, calibration_id=9)
    study = combined_study(lambda report: [radflag_on(report, CLEAR),
                                           radflag_on(report, EFFUSION, calibrated=False),
                                           vrag_on(report, EFFUSION)],
                           calibration=calibration, uploaded_by=user)
    log_in(page, live_server, user)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    expect(page.locator("#review")).to_be_visible()

    page.click(f"#sentence-{EFFUSION}")
    panel = page.locator(f"#panel-{EFFUSION}")
    expect(panel).to_be_visible()
    expect(panel.locator(".flag-summary .flag-figure")).to_have_text(
        "72% chance this sentence is wrong")
    expect(panel.locator(".figure-line")).to_contain_text("combination calibration v2, α = 0.1")
    # One number up front; the detectors' own figures under the collapsed details.
    details = panel.locator("details.figure-details")
    expect(details.locator(".member-figures")).to_be_hidden()
    details.locator("summary").click()
    members = panel.locator(".member-figures tbody tr")
    expect(members).to_have_count(2)
    expect(panel.locator(".member-figures tr[data-detector=radflag] td").first).to_have_text("0.58")
    expect(panel.locator(".member-figures tr[data-detector=vrag] td").first).to_have_text("0.90")
    expect(panel.locator(".harm-setter")).to_have_text("V-RAG (image retrieval and probing)")
    expect(panel.locator(".flag-summary .harm-source")).to_have_text(
        "set by V-RAG (image retrieval and probing)")
    expect(details.locator("ol.why-differs li").nth(1)).to_contain_text("V-RAG agrees")

    # The other flag: RadFlag's calibrated flag, where the combination's probability is low.
    page.click(f"#sentence-{CLEAR}")
    other = page.locator(f"#panel-{CLEAR}")
    expect(other).to_be_visible()
    expect(other.locator(".flag-figure")).to_have_text("10% chance this sentence is wrong")
    expect(other.locator(".guarantees")).to_contain_text(
        "RadFlag: flagged at λ1 = 6 of 10, calibration v3, α = 0.1")
