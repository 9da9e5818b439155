"""The processes' long-lived objects are kept out of the collector's full passes
(radreview/longlived.py): frozen once, at the points where a process has loaded them."""
import gc
import inspect

import pytest

from radreview import longlived
from radreview.jobs import runner, services
from radreview.jobs.models import Job
from tests import factories
from workers.pipeline import StudyInputs


@pytest.fixture
def fresh_freezes(monkeypatch):
    monkeypatch.setattr(longlived, "_frozen_after", set())
    yield
    gc.unfreeze()  # the test process's objects back in the collector's reach


def test_a_freeze_takes_what_exists_out_of_full_passes(fresh_freezes):
    kept = [object()]  # a tracked container, made before the freeze
    longlived.freeze_long_lived()
    later = [object()]
    walked = {id(o) for o in gc.get_objects()}
    assert id(kept) not in walked
    assert id(later) in walked
    assert gc.get_freeze_count() > 0


def test_a_name_freezes_the_first_time_only(fresh_freezes):
    assert longlived.freeze_after_first("audit") is True
    frozen = gc.get_freeze_count()
    made_since = [object()]
    assert longlived.freeze_after_first("audit") is False
    assert id(made_since) in {id(o) for o in gc.get_objects()}  # no second freeze
    # A frozen object that is freed leaves the count (a thread of an earlier test ending, say);
    # a second freeze would add every object made since.
    assert gc.get_freeze_count() <= frozen
    assert longlived.freeze_after_first("combine") is True


@pytest.mark.django_db
def test_a_worker_freezes_after_a_stages_first_run_once_the_jobs_are_done(
        fresh_freezes, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(services, "send", lambda job_id, queue: None)  # no broker here
    inside_a_job = []
    freeze = longlived.freeze_long_lived
    monkeypatch.setattr(longlived, "freeze_long_lived", lambda: (
        inside_a_job.append(any(f.function == "run_job" for f in inspect.stack())), freeze()))
    study = factories.make_study()
    factories.make_report(study, "FINDINGS: Heart size is normal.", with_sentences=False)
    services.plan_jobs(study, StudyInputs(has_images=False, has_report=True))
    with django_capture_on_commit_callbacks(execute=True):
        services.start_next(study)
    runner.run_chain(study.jobs.get(stage="parse_report").pk)  # what the worker's task runs
    assert set(study.jobs.values_list("state", flat=True)) == {Job.State.DONE}
    assert longlived._frozen_after == {"parse_report", "audit", "combine"}
    assert gc.get_freeze_count() > 0
    # After run_job returned: no job's own objects (a study and its reports, which refer to
    # each other) are frozen with the models.
    assert inside_a_job == [False, False, False]


@pytest.mark.django_db  # loading it checks the deployment identity (radreview/media/startup.py)
def test_the_web_application_freezes_when_loaded(fresh_freezes):
    import importlib  # noqa: PLC0415 - the module's import is what is tested

    import radreview.wsgi  # noqa: PLC0415

    gc.unfreeze()
    importlib.reload(radreview.wsgi)
    assert gc.get_freeze_count() > 0
