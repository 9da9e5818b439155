"""An image detector declared here, and nowhere else, runs through the pipeline in a real
Celery worker on a study's own images: one module (this one), one registry line (``TOY``) and
a template (the generic one) are the whole change. The audit stage gives it the study context
with the images because its spec needs them; it reads the views and their pixels from there,
and the report's sentences, without opening a file or parsing the report itself."""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.review.models import Detection as DetectionRow
from radreview.studies.models import Study
from tests.support import dicom_factory as dicom
from tests.support.worker import wait_for, worker_with_detector
from workers.detectors import SINGLE_PURPOSE, DetectorSpec
from workers.types import Detection, Harm

pytestmark = [pytest.mark.pipeline]

REPORT = ("FINDINGS: Heart size is normal. The lateral view shows no effusion.\n"
          "IMPRESSION: No acute cardiopulmonary abnormality.")
LATERAL_SENTENCE = 1


@dataclass(frozen=True)
class ViewEvidence:
    named_view: str
    study_views: list[str]
    mean_density: float


def views_not_taken(ctx, models, progress) -> list[Detection]:
    """Flags a sentence that describes a view the study's images do not include."""
    views = [q.view for q in ctx.images.queries]
    density = round(float(np.mean([p.mean() for p in ctx.images.pixels])), 3)
    found = []
    for sentence in ctx.parsed.sentences:
        if "lateral" in sentence.text.lower() and "LATERAL" not in views:
            found.append(Detection(
                sentence_index=sentence.index, start=sentence.start, end=sentence.end,
                detector="view_check", explanation="The study has no lateral view.",
                harm=Harm.LOW, confidence=0.9,
                evidence=asdict(ViewEvidence("LATERAL", views, density))))
    return found


TOY = DetectorSpec(name="view_check", label="Views taken (toy)", stage="audit", roles=(),
                   scope=SINGLE_PURPOSE, evidence=ViewEvidence, run=views_not_taken,
                   needs=("report", "images"), description="A test's own image detector.")


@pytest.fixture
def toy_worker(transactional_db):
    with worker_with_detector(TOY, f"{__name__}:TOY") as worker:
        yield worker


def test_an_image_detector_declared_in_a_test_reads_the_study_s_images(toy_worker, api_client,
                                                                      radiologist_client):
    frontal = SimpleUploadedFile("pa.dcm", dicom.make_dicom(view="PA", rows=128, cols=128))
    response = api_client.post("/api/studies/", {"files": [frontal], "report_text": REPORT},
                               format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        message="the study to finish", timeout=240, details=toy_worker.log)
    assert study.status == Study.Status.READY, list(study.jobs.values("stage", "state", "error"))

    assert study.jobs.get(stage="audit").result["detections"]["view_check"] == 1
    raw = DetectionRow.objects.get(report__study=study, detector="view_check")
    assert raw.sentence_index == LATERAL_SENTENCE
    assert raw.evidence["study_views"] == ["PA"]
    assert 0.0 < raw.evidence["mean_density"] < 1.0  # read from the decoded pixels

    combined = DetectionRow.objects.get(report__study=study, detector=DetectionRow.COMBINED,
                                        sentence_index=LATERAL_SENTENCE)
    assert raw in combined.sources.all()

    page = radiologist_client.get(f"/studies/{study_id}/").content.decode()
    assert "Views taken (toy)" in page and "The study has no lateral view." in page
    assert "<dt>named_view</dt><dd>LATERAL</dd>" in page
