"""In the browser: an admin uploads a calibration file, runs it in a worker with a progress
bar, reads the plot and the λ2 table, and activates the new version."""
import pytest

from radreview.accounts.models import User
from radreview.calibration import services
from tests import factories
from tests.web.calibration.helpers import pre_scored_lines

from .conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.pipeline]


def test_admin_runs_a_calibration_and_activates_it(page, live_server, celery_worker, tmp_path):
    calibration_file = tmp_path / "site-calibration.jsonl"
    calibration_file.write_text("\n".join(pre_scored_lines(reports=40)) + "\n")
    log_in(page, live_server, factories.make_user(User.Role.ADMIN))

    page.click("nav >> text=Calibration")
    page.wait_for_url(f"{live_server.url}/site/calibration/")
    assert "No active calibration" in page.inner_text("#thresholds-now")
    page.set_input_files("#id_file", str(calibration_file))
    page.fill("#id_alpha", "0.1")
    page.fill("#id_target_report_rate", "0.2")
    page.check("#id_per_category")
    page.click("button:has-text('Run calibration')")

    # The run page polls the job; when the worker is done, htmx takes us to the new version.
    page.wait_for_url(f"{live_server.url}/site/calibration/*/", timeout=90_000)
    page.wait_for_selector("#calibration-plot svg", timeout=90_000)
    assert page.locator("#calibration-plot polyline").count() == 5
    assert page.locator("#calibration-plot .alpha-line").count() == 1
    assert page.locator("#lambda2-table tbody tr").count() == 5
    assert page.locator("#category-table tbody tr").count() == 2
    lambda1 = page.inner_text("#lambda1").split()[0]
    assert lambda1.isdigit()

    page.click("#activate")
    page.wait_for_selector("#active-badge")
    active = services.active_calibration()
    assert active is not None and str(active.lambda1) == lambda1 and active.per_category

    page.click("text=All calibrations")
    assert "active" in page.inner_text(f"#calibrations tr[data-version='{active.version}']")
    assert f"version {active.version}" in page.inner_text("#thresholds-now")
