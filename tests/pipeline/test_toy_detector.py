"""A detector declared here, and nowhere else, runs through the pipeline in a real Celery
worker, is folded into the system combination, shows on the review page and in the API's
detections and evidence schemas: declaring one ``DetectorSpec`` is the whole change.

The worker declares it the way a site declares its own detectors (RADREVIEW_DETECTOR_PLUGINS
naming ``module:attribute``); this test process registers it for the web side.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import pytest

from radreview.review.models import Detection as DetectionRow
from radreview.studies.models import Study
from tests.support.worker import wait_for, worker_with_detector
from workers.detectors import GENERAL, DetectorSpec
from workers.types import Detection, Harm

pytestmark = [pytest.mark.pipeline]

REPORT = ("FINDINGS: Heart size is normal. The spleen is enlarged. No pleural effusion.\n"
          "IMPRESSION: No acute cardiopulmonary abnormality.")
SPLEEN = 1


@dataclass(frozen=True)
class SpleenEvidence:
    organ: str
    word_index: int


def find_spleens(ctx, models, progress) -> list[Detection]:
    """Flags every sentence that names the spleen: an organ a chest film barely shows."""
    found = []
    for sentence in ctx.parsed.sentences:
        words = sentence.text.lower().split()
        if "spleen" in words:
            found.append(Detection(
                sentence_index=sentence.index, start=sentence.start, end=sentence.end,
                detector="spleen_finder", explanation="A chest radiograph rarely shows the spleen.",
                harm=Harm.MEDIUM, confidence=1.0,
                evidence=asdict(SpleenEvidence("spleen", words.index("spleen")))))
    return found


TOY = DetectorSpec(name="spleen_finder", label="Spleen finder (toy)", stage="audit", roles=(),
                   scope=GENERAL, evidence=SpleenEvidence, run=find_spleens,
                   description="A test's own detector.")


@pytest.fixture
def toy_worker(transactional_db):
    with worker_with_detector(TOY, f"{__name__}:TOY") as worker:
        yield worker


def test_a_detector_declared_in_a_test_runs_is_combined_and_is_shown(toy_worker, api_client,
                                                                    radiologist_client):
    response = api_client.post("/api/studies/", {"report_text": REPORT}, format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        message="the study to finish", timeout=180, details=toy_worker.log)
    assert study.status == Study.Status.READY, list(study.jobs.values("stage", "state", "error"))

    # the pipeline: the audit stage ran it and stored its detection
    assert study.jobs.get(stage="audit").result["detections"]["spleen_finder"] == 1
    raw = DetectionRow.objects.get(report__study=study, detector="spleen_finder")
    assert raw.sentence_index == SPLEEN
    assert raw.evidence == {"organ": "spleen", "word_index": 1}

    # the combination: a combined detection merged it (weight 1 by default)
    combined = DetectionRow.objects.get(report__study=study, detector=DetectionRow.COMBINED,
                                        sentence_index=SPLEEN)
    assert raw in combined.sources.all()
    assert combined.flagged, combined.evidence

    # the review page: its label, its explanation, its evidence (the generic template)
    page = radiologist_client.get(f"/studies/{study_id}/").content.decode()
    assert f'id="sentence-{SPLEEN}" data-index="{SPLEEN}" data-flag' in page
    assert "Spleen finder (toy)" in page
    assert "A chest radiograph rarely shows the spleen." in page
    assert "<dt>word_index</dt><dd>1</dd>" in page

    # the API: the detections export, the review's flag sources, the evidence schema
    detections = api_client.get(f"/api/studies/{study_id}/detections/").json()
    toy = [d for d in detections if d["detector"] == "spleen_finder"]
    assert [(d["label"], d["sentence_index"]) for d in toy] == [("Spleen finder (toy)", SPLEEN)]
    review = api_client.get(f"/api/studies/{study_id}/review/").json()
    sources = [source for sentence in review["sentences"] if sentence["flag"]
               for source in sentence["flag"]["sources"]]
    assert {"detector": "spleen_finder", "label": "Spleen finder (toy)"}.items() <= next(
        s for s in sources if s["detector"] == "spleen_finder").items()
    schemas = {d["name"]: d for d in api_client.get("/api/detectors/").json()}
    assert schemas["spleen_finder"]["evidence_schema"]["properties"] == {
        "organ": {"type": "string"}, "word_index": {"type": "integer"}}
    assert schemas["spleen_finder"]["stage"] == "audit"
