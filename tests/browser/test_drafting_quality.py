"""In the browser: a radiologist signs a study a model drafted; the admin's drafting-quality page
then shows two model versions week by week, plots them, exports them as CSV and leads from a
number to the studies behind it and on to a study."""
import csv
import io

import pytest
from playwright.sync_api import expect

from radreview.accounts.models import User
from radreview.compare.models import DraftComparison
from radreview.jobs import runner
from radreview.jobs.models import Job
from tests import factories
from tests.web.compare import drafts

from .conftest import log_in, sign_with_attestation

pytestmark = [pytest.mark.browser]


def test_admin_reads_the_drafting_quality_of_two_model_versions(browser, page, live_server):
    radiologist = factories.make_user(User.Role.RADIOLOGIST)
    studies = drafts.signed_drafts(radiologist)  # v1 a week ago (2 studies), v2 this week (1)

    # A radiologist signs one more v2 draft as it was drafted, on the review page.
    study = drafts.drafted_study(radiologist, version="v2")
    log_in(page, live_server, radiologist)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    sign_with_attestation(page)
    expect(page.locator("#review-notice")).to_have_text("Signed version 1.")
    job = Job.objects.get(stage="compare_draft", state=Job.State.QUEUED)
    runner.run_job(job.pk)  # what a worker does with the job's message
    assert DraftComparison.objects.get(study=study).unchanged

    admin_context = browser.new_context(viewport={"width": 1400, "height": 900},
                                        accept_downloads=True)
    admin = admin_context.new_page()
    admin.set_default_timeout(15_000)
    log_in(admin, live_server, factories.make_user(User.Role.ADMIN))
    admin.click("nav >> text=Drafting quality")
    admin.wait_for_url(f"{live_server.url}/site/drafting/")

    rows = admin.locator("#drafting-table tbody tr")
    expect(rows).to_have_count(2)
    v2, v1 = rows.nth(0), rows.nth(1)
    assert v2.get_attribute("data-version") == "v2" and v1.get_attribute("data-version") == "v1"
    assert v2.locator("a.signed").inner_text() == "2"
    assert v2.locator("a.unchanged").inner_text() == "0.50"
    assert v1.locator("a.signed").inner_text() == "2"
    # missing finding is the second category: significant / all errors per study
    assert v1.locator("td[data-category='1']").inner_text().split() == ["0.50", "/", "0.50"]
    assert v2.locator("td[data-category='3']").inner_text().split() == ["0.50", "/", "0.50"]
    assert v1.locator("td[data-category='all']").inner_text().split() == ["0.50", "/", "0.50"]

    # the plot: a solid and a dashed line per version, a point per week each
    expect(admin.locator("#drafting-plot svg g.series")).to_have_count(4)
    expect(admin.locator("#drafting-plot polyline[stroke-dasharray]")).to_have_count(2)
    assert admin.locator("#drafting-plot svg circle").count() == 4
    legend = admin.inner_text("#drafting-plot .legend")
    assert "maira-2 (v1): all errors per study" in legend
    assert "maira-2 (v2): significant errors per study" in legend

    with admin.expect_download() as info:
        admin.click("#export-csv")
    exported = list(csv.DictReader(io.StringIO(info.value.path().read_text())))
    assert [(r["version"], r["studies_signed"], r["signed_unchanged_share"]) for r in exported] \
        == [("v2", "2", "0.5000"), ("v1", "2", "0.5000")]

    # a number leads to its studies, and a study to its page
    v1.locator("td[data-category='1'] a.significant").click()
    admin.wait_for_url("**/site/drafting/studies/**")
    expect(admin.locator("section.drafted-study")).to_have_count(1)
    missed = studies["v1_missed"]
    assert admin.locator("section.drafted-study").get_attribute("data-study") == str(missed.pk)
    expect(admin.locator("tr.draft-error.chosen")).to_contain_text(
        "Rules out pneumothorax, which the reference states.")
    admin.click(f"a[href='/studies/{missed.pk}/']")
    admin.wait_for_url(f"{live_server.url}/studies/{missed.pk}/")
    admin_context.close()
