"""The "import_reference" site job: an admin-started import of reference reports, in a worker.

``load`` reads the source and finds what is new (the IU wheel is fetched here when needed),
``compute`` embeds the new reports with progress, ``store`` creates the rows in the job's
transaction and adds the vectors to the index once they commit.
"""
from __future__ import annotations

import numpy as np
from django.utils import timezone

from radreview.jobs.models import Job
from radreview.jobs.stages import Stage
from workers.pipeline import StageError

from . import text_library

STAGE = "import_reference"


def load(job: Job) -> text_library.ImportPlan:
    try:
        return text_library.plan_import(job.params.get("source", ""),
                                        job.params.get("path") or None)
    except text_library.LibraryImportError as exc:
        raise StageError(exc.message) from exc


def compute(plan: text_library.ImportPlan, models, progress):

    if not plan.new:
        progress(1.0, "nothing new to import")
        return plan, np.zeros((0, 1), np.float32)
    return plan, text_library.embed_plan(plan, progress)


def store(job: Job, result) -> dict:
    plan, vectors = result
    outcome = text_library.store_import(plan, vectors)
    return {**outcome.as_dict(), "at": timezone.now().isoformat()}


IMPORT_REFERENCE = Stage(STAGE, load, compute, store)
