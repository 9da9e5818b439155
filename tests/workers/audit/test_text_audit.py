"""The text audit outside the pipeline runs whatever the audit stage declares: a detector
registered for it shows in the batch audit's output (audit_reports) with no other change."""
from __future__ import annotations

from dataclasses import dataclass

from tests.workers.library.fakes import HashEmbedder
from workers.audit import batch
from workers.audit.text import audit_text
from workers.combine import CombinationConfig
from workers.detectors import GENERAL, DetectorSpec, register, unregister
from workers.library.vectors import SentenceVectors
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
