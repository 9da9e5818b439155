"""The stages of one study, in order, as pure functions over plain data.

A stage takes a dataclass of inputs and a progress callback and returns a dataclass of results;
it never touches the database. ``radreview.jobs`` loads the inputs, runs the stage in a Celery
worker and stores the results in one transaction.

The method packages are imported inside the stage functions: the web process imports this
module to plan stages and should not pay for loading spaCy, torch or FAISS.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol


class Progress(Protocol):
    def __call__(self, fraction: float, note: str = "") -> None: ...


def no_progress(fraction: float, note: str = "") -> None:
    """A progress callback for callers that do not report progress."""


class StageError(Exception):
    """A stage cannot do its work; ``message`` says why, for the study page."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class StudyInputs:
    """What was uploaded: enough to decide which stages a study needs.

    ``has_samples``: the candidate report and its samples were made by a generator outside
    RadReview and uploaded with the study, so nothing is generated here.
    """

    has_images: bool
    has_report: bool
    has_samples: bool = False

    @property
    def will_have_report(self) -> bool:
        return self.has_report or self.has_samples or self.has_images


# Backends that run model weights in the worker process: stages using them go to "gpu" workers.
LOCAL_MODEL_KINDS = frozenset({"transformers", "open_clip", "radgraph"})


def queue_for(roles: tuple[str, ...]) -> str:
    """"gpu" when any of these model roles is served by local weights, else "cpu"."""
    from workers.backends.registry import spec_for

    return "gpu" if any(spec_for(role).kind in LOCAL_MODEL_KINDS for role in roles) else "cpu"


@dataclass(frozen=True)
class StageInfo:
    name: str
    roles: tuple[str, ...]  # the model roles the stage uses; they decide its queue
    applies: Callable[[StudyInputs], bool]
    description: str

    @property
    def queue(self) -> str:
        return queue_for(self.roles)


# The order of a study's stages. Generation comes before parsing (a drafted report is parsed
# like an uploaded one); detectors come after parsing; the system combination comes last.
STAGES: tuple[StageInfo, ...] = (
    StageInfo("ingest", (), lambda s: s.has_images, "Decode images and make previews"),
    StageInfo("sample", ("generator",), lambda s: s.has_images and not s.has_samples,
              "RadFlag: draft the candidate (when no report was uploaded) and the n samples"),
    StageInfo("parse_report", (), lambda s: s.will_have_report,
              "Split the report into sentences; find each sentence's findings"),
    StageInfo("radflag", ("llm",), lambda s: s.has_samples or s.has_images,
              "RadFlag: each sentence's support among the samples; sentence and report flags"),
    StageInfo("audit", ("llm", "text_embedder", "extractor"), lambda s: s.will_have_report,
              "Audit the report's text: three-stage correction, consistency judge, comparisons"),
    StageInfo("vrag", ("image_encoder", "generator", "llm", "extractor"), lambda s: s.has_images,
              "V-RAG: probe the report's findings against the most similar reference images"),
    StageInfo("rarrg", ("image_encoder", "text_embedder", "llm"), lambda s: s.has_images,
              "RA-RRG: key phrases of similar reference images; a draft; unsupported sentences"),
    StageInfo("combine", ("text_embedder",), lambda s: s.will_have_report,
              "Combine every detector's detections into the flags the radiologist reviews"),
)
STAGE_BY_NAME = {stage.name: stage for stage in STAGES}


def plan(inputs: StudyInputs) -> list[StageInfo]:
    """The stages a study goes through, in order."""
    return [stage for stage in STAGES if stage.applies(inputs)]


# --- ingest --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImageToIngest:
    image_id: int
    kind: str  # "dicom", "png" or "jpeg"
    path: str


@dataclass(frozen=True)
class IngestedImage:
    image_id: int
    preview_png: bytes
    thumbnail_png: bytes


def ingest(images: list[ImageToIngest], progress: Progress = no_progress) -> list[IngestedImage]:
    """Decode every image through the display pipeline and render its preview and thumbnail."""
    from workers.imaging import encode_png, read_dicom, read_raster, thumbnail

    results = []
    for done, image in enumerate(images):
        decoded = read_dicom(image.path) if image.kind == "dicom" else read_raster(image.path)
        results.append(IngestedImage(
            image_id=image.image_id,
            preview_png=encode_png(decoded.pixels),
            thumbnail_png=thumbnail(decoded.pixels),
        ))
        progress((done + 1) / len(images), f"{done + 1} of {len(images)} images")
    return results


# --- report parsing ------------------------------------------------------------------------


FINDING_FIELDS = ("observation", "status", "laterality", "severity", "location", "comparison", "text")


@dataclass(frozen=True)
class ParsedSentence:
    index: int
    text: str
    start: int
    end: int
    section: str
    category: str = ""
    findings: list[dict] = field(default_factory=list)


def parse_report(text: str, progress: Progress = no_progress) -> list[ParsedSentence]:
    """Split a report into sentences with their spans and sections, and find what each states."""
    from workers import nlp

    parsed = nlp.parse_report(text)
    findings = nlp.findings_by_sentence(parsed)
    categories = nlp.sentence_categories(parsed)
    progress(1.0, f"{len(parsed.sentences)} sentences")
    return [
        ParsedSentence(
            s.index, s.text, s.start, s.end, s.section, category=categories[s.index],
            findings=[
                {**{name: getattr(f, name) for name in FINDING_FIELDS}, "harm": f.harm.value}
                for f in findings[s.index]
            ],
        )
        for s in parsed.sentences
    ]
