"""No stage names or shell commands on a radiologist's page: the pipeline's steps in plain
words ("Reading the report"); a failed study tells a radiologist that a step could not be
finished and to tell the admin, while admins see the stage and its error, and the setup
checklist lists the failed studies with the next step."""
import dataclasses
import re
from html import unescape
from html.parser import HTMLParser

import pytest
from django.test import Client

from radreview.jobs import runner, services
from radreview.jobs.models import Job
from radreview.jobs.stages import STAGES, STUDY_ORDER, study_stages
from radreview.studies.models import Study
from tests import factories
from tests.support.two_factor import verified_login
from workers.errors import WorkerError
from workers.pipeline import StudyInputs

pytestmark = pytest.mark.django_db

REPORT = "FINDINGS: Heart size is normal. No pleural effusion.\nIMPRESSION: No acute disease."
# A real error of the audit stage's text library: it names a file and a command for the admin.
ERROR = ("The reference library's index was built with another text embedder: delete "
         "/srv/radreview/indexes/reports.faiss and run python manage.py import_reference "
         "--source iu-xray again.")
STAGE_NAMES = list(STUDY_ORDER)


class ShownText(HTMLParser):
    """What a person reads on a page: its text and the attributes browsers show (tooltips,
    labels, placeholders), not its markup, scripts or data attributes."""

    SHOWN = ("title", "aria-label", "alt", "placeholder", "value")

    def __init__(self, html: str):
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.hidden += 1
        self.parts += [value for name, value in attrs if name in self.SHOWN and value]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def stage_names_in(text: str) -> list[str]:
    return [name for name in STAGE_NAMES if re.search(rf"\b{name}\b", text)]


@pytest.fixture
def failed_study(monkeypatch, django_capture_on_commit_callbacks) -> Study:
    """A report whose audit stage failed in the runner with ERROR."""
    def fails(*args):
        raise WorkerError(ERROR)

    monkeypatch.setitem(STAGES, "audit", dataclasses.replace(STAGES["audit"], compute=fails))
    monkeypatch.setattr(services, "send", lambda job_id, queue: None)
    study = factories.make_study()
    factories.make_report(study, REPORT, with_sentences=False)
    services.plan_jobs(study, StudyInputs(has_images=False, has_report=True))
    with django_capture_on_commit_callbacks(execute=True):
        services.start_next(study)
    while job := study.jobs.filter(state=Job.State.QUEUED).order_by("order").first():
        runner.run_job(job.pk)
    assert study.jobs.get(stage="audit").state == Job.State.FAILED
    return Study.objects.get(pk=study.pk)


def test_a_radiologist_reads_plain_words_and_is_told_to_tell_the_admin(failed_study):
    radiologist = verified_login(Client(), factories.make_user())
    for path in (f"/studies/{failed_study.pk}/", f"/studies/{failed_study.pk}/jobs/", "/"):
        html = radiologist.get(path).content.decode()
        shown = ShownText(html).text
        assert stage_names_in(shown) == [], path
        assert "manage.py" not in html and "faiss" not in html, path
    page = ShownText(radiologist.get(f"/studies/{failed_study.pk}/").content.decode()).text
    assert "Reading the report Done" in page and "Checking the report Failed" in page
    assert "This step could not be finished" in page
    assert f"Please tell your administrator (study #{failed_study.pk})" in page
    worklist = ShownText(radiologist.get("/").content.decode()).text
    assert "Checking the report could not be finished: please tell your administrator." in worklist


def test_admins_see_the_stage_and_its_error_and_the_checklist_lists_the_study(failed_study):
    admin = verified_login(Client(), factories.make_user("admin"))
    page = unescape(admin.get(f"/studies/{failed_study.pk}/").content.decode())
    assert ERROR in page and 'class="hint stage-name"' in page and ">audit</small>" in page
    assert unescape(admin.get("/").content.decode()).count(ERROR) == 1
    checklist = unescape(admin.get("/site/setup/").content.decode())
    assert 'data-step="failed_studies" data-done="no"' in checklist
    assert "1 study stopped at a failed step" in checklist
    assert (f'<a href="/studies/{failed_study.pk}/">Study #{failed_study.pk}</a>: '
            f"Checking the report (audit) failed: {ERROR}") in checklist
    assert "press Retry on the failed step" in checklist


def test_every_study_stage_has_a_plain_label_without_its_name():
    for stage in study_stages():
        assert stage.label and stage_names_in(stage.label) == [], stage.name
