"""Studies ready for review: a parsed report, detector detections merged into flags, samples.

``make_review_study`` builds the study most review tests use: nine sentences, four flagged
sentences (combined rows over raw radflag / correction / vrag / judge / comparative / rarrg
detections, with suggestions and evidence as docs/detections.md describes them), one combined
row that did not pass the threshold, RadFlag samples, and one image view with a preview.
"""
from __future__ import annotations

import io
import itertools

from PIL import Image as PILImage

from radreview.jobs.models import Job
from radreview.review.models import Detection
from radreview.studies.models import Image, Report, Study
from radreview.studies.storage import write_media_atomically
from tests import factories
from tests.support import dicom_factory as dicom

REPORT = (
    "INDICATION: Cough and fever.\n"
    "FINDINGS: The heart size is normal. There is a small left pleural effusion. "
    "A right upper lobe nodule measures 2 cm. The endotracheal tube tip is 3 cm above the carina. "
    "The lungs are otherwise clear. Unchanged from prior.\n"
    "IMPRESSION: Small left pleural effusion. No pneumothorax."
)
# Sentence indices of REPORT.
EFFUSION, NODULE, TUBE, CLEAR, UNCHANGED, IMPRESSION_EFFUSION = 2, 3, 4, 5, 6, 7
FLAGGED = (EFFUSION, NODULE, UNCHANGED, IMPRESSION_EFFUSION)
EFFUSION_SUGGESTION = "There is no left pleural effusion."
IMPRESSION_SUGGESTION = "No pleural effusion."
STUDY_UID = "1.2.826.0.1.3680043.8.498.11111111111111111111"
SERIES_UID = "1.2.826.0.1.3680043.8.498.22222222222222222222"
SOP_UIDS = (
    "1.2.826.0.1.3680043.8.498.33333333333333333331",
    "1.2.826.0.1.3680043.8.498.33333333333333333332",
)

_ids = itertools.count(1)


def _png(size: int = 64) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("L", (size, size), color=90).save(buffer, format="PNG")
    return buffer.getvalue()


def add_image(
    study: Study, *, dicom_uid: str | None = None, view: str = Image.View.PA, position: int = 0
) -> Image:
    number = next(_ids)
    # A real file behind the row: the study page says so when an original is missing.
    original = (dicom.make_dicom(study_uid=STUDY_UID, series_uid=SERIES_UID, sop_uid=dicom_uid,
                                 rows=64, cols=64) if dicom_uid else _png())
    name = write_media_atomically(
        f"studies/{study.pk}/originals/view-{number}.{'dcm' if dicom_uid else 'png'}", original)
    image = Image.objects.create(
        study=study,
        position=position,
        kind=Image.Kind.DICOM if dicom_uid else Image.Kind.PNG,
        original=name,
        original_name=f"view-{number}",
        size_bytes=len(original),
        sha256="0" * 64,
        view=view,
        rows=64,
        columns=64,
        sop_instance_uid=dicom_uid or "",
        series_instance_uid=SERIES_UID if dicom_uid else "",
        metadata={"sop_class_uid": "1.2.840.10008.5.1.4.1.1.1.1", "modality": "DX"}
        if dicom_uid
        else {},
    )
    image.preview = write_media_atomically(f"studies/{study.pk}/previews/{image.pk}.png", _png())
    image.thumbnail = write_media_atomically(
        f"studies/{study.pk}/previews/{image.pk}-thumb.png", _png(32)
    )
    image.save(update_fields=["preview", "thumbnail"])
    return image


def finish_pipeline(study: Study) -> None:
    """Mark the study as processed: its jobs done, its status ready."""
    Job.objects.bulk_create(
        Job(study=study, stage=stage, order=order, state=Job.State.DONE, progress=1.0)
        for order, stage in enumerate(("ingest", "parse_report", "detect"))
    )
    Study.objects.filter(pk=study.pk).update(status=Study.Status.READY)
    study.refresh_from_db()


def raw(report: Report, index: int, detector: str, *, harm="medium", confidence=0.6, evidence=None,
        suggestion=None, explanation=None, flagged=False) -> Detection:
    sentence = report.sentences.get(index=index)
    return Detection.objects.create(
        report=report,
        sentence=sentence,
        sentence_index=index,
        start=sentence.start,
        end=sentence.end,
        detector=detector,
        explanation=explanation or f"{detector} doubts sentence {index}.",
        harm=harm,
        confidence=confidence,
        evidence=evidence or {},
        suggestion=suggestion,
        flagged=flagged,
    )


def combined(report: Report, index: int, sources: list[Detection], *, harm="medium", confidence=0.8,
             suggestion=None, flagged=True) -> Detection:
    row = raw(
        report,
        index,
        Detection.COMBINED,
        harm=harm,
        confidence=confidence,
        suggestion=suggestion,
        explanation="Merged: " + " / ".join(s.explanation for s in sources),
        flagged=flagged,
    )
    row.sources.set(sources)
    return row


def radflag_evidence(support: int, n: int = 10, **extra) -> dict:
    verdicts = [
        {
            "sample": i,
            "verdict": "complete" if i < support else "none",
            "reason": "states it" if i < support else "absent from the sample",
        }
        for i in range(n)
    ]
    return {"support": support, "n": n, "lambda1": 4, "category": "Pleura", "calibration": 3,
            "verdicts": verdicts, **extra}


def make_review_study(
    uploaded_by=None, *, dicom: bool = False, with_combined: bool = True, **fields
) -> Study:
    study = factories.make_study(
        uploaded_by=uploaded_by, description="Chest PA and lateral", **fields
    )
    if dicom:
        Study.objects.filter(pk=study.pk).update(
            study_instance_uid=STUDY_UID, patient_name="Doe^Jane", patient_id="P-0042",
            patient_sex="F", accession_number="ACC-7", study_date="2026-03-04",
        )
        study.refresh_from_db()
    report = factories.make_report(study, REPORT)
    report.sentences.filter(index=EFFUSION).update(
        support=2, support_n=10, category="Pleura",
        findings=[{"observation": "pleural effusion", "status": "present", "laterality": "left",
                   "severity": "small", "location": None}],
    )
    report.sentences.filter(index=CLEAR).update(support=9, support_n=10, category="Lungs")
    for i in range(10):
        text = (
            "FINDINGS: Heart normal. Lungs clear." if i >= 2 else "FINDINGS: Small left effusion."
        )
        Report.objects.create(
            study=study, kind=Report.Kind.SAMPLE, text=text, sample_index=i, temperature=1.0
        )
    add_image(study, dicom_uid=SOP_UIDS[0] if dicom else None, view=Image.View.PA, position=0)
    add_image(study, dicom_uid=SOP_UIDS[1] if dicom else None, view=Image.View.LATERAL, position=1)

    effusion_flag = raw(
        report,
        EFFUSION,
        "radflag",
        harm="medium",
        confidence=0.8,
        flagged=True,
        evidence=radflag_evidence(2, report_flagged=True, lambda2=2, flagged_sentences=2),
        explanation="Only 2 of 10 sampled reports mention an effusion.",
    )
    effusion_fix = raw(
        report,
        EFFUSION,
        "correction",
        harm="medium",
        confidence=0.7,
        suggestion=EFFUSION_SUGGESTION,
        evidence={
            "original": "There is a small left pleural effusion.",
            "suggestion": EFFUSION_SUGGESTION,
            "internal": ["no left pleural effusion"],
            "neighbours": [
                {
                    "reference_id": 12,
                    "external_id": "iu-5",
                    "similarity": 0.81,
                    "excerpt": "No pleural effusion.",
                }
            ],
        },
        explanation="Similar reports and the report's own graph say there is no effusion.",
    )
    nodule_probe = raw(
        report,
        NODULE,
        "vrag",
        harm="high",
        confidence=0.9,
        evidence={
            "entity": "lung nodule",
            "question": "Is there a lung nodule?",
            "answer": "no",
            "report_says": "present",
            "neighbours": [
                {
                    "reference_id": 7,
                    "image_id": 19,
                    "similarity": 0.92,
                    "says": "absent",
                    "excerpt": "Clear lungs.",
                    "thumbnail_url": "/static/none.png",
                },
                {
                    "reference_id": 8,
                    "image_id": 20,
                    "similarity": 0.88,
                    "says": "absent",
                    "excerpt": "No nodules.",
                    "thumbnail_url": "https://elsewhere.example/x.png",
                },
            ],
        },
        explanation="Similar images show no nodule, and the probe answered no.",
    )
    nodule_judge = raw(
        report,
        NODULE,
        "judge",
        harm="high",
        confidence=0.6,
        evidence={
            "rule": "unsupported_by_library",
            "related_sentence": None,
            "detail": "No reference report of similar images mentions a nodule.",
        },
    )
    unchanged = raw(report, UNCHANGED, "comparative", harm="low", confidence=0.55,
                    evidence={"terms": ["unchanged", "prior"], "has_prior": False},
                    explanation="Compares with a prior exam, but the study has none.")
    impression_judge = raw(report, IMPRESSION_EFFUSION, "judge", harm="medium", confidence=0.65,
                           evidence={"rule": "impression_vs_findings", "related_sentence": EFFUSION,
                                     "detail": "The impression repeats a doubtful finding."})
    impression_phrases = raw(report, IMPRESSION_EFFUSION, "rarrg", harm="medium", confidence=0.5,
                             evidence={"phrases": [{"text": "no pleural effusion", "score": 0.7}],
                                       "unsupported": "small left pleural effusion"})
    tube = raw(report, TUBE, "radflag", harm="low", confidence=0.3, evidence=radflag_evidence(6))
    if with_combined:
        combined(report, EFFUSION, [effusion_flag, effusion_fix], harm="medium", confidence=0.82)
        combined(
            report,
            NODULE,
            [nodule_probe, nodule_judge],
            harm="high",
            confidence=0.91,
            suggestion="",
        )
        combined(report, UNCHANGED, [unchanged], harm="low", confidence=0.55, suggestion="")
        combined(report, IMPRESSION_EFFUSION, [impression_judge, impression_phrases], harm="medium",
                 confidence=0.7, suggestion=IMPRESSION_SUGGESTION)
        combined(report, TUBE, [tube], harm="low", confidence=0.3, flagged=False)
    else:
        # Combination disabled: the raw rows' own flags decide.
        Detection.objects.filter(pk__in=[nodule_probe.pk, unchanged.pk]).update(flagged=True)
    finish_pipeline(study)
    return study


def make_large_review_study(uploaded_by=None, *, sentences: int = 40, flags: int = 20) -> Study:
    """A report of ``sentences`` sentences, every other one flagged (for render-cost checks)."""
    study = factories.make_study(uploaded_by=uploaded_by, description="Large review")
    findings = " ".join(
        f"Finding number {i} shows a small opacity in zone {i}." for i in range(sentences - 2)
    )
    report = factories.make_report(
        study, f"FINDINGS: {findings}\nIMPRESSION: Opacities. Follow up advised."
    )
    step = max(1, sentences // max(1, flags))
    for n, index in enumerate(range(0, sentences, step)):
        if n >= flags:
            break
        a = raw(report, index, "radflag", confidence=0.7, evidence=radflag_evidence(n % 4))
        b = raw(
            report,
            index,
            "correction",
            confidence=0.6,
            suggestion=f"No opacity in zone {index}.",
            evidence={
                "original": "x",
                "suggestion": f"No opacity in zone {index}.",
                "internal": [],
                "neighbours": [],
            },
        )
        combined(
            report,
            index,
            [a, b],
            harm=("low", "medium", "high")[n % 3],
            confidence=0.5 + (n % 5) / 10,
        )
    for i in range(10):
        Report.objects.create(
            study=study, kind=Report.Kind.SAMPLE, text="FINDINGS: Clear.", sample_index=i
        )
    add_image(study)
    finish_pipeline(study)
    return study
