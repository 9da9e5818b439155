"""Site jobs of the image memory: importing reference studies with images, and rebuilding.

The import commits study by study while it runs (a reference library does not fit one
transaction; the import is safe to run again), so ``compute`` does the work and ``store``
writes the summary the library page shows. An uploaded ZIP file is unpacked first into a
folder that is removed afterwards.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from django.utils import timezone

from radreview.jobs.models import Job
from radreview.jobs.stages import Stage
from workers.pipeline import StageError

from . import image_memory, index_store
from .image_import import ImportRefused, run_import
from .upload import unpack_archive

IMPORT_STAGE = "import_reference_images"
REBUILD_STAGE = "rebuild_image_index"


def load(job: Job) -> dict:
    return dict(job.params)


def compute(params: dict, models, progress) -> dict:

    cleanup = None
    try:
        images, reports = params.get("images"), params.get("reports")
        if params.get("archive"):
            folder, reports_file = unpack_archive(Path(params["archive"]))
            cleanup = folder
            images, reports = str(folder), str(reports_file)
        summary = run_import(images, reports, source=params.get("source") or "site",
                             progress=progress)
    except (ImportRefused, index_store.IndexStoreError) as exc:
        raise StageError(exc.message) from None
    finally:
        if cleanup is not None:
            shutil.rmtree(cleanup, ignore_errors=True)
        if params.get("archive"):
            Path(params["archive"]).unlink(missing_ok=True)
    return {**summary.to_dict(), "lines": summary.lines()}


def store(job: Job, result: dict) -> dict:
    return {**result, "at": timezone.now().isoformat()}


def rebuild_load(job: Job) -> dict:
    return dict(job.params)


def rebuild_compute(params: dict, models, progress) -> dict:

    try:
        memory = image_memory.rebuild(progress)
    except index_store.IndexStoreError as exc:
        raise StageError(exc.message) from None
    return {"images": len(memory), "studies": len(memory.studies),
            "encoder": memory.encoder.name if memory.encoder else None,
            "index_kind": memory.index_kind, "generation": memory.generation}


IMPORT_REFERENCE_IMAGES = Stage(IMPORT_STAGE, load, compute, store)
REBUILD_IMAGE_INDEX = Stage(REBUILD_STAGE, rebuild_load, rebuild_compute, store)
