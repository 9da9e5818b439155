"""The two RadFlag stages of a study, as pure functions over plain data.

``sample``: draft the candidate (only when no report was uploaded) at a low temperature and
the n samples at a higher one, with the generator role — or the built-in retrieval generator
when the role is "builtin". ``radflag``: score every candidate sentence's support against the
samples with the entailment role, then flag sentences and the report. The stage layer passes
the models in (None: the role's built-in default).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workers.backends import ImageInput
from workers.backends.errors import StructuredOutputError
from workers.pipeline import Progress, StageError, no_progress, sentences_of
from workers.prompts import get_prompt
from workers.study import StudyContext

from .flags import DETECTOR, FlagOutcome, SentenceInfo, Thresholds, flag_report
from .support import SentenceSupport, SentenceToScore, score_support

NO_GENERATOR = ("No report generator is available: configure RADREVIEW_GENERATOR, upload a "
                "report, or upload the candidate and samples made elsewhere.")
BUILTIN_GENERATOR_MODULE = "workers.rarrg.generator"
#: Added to the built-in generator's own refusal (an empty image memory, ...).
ALTERNATIVES = "Or upload a report to audit, or the candidate and samples made elsewhere."


# --- sampling --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImageForSampling:
    path: str
    kind: str  # "dicom", "png" or "jpeg"
    view: str = ""


@dataclass(frozen=True)
class SampleInputs:
    images: tuple[ImageForSampling, ...]
    need_candidate: bool  # no report was uploaded: the candidate is drafted here
    n: int = 10
    temperature: float = 1.0
    candidate_temperature: float = 0.1
    max_tokens: int = 256
    index_dir: str = ""  # the image memory of the built-in retrieval generator


@dataclass(frozen=True)
class GeneratedReport:
    text: str
    temperature: float
    sample_index: int | None = None  # None for the candidate


@dataclass(frozen=True)
class SampleResult:
    source: str  # the generator's name, stored with every report
    candidate: GeneratedReport | None
    samples: tuple[GeneratedReport, ...]
    #: Why nothing was generated, when a report was uploaded and no generator is available.
    skipped: str = ""


def find_generator(generator, index_dir: str, image_encoder=None):
    """The generator role's backend, else the built-in retrieval generator (over the image
    memory, with the image encoder role).

    Raises StageError with a plain message when neither is available.
    """
    if generator is not None:
        return generator
    try:
        from workers.rarrg.generator import load_builtin_generator  # noqa: PLC0415 - optional workers.rarrg.generator
    except ModuleNotFoundError as exc:
        if exc.name not in (BUILTIN_GENERATOR_MODULE, "workers.rarrg"):
            raise
        raise StageError(NO_GENERATOR) from None
    return load_builtin_generator(Path(index_dir), encoder=image_encoder)


def read_images(images: tuple[ImageForSampling, ...]) -> list:
    from workers.imaging import read_dicom, read_raster  # noqa: PLC0415 - defer pydicom/scipy

    inputs = []
    for image in images:
        decoded = read_dicom(image.path) if image.kind == "dicom" else read_raster(image.path)
        inputs.append(ImageInput(decoded.pixels, image.view))
    return inputs


def sample(inputs: SampleInputs, progress: Progress = no_progress, *, generator=None,
           image_encoder=None) -> SampleResult:
    """The candidate (when needed) and the n samples, each with its temperature."""

    if not inputs.images:
        raise StageError("This study has no images to draft reports from.")
    try:
        generator = find_generator(generator, inputs.index_dir, image_encoder)
    except StageError as exc:
        if inputs.need_candidate:
            if exc.message == NO_GENERATOR:
                raise
            raise StageError(f"{exc.message} {ALTERNATIVES}") from exc
        # A report was uploaded: the study is audited without RadFlag, and the page says why.
        progress(1.0, "RadFlag skipped: no generator")
        return SampleResult("", None, (), skipped=f"RadFlag skipped: {exc.message}")
    name = getattr(generator, "name", "") or "generator"
    images = read_images(inputs.images)
    progress(0.1, f"{len(images)} image{'s' if len(images) != 1 else ''} read; {name} ready")
    prompt = get_prompt("report_generation").text()
    candidate = None
    if inputs.need_candidate:
        texts = generator.generate(images, prompt, temperature=inputs.candidate_temperature, n=1,
                                   max_tokens=inputs.max_tokens)
        if not texts or not texts[0].strip():
            raise StageError(f"The generator {name} returned an empty candidate report.")
        candidate = GeneratedReport(texts[0].strip(), inputs.candidate_temperature)
        progress(0.3, "candidate drafted")
    texts = generator.generate(images, prompt, temperature=inputs.temperature, n=inputs.n,
                               max_tokens=inputs.max_tokens)
    if len(texts) != inputs.n:
        raise StageError(f"The generator {name} returned {len(texts)} samples; "
                         f"{inputs.n} were asked for.")
    samples = tuple(GeneratedReport(text.strip(), inputs.temperature, number)
                    for number, text in enumerate(texts))
    progress(1.0, f"{inputs.n} samples at temperature {inputs.temperature:g}")
    return SampleResult(name, candidate, samples)


# --- support and flags -----------------------------------------------------------------------


@dataclass(frozen=True)
class RadFlagInputs:
    sentences: tuple[SentenceInfo, ...]
    samples: tuple[str, ...]
    thresholds: Thresholds


@dataclass(frozen=True)
class RadFlagResult:
    supports: list[SentenceSupport]
    outcome: FlagOutcome | None
    thresholds: Thresholds
    n_samples: int
    skipped: str = ""

    @property
    def detections(self) -> list:
        return self.outcome.detections if self.outcome is not None else []


def inputs_of(ctx: StudyContext) -> RadFlagInputs:
    """RadFlag's inputs from a study context: the report's sentences as the parse stage
    stores them, the context's samples and the thresholds of its RadFlag settings (the
    active calibration's or the site's defaults, which the stage layer knows)."""
    sentences = tuple(SentenceInfo(s.index, s.text, s.start, s.end, s.section, s.category,
                                   tuple(s.findings))
                      for s in sentences_of(ctx.parsed, ctx.findings))
    return RadFlagInputs(sentences, ctx.samples, ctx.settings_of(DETECTOR)["thresholds"])


def radflag(inputs: RadFlagInputs, progress: Progress = no_progress, *,
            llm=None) -> RadFlagResult:
    """Support of every candidate sentence, its flag, the report flag and the detections,
    with the llm role as the entailment function (None: the built-in rules)."""

    if not inputs.samples:
        progress(1.0, "no samples: nothing to score")
        return RadFlagResult([], None, inputs.thresholds, 0,
                             skipped="RadFlag skipped: the study has no samples.")
    if len(inputs.samples) < 2:
        raise StageError("RadFlag needs at least 2 samples; this study has 1.")
    model = llm
    to_score = [SentenceToScore(s.index, s.text, s.section) for s in inputs.sentences]
    try:
        supports = score_support(to_score, inputs.samples, model=model, progress=progress)
    except StructuredOutputError as exc:
        raise StageError(
            f"RadFlag support: the language model {exc.model} twice gave an unusable verdict "
            f"list ({'; then '.join(exc.errors)}); nothing was stored. Task: {exc.task}."
        ) from exc
    provenance = {}
    if model is not None:

        provenance = {"prompt_version": get_prompt("radflag_support").version, "model": model.name}
    outcome = flag_report(inputs.sentences, supports, inputs.thresholds, **provenance)
    return RadFlagResult(supports, outcome, inputs.thresholds, len(inputs.samples))
