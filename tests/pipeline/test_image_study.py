"""An image study through a real worker on the built-in backends against a reference library:
an uploaded DICOM study with no report gets a generated report (RadFlag's sample stage drafts it
with the built-in retrieval generator), RadFlag support, V-RAG detections, an RA-RRG draft and
the retrieved neighbours on its page."""
from __future__ import annotations

import numpy as np
import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.library import image_import
from radreview.library.models import ReferenceImage, StudyRetrieval
from radreview.review.models import Detection
from radreview.studies.models import Report, Study
from tests.support import dicom_factory as dicom
from tests.support.worker import wait_for
from tests.web.images.library_files import folder_per_study
from tests.workers.imagememory.library_factory import phantom

pytestmark = [pytest.mark.pipeline]


def blended_views(first: int, second: int) -> list[tuple[str, np.ndarray]]:
    """A study that looks like two reference studies at once (their phantoms averaged), with
    some noise: the retrieved neighbours then disagree among themselves."""
    rng = np.random.default_rng(9)
    views = []
    for view, lateral in (("PA", False), ("LATERAL", True)):
        density = 0.5 * phantom(200 + first, lateral) + 0.5 * phantom(200 + second, lateral)
        density = np.clip(density + rng.normal(0, 0.01, density.shape), 0, 1)
        views.append((view, density))
    return views


def test_a_dicom_study_without_a_report_is_drafted_and_audited_from_the_library(
        celery_worker, api_client, tmp_path):
    images, reports = folder_per_study(tmp_path, n=10)
    summary = image_import.run_import(images, reports)
    assert summary.images_added == 20 and not summary.refused

    files = [SimpleUploadedFile(f"{view.lower()}.dcm", dicom.make_dicom(
        density=density, view=view, rows=192, cols=192, study_uid="1.2.826.0.1.99"))
        for view, density in blended_views(0, 3)]
    response = api_client.post("/api/studies/", {"files": files}, format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        timeout=240, message="the image study to finish",
        details=lambda: f"{list(Study.objects.get(pk=study_id).jobs.values('stage', 'error'))}"
                        f"\n{celery_worker.log()[-4000:]}")
    assert study.status == Study.Status.READY, list(study.jobs.values("stage", "state", "error"))
    stages = [job.stage for job in study.jobs.order_by("order")]
    assert stages.index("sample") < stages.index("parse_report") < stages.index("vrag") \
        < stages.index("rarrg")

    candidate = study.reports.get(kind=Report.Kind.CANDIDATE)
    assert candidate.source == "builtin-retrieval-generator" and candidate.temperature == 0.1
    assert candidate.text.startswith("FINDINGS: ") and candidate.sentences.exists()
    samples = study.reports.filter(kind=Report.Kind.SAMPLE)
    assert samples.count() == settings.RADFLAG_SAMPLES
    assert len({s.text for s in samples}) > 1  # temperature 1.0 samples differ
    assert candidate.sentences.filter(support__isnull=False).exists()

    vrag = Detection.objects.filter(report=candidate, detector="vrag")
    assert vrag.exists(), study.retrievals.get(stage="vrag").probes
    evidence = vrag.first().evidence
    assert evidence["answer"] in ("yes", "no") and evidence["neighbours"]
    first = evidence["neighbours"][0]
    image = ReferenceImage.objects.get(pk=first["image_id"])
    assert image.study_id == first["reference_id"]
    assert first["thumbnail_url"] == f"/library/images/{image.pk}/thumbnail.png"

    drafts = {r.source: r for r in study.reports.filter(kind=Report.Kind.DRAFT)}
    assert set(drafts) == {"vrag", "rarrg"}
    assert drafts["rarrg"].text.startswith("FINDINGS: ") and "IMPRESSION: " in drafts["rarrg"].text
    retrieval = study.retrievals.get(stage=StudyRetrieval.Stage.RARRG)
    assert retrieval.phrases and all(p["score"] >= 0.4 for p in retrieval.phrases)
    assert retrieval.encoder == "builtin-appearance-v1" and retrieval.encoder_learned is False

    html = api_client.get(f"/studies/{study_id}/")  # the API client's session logs in too
    if html.status_code == 302:  # token clients have no session: log a page client in
        from django.test import Client

        client = Client()
        client.force_login(study.uploaded_by)
        html = client.get(f"/studies/{study_id}/")
    page = html.content.decode()
    assert "Similar reference studies" in page and "thumbnail.png" in page
    assert 'id="dicom-viewer"' in page  # the diagnostic viewer shows the DICOM images
