from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from workers.backends import ROLES
from workers.pipeline import queue_for

PROBE_STAGE = "probe_role"


def start_probe(role: str, *, actor) -> Job:
    if role not in ROLES:
        raise ValueError(f"unknown model role {role!r}")
    return jobs.start_site_job(PROBE_STAGE, {"role": role}, actor=actor, queue=queue_for((role,)))


def latest_probes() -> dict[str, Job]:
    """The most recent probe job of each role."""
    latest: dict[str, Job] = {}
    for job in Job.objects.filter(stage=PROBE_STAGE, study__isnull=True).order_by(
        "-created_at", "-id"
    )[:100]:
        latest.setdefault(job.params.get("role"), job)
    return latest
