"""Building calibrations, studies with samples, and running a study's stages in this process."""
from __future__ import annotations

import json

from radreview.calibration import services
from radreview.jobs import runner
from radreview.jobs.models import Job
from radreview.studies.models import Study
from radreview.studies.services.upload import UploadRequest, create_studies
from workers.radflag.calibration import CalibrationReport, CalibrationSentence, calibrate

CANDIDATE = (
    "FINDINGS: Heart size is normal. There is a large right pleural effusion. No pneumothorax. "
    "Left lower lobe consolidation.\n"
    "IMPRESSION: Right pleural effusion and left lower lobe consolidation."
)
SAMPLES = ["FINDINGS: Heart size is normal. Small right pleural effusion. No pneumothorax."] * 2 + [
    "FINDINGS: Heart size is normal. The lungs are clear. No effusion or pneumothorax."
] * 8


def pre_scored_lines(n: int = 10, reports: int = 12) -> list[str]:
    """A pre-scored calibration file: true sentences well supported, false ones weakly."""
    lines = []
    for r in range(reports):
        sentences = [{"text": f"True finding {i}.", "support": 6 + (r + i) % 5, "factual": True,
                      "category": "Lungs" if i % 2 else "Pleura"} for i in range(4)]
        sentences += [
            {
                "text": f"Made up finding {r}.",
                "support": r % 3,
                "factual": False,
                "category": "Lungs",
            }
        ]
        lines.append(json.dumps({"id": f"cal-{r}", "n_samples": n, "sentences": sentences}))
    return lines


def make_calibration(*, alpha=0.2, target=0.5, n=10, per_category=False, actor=None):
    reports = [
        CalibrationReport(
            f"r{i}",
            n,
            tuple(
                [CalibrationSentence("true", 8, True, "Pleura")] * 4
                + [CalibrationSentence("false", 0, False, "Lungs")]
            ),
        )
        for i in range(10)
    ]
    result = calibrate(reports, alpha=alpha, target_report_rate=target, per_category=per_category)
    return services.create_calibration(result, file_name="cal.jsonl", sha256="0" * 64, actor=actor)


def upload_with_samples(user, candidate=CANDIDATE, samples=SAMPLES) -> Study:
    (study,) = create_studies(
        user=user, request=UploadRequest(candidate_text=candidate, samples=list(samples))
    )
    return study


def run_stages(study: Study, *, through: str | None = None) -> Study:
    """What the workers do: run each queued job of the study, in order, until none is left (or
    up to and including the stage ``through``)."""
    for _ in range(20):
        job = study.jobs.filter(state=Job.State.QUEUED).order_by("order").first()
        if job is None:
            break
        runner.run_job(job.pk)
        if job.stage == through:
            break
    study.refresh_from_db()
    return study


def run_radflag_only(study: Study) -> Study:
    """Run the stages up to RadFlag, then mark the other detectors' stages done without running
    them, so a test sees RadFlag's own flags (no combined rows) on a reviewable study."""
    run_stages(study, through="radflag")
    assert study.jobs.get(stage="radflag").state == Job.State.DONE
    study.jobs.exclude(state=Job.State.DONE).update(state=Job.State.DONE, progress=1.0)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.READY)
    study.refresh_from_db()
    return study
