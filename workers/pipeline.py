"""What the stages of a study share, and the stage bodies that belong to no method package.

A stage computes on a dataclass of inputs with the models of its roles (``RoleModels``) and a
progress callback and returns a dataclass of results; it never touches the database.
The Django apps declare the stages (registered in ``radreview.jobs.stages``, which orders a
study's), load the inputs and store the results; the runner runs a stage in a Celery worker
and stores its results in one transaction.

The method packages are imported inside the stage functions: the web process imports this
module (StudyInputs, queue_for) and should not pay for loading spaCy, torch or FAISS.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from workers import nlp
from workers.backends import registry
from workers.errors import WorkerError


class Progress(Protocol):
    def __call__(self, fraction: float, note: str = "") -> None: ...


def no_progress(fraction: float, note: str = "") -> None:
    """A progress callback for callers that do not report progress."""


class StageError(WorkerError):
    """A stage cannot do its work; ``message`` says why, for the study page."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class StudyInputs:
    """What was uploaded: enough to decide which stages a study needs.

    ``has_samples``: the candidate report and its samples were made by a generator outside
    RadReview and uploaded with the study, so nothing is generated here.
    ``can_draft``: a report can be drafted from the images here (a generator is set up, or the
    image memory has reference studies); without one, images alone wait for their report.
    """

    has_images: bool
    has_report: bool
    has_samples: bool = False
    can_draft: bool = True

    @property
    def will_have_report(self) -> bool:
        return self.has_report or self.has_samples or (self.has_images and self.can_draft)

    @property
    def awaits_report(self) -> bool:
        return self.has_images and not self.will_have_report


# Backends that run model weights in the worker process: stages using them go to "gpu" workers.
LOCAL_MODEL_KINDS = frozenset({"transformers", "open_clip", "radgraph"})


def queue_for(roles: tuple[str, ...]) -> str:
    """"gpu" when any of these model roles is served by local weights, else "cpu"."""
    local = any(registry.spec_for(role).kind in LOCAL_MODEL_KINDS for role in roles)
    return "gpu" if local else "cpu"


class RoleModels(Mapping):
    """The models of a stage's roles, each loaded from the backend registry on first use, so
    a stage that does not reach a role (a skipped path, a built-in fallback) loads nothing.
    A role the stage did not declare is a programming error, not a silent built-in default."""

    def __init__(self, roles: tuple[str, ...]):
        self._roles = tuple(roles)
        self._models: dict[str, Any] = {}

    def __getitem__(self, role: str) -> Any:
        if role not in self._roles:
            raise StageError(f"the model role {role!r} was not declared by this stage "
                             f"(declared: {', '.join(self._roles) or 'none'})")
        if role not in self._models:
            self._models[role] = getattr(registry, role)()  # llm(), generator(), ...
        return self._models[role]

    def __iter__(self):
        return iter(self._roles)

    def __len__(self) -> int:
        return len(self._roles)


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
    from workers.imaging import encode_png, read_dicom, read_raster, thumbnail  # noqa: PLC0415 - defer pydicom/scipy

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


FINDING_FIELDS = (
    "observation",
    "status",
    "laterality",
    "severity",
    "location",
    "comparison",
    "text",
)


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

    parsed = nlp.parse_report(text)
    progress(1.0, f"{len(parsed.sentences)} sentences")
    return sentences_of(parsed, nlp.findings_by_sentence(parsed))


def sentences_of(parsed: nlp.ParsedReport, findings: dict[int, list[nlp.Finding]]
                 ) -> list[ParsedSentence]:
    """The sentences of a parsed report with their category and their findings as stored."""
    categories = nlp.sentence_categories(parsed)
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
