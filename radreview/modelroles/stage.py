"""The "probe_role" site job: describe one role and run a tiny request through it, in a worker.

It runs in a worker because that is where models load; the web process only knows the settings.
"""
from __future__ import annotations

from dataclasses import asdict

from django.utils import timezone

from radreview.jobs.models import Job
from radreview.jobs.stages import Stage
from workers.backends import registry

from .services import PROBE_STAGE


def load(job: Job) -> str:
    return job.params["role"]


def compute(role: str, models, progress) -> dict:
    result = registry.probe(role)
    status = next(s for s in registry.describe() if s.role == role)
    progress(1.0, "probed")
    return {"status": asdict(status), "probe": asdict(result)}


def store(job: Job, result: dict) -> dict:
    return {**result, "at": timezone.now().isoformat()}


PROBE_ROLE = Stage(PROBE_STAGE, load, compute, store)
