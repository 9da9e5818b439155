"""The text audit outside the pipeline runs whatever the audit stage declares: a detector
registered for it shows in the batch audit's output (audit_reports) with no other change."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.support.dicom_factory import make_png
from tests.workers.library.fakes import HashEmbedder
from workers.audit import batch
from workers.audit.text import audit_context, audit_text
from workers.combine import CombinationConfig
from workers.detectors import GENERAL, DetectorSpec, register, unregister
from workers.imagememory import QueryImage
from workers.library.vectors import SentenceVectors
from workers.study import StudyContext
from workers.study.images import StudyImages
from workers.types import Detection

REPORT = "FINDINGS: Heart size is normal. The spleen is enlarged. No pleural effusion."


@dataclass(frozen=True)
class Organ:
    organ: str


def spleens(ctx, models, progress):
    return [Detection(s.index, s.start, s.end, "spleen_finder", "Not on a chest film.",
                      "medium", 1.0, evidence={"organ": "spleen"})
            for s in ctx.parsed.sentences if "spleen" in s.text.lower()]


TOY = DetectorSpec(name="spleen_finder", label="Spleen finder", stage="audit", roles=(),
                   scope=GENERAL, evidence=Organ, run=spleens)


def test_a_detector_registered_for_the_audit_stage_is_in_the_batch_output():
    register(TOY)
    try:
        record = {"id": "r1", "report": REPORT}
        embed = SentenceVectors(HashEmbedder()).embed
        (line,) = batch.audit_records([record], library=None, config=CombinationConfig(),
                                      embed=embed)
    finally:
        unregister(TOY.name)
    assert line["has_error"] is True
    assert line["error_sentence"] == "The spleen is enlarged."
    (combined,) = [d for d in line["detections"] if d["sentence_index"] == 1]
    assert [s["detector"] for s in combined["sources"]] == ["spleen_finder"]
    assert combined["sources"][0]["evidence"] == {"organ": "spleen"}


def test_a_no_prior_detector_has_no_vote_unless_the_study_is_known_to_have_no_prior():
    text = "FINDINGS: Heart size is unchanged from the prior exam."
    unknown = audit_text(text, has_prior=None)
    none = audit_text(text, has_prior=False)
    assert "comparative" not in [o.detector for o in unknown.outputs()]
    (comparative,) = [o for o in none.outputs() if o.detector == "comparative"]
    assert comparative.single_purpose and comparative.detections


PRIOR = ("FINDINGS: A 9 mm nodule is seen in the right upper lobe.\n"
         "IMPRESSION: 9 mm right upper lobe nodule. Recommend chest CT.")
CURRENT = ("COMPARISON: 2025-01-10.\nFINDINGS: Heart size is normal. No pleural effusion.\n"
           "IMPRESSION: No acute cardiopulmonary process.")


def test_the_prior_report_reaches_the_detectors_through_the_shared_context():
    audit = audit_text(CURRENT, prior_report=PRIOR, prior_date="2025-01-10", date="2025-01-30")
    assert audit.context.prior_report == PRIOR and audit.context.has_prior is True
    (flag,) = audit.detections["prior"]
    assert flag.evidence["check"] == "prior_not_addressed"
    assert "prior" in {o.detector for o in audit.outputs()}
    # without the prior report the prior checks examined nothing: no vote in the combination
    alone = audit_text(CURRENT)
    assert alone.detections["prior"] == []
    assert "prior" not in {o.detector for o in alone.outputs()}


def test_the_batch_audit_reads_prior_report_and_dates_from_the_input_line():
    record = {"id": "p1", "report": CURRENT, "prior_report": PRIOR, "prior_date": "2025-01-10",
              "date": "2025-01-30"}
    embed = SentenceVectors(HashEmbedder()).embed
    (line,) = batch.audit_records([record], library=None, config=CombinationConfig(),
                                  embed=embed)
    sources = [s for d in line["detections"] for s in d["sources"]]
    prior = [s for s in sources if s["detector"] == "prior"]
    assert prior and prior[0]["evidence"]["prior_date"] == "2025-01-10"
    assert line["has_error"]
    # the flag's harm is the dropped nodule's, and nothing rewrites the impression
    assert line["corrected_report"] == CURRENT


def _bright_views(ctx, models, progress) -> list[Detection]:
    """Flags the first sentence when the study's first view is mostly bright (dense)."""
    first = ctx.parsed.sentences[0]
    if float(ctx.images.pixels[0].mean()) <= 0.5:
        return []
    return [Detection(sentence_index=0, start=first.start, end=first.end, detector="bright",
                      explanation="bright", harm="low", confidence=0.9, evidence={"organ": ""})]


BRIGHT = DetectorSpec(name="bright", label="Bright views", stage="audit", roles=(),
                      scope=GENERAL, evidence=Organ, run=_bright_views,
                      needs=("report", "images"))


def test_an_image_detector_reads_the_context_s_images_and_does_not_look_without_them(tmp_path):
    path = tmp_path / "white.png"
    path.write_bytes(make_png(np.full((64, 64), 0.9, np.float32)))
    register(BRIGHT)
    try:
        with_images = audit_context(StudyContext(
            REPORT, images=StudyImages((QueryImage(str(path), "png", "PA"),))))
        without = audit_context(StudyContext(REPORT))
        voters = [o.detector for o in with_images.outputs()]
        silent = [o.detector for o in without.outputs()]
    finally:
        unregister(BRIGHT.name)
    assert [d.sentence_index for d in with_images.detections["bright"]] == [0]
    assert "bright" in voters
    # no images: it did not look, so it has neither detections nor a vote
    assert "bright" not in without.detections and "bright" not in silent
