"""Import from the PACS as a background job, so a large study never holds a web worker.

The web request only queues a site job (``radreview.jobs``, stage ``pacs_import``). In a
worker, ``compute`` lists the study's instances (QIDO-RS) and retrieves them one by one
(WADO-RS) into ``MEDIA_ROOT/pacs-import/<job>/``, reporting "n of N instances retrieved";
``store`` hands the files to the upload service — the same checks and study creation as an
upload — in the transaction that finishes the job. The job runner claims the job, keeps its
heartbeat, records a failure with its reason on the job (the import page shows it), and a
starting worker queues again an import whose worker died.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings
from django.core.files import File
from django.utils import timezone

from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.jobs.stages import Stage
from radreview.studies.models import Study
from radreview.studies.services.upload import UploadRequest, create_studies
from radreview.studies.storage import open_media, remove_folder, write_media_atomically
from workers.pipeline import StageError

from . import pacs

logger = logging.getLogger(__name__)

STAGE = "pacs_import"
FOLDER = "pacs-import"
UNFINISHED = (Job.State.PENDING, Job.State.QUEUED, Job.State.RUNNING)


def start(study_instance_uid: str, *, actor) -> Job:
    """Queue the import of a study, or give the import already under way for it."""
    running = under_way([study_instance_uid]).get(study_instance_uid)
    if running is not None:
        return running
    return jobs.start_site_job(STAGE, {"study_instance_uid": study_instance_uid}, actor=actor)


def under_way(study_uids: list[str]) -> dict[str, Job]:
    """The unfinished import of each of these studies that has one."""
    found = Job.objects.filter(stage=STAGE, state__in=UNFINISHED,
                               params__study_instance_uid__in=study_uids).order_by("pk")
    return {job.params["study_instance_uid"]: job for job in found}


def recent(user, count: int = 10) -> list[Job]:
    return list(Job.objects.filter(stage=STAGE, created_by=user)
                .order_by("-created_at", "-id")[:count])


# --- the job's stage: load, compute (in the worker), store (finishing the job) -------------

@dataclass(frozen=True)
class ImportRequest:
    job_id: int
    study_instance_uid: str


@dataclass(frozen=True)
class Retrieved:
    study_instance_uid: str
    folder: str  # relative to MEDIA_ROOT
    files: tuple[str, ...]  # relative to MEDIA_ROOT


def load(job: Job) -> ImportRequest:
    return ImportRequest(job.pk, job.params["study_instance_uid"])


def compute(request: ImportRequest, models, progress) -> Retrieved:
    uid = request.study_instance_uid
    folder = f"{FOLDER}/{request.job_id}"
    remove_folder(folder)  # an earlier, interrupted attempt
    try:
        progress(0.0, "Asking the PACS for the study's instances")
        wanted = pacs.instances(uid)
        if not wanted:
            raise StageError("The PACS has no instances of this study.")
        if len(wanted) > settings.MAX_UPLOAD_FILES:
            raise StageError(f"The study has {len(wanted)} instances; RadReview takes at most "
                             f"{settings.MAX_UPLOAD_FILES} per study.")
        files, total = [], 0
        for number, instance in enumerate(wanted, start=1):
            data = pacs.retrieve_instance(uid, instance)
            total += len(data)
            if total > settings.MAX_UPLOAD_STUDY_BYTES:
                raise StageError("The study is larger than RadReview takes per study "
                                 f"({settings.MAX_UPLOAD_STUDY_BYTES // 2**20} MB).")
            files.append(write_media_atomically(
                f"{folder}/{instance.sop_instance_uid}.dcm", data))
            progress(number / len(wanted), f"{number} of {len(wanted)} instances retrieved")
    except BaseException:
        remove_folder(folder)
        raise
    return Retrieved(uid, folder, tuple(files))


def store(job: Job, retrieved: Retrieved) -> dict:
    """Create the study from the retrieved files (raises UploadRejected with the upload's
    reason, which fails the job); the files go either way."""
    handles = [open_media(path) for path in retrieved.files]
    try:
        study = Study.objects.filter(study_instance_uid=retrieved.study_instance_uid).first()
        already = study is not None  # imported meanwhile by someone else
        if not already:
            files = [File(handle, name=PurePosixPath(path).name)
                     for handle, path in zip(handles, retrieved.files)]
            study = create_studies(user=job.created_by, request=UploadRequest(
                files=files, source=Study.Source.PACS, source_detail="DICOMweb"))[0]
    finally:
        for handle in handles:
            handle.close()
        remove_folder(retrieved.folder)
    logger.info("PACS import job %s: study %s (%s instances)%s", job.pk, study.pk,
                len(retrieved.files), ", already there" if already else "")
    return {"study": study.pk, "instances": len(retrieved.files), "already": already,
            "at": timezone.now().isoformat()}


PACS_IMPORT = Stage(STAGE, load, compute, store)
