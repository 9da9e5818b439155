"""A study's jobs run in the test's own process, in order, as a worker would run them."""
from radreview.jobs import runner
from radreview.jobs.models import Job
from radreview.studies.models import Study


def run_pipeline(study: Study) -> Study:
    for _ in range(20):
        job = study.jobs.filter(state=Job.State.QUEUED).order_by("order").first()
        if job is None:
            break
        runner.run_job(job.pk)
        job.refresh_from_db()
        assert job.state == Job.State.DONE, (job.stage, job.error)
    study.refresh_from_db()
    return study
