"""RadFlag thresholds by conformal risk control (CRC), in pure Python.

The selection is exactly docs/design.md's (method 1):

* a calibration sentence is *factual* when its ground truth completely entails it;
* its loss at threshold λ is 1[E < λ]·1[factual] (a true sentence flagged);
* L̂(λ) is the mean loss over the c calibration sentences;
* λ1 is the **largest** λ in {0, …, n+1} with (c/(c+1))·L̂(λ) + 1/(c+1) ≤ α (bound B = 1).
  λ = 0 flags nothing and λ = n+1 flags every sentence. When even λ = 0 misses the bound
  (1/(c+1) > α: fewer than 1/α − 1 sentences), no threshold is certified and λ1 = 0 —
  nothing is flagged, which is the only choice that cannot flag a true sentence.

The adjusted risk (c/(c+1))·L̂(λ) + 1/(c+1) equals (Σ loss + 1)/(c + 1); it is computed in exact
rational arithmetic with α read as the decimal it is written as, so a bound that equals α
exactly (a tie) meets it.

λ2 flags a target share of the calibration reports: with λ1 in force, each report has k
flagged sentences, and λ2 is the smallest λ2 ≥ 1 whose share of reports with k ≥ λ2 is at
most the target — as many reports as the target allows, never more. Per-category λ1 runs the
same selection within each category (workers.nlp.category_of: Devices, Pleura,
Cardiomediastinal, Musculoskeletal, Lungs, Other), with c the category's sentence count.

Input files (JSON lines), read by ``read_lines``; any problem raises ``CalibrationInputError``
naming the line:

* raw: ``{"id", "candidate": text, "samples": [text, ...], "ground_truth": text}`` — the
  candidate's image-section sentences are scored against the samples (support) and against
  the ground truth (factual = complete) by the entailment role;
* pre-scored: ``{"id", "n_samples": n, "sentences": [{"text", "support": int, "factual":
  bool, "category": str?}]}``.

Every line must have the same number of samples n.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from workers import nlp
from workers.errors import WorkerError
from workers.jsonl import JsonlError, parse_record
from workers.nlp import category_of
from workers.pipeline import Progress, no_progress

from . import risk
from .flags import exact
from .support import COMPLETE, SCORED_SECTIONS, SUPPORTING, judge_sentences

CATEGORIES = ("Devices", "Pleura", "Cardiomediastinal", "Musculoskeletal", "Lungs", "Other")
_CATEGORY_NAMES = {name.lower(): name for name in CATEGORIES}
#: λ2 values the calibration page tabulates.
LAMBDA2_TABLE = (1, 2, 3, 4, 5)


class CalibrationInputError(WorkerError, ValueError):
    """A calibration file or setting we cannot use; ``message`` names the line when there is one."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class CalibrationSentence:
    text: str
    support: int
    factual: bool
    category: str | None = None


@dataclass(frozen=True)
class CalibrationReport:
    id: str
    n_samples: int
    sentences: tuple[CalibrationSentence, ...]
    line: int = 0


@dataclass(frozen=True)
class RawReport:
    id: str
    candidate: str
    samples: tuple[str, ...]
    ground_truth: str
    line: int = 0

    @property
    def n_samples(self) -> int:
        return len(self.samples)


# --- reading files ---------------------------------------------------------------------------


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _category(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in _CATEGORY_NAMES:
        return _CATEGORY_NAMES[value.strip().lower()]
    raise ValueError(f"{where}: category {value!r} is not one of {', '.join(CATEGORIES)}")


def _pre_scored(record: dict, rid: str, line: int) -> CalibrationReport:
    n = record.get("n_samples")
    if n is None:
        raise ValueError("missing 'n_samples'")
    if not _whole(n) or n < 1:
        raise ValueError(f"'n_samples' must be a whole number of at least 1, got {n!r}")
    sentences = record.get("sentences")
    if not isinstance(sentences, list):
        raise ValueError("'sentences' must be a list")
    if not sentences:
        raise ValueError("no sentences")
    parsed = []
    for number, sentence in enumerate(sentences, start=1):
        where = f"sentence {number}"
        if not isinstance(sentence, dict):
            raise ValueError(f"{where}: expected an object with text, support and factual")
        for name in ("text", "support", "factual"):
            if name not in sentence:
                raise ValueError(f"{where}: missing {name!r}")
        if not isinstance(sentence["text"], str):
            raise ValueError(f"{where}: 'text' must be a string")
        support = sentence["support"]
        if not _whole(support):
            raise ValueError(f"{where}: 'support' must be a whole number, got {support!r}")
        if not 0 <= support <= n:
            raise ValueError(f"{where}: support {support} is outside 0..{n} (n_samples is {n})")
        if not isinstance(sentence["factual"], bool):
            raise ValueError(f"{where}: 'factual' must be true or false, "
                             f"got {sentence['factual']!r}")
        parsed.append(CalibrationSentence(sentence["text"], support, sentence["factual"],
                                          _category(sentence.get("category"), where)))
    return CalibrationReport(rid, n, tuple(parsed), line)


def _raw(record: dict, rid: str, line: int) -> RawReport:
    for name in ("candidate", "samples", "ground_truth"):
        if name not in record:
            raise ValueError(f"missing {name!r}")
    if not _text(record["candidate"]):
        raise ValueError("'candidate' must be a non-empty report text")
    if not _text(record["ground_truth"]):
        raise ValueError("'ground_truth' must be a non-empty report text")
    samples = record["samples"]
    if not isinstance(samples, list) or not samples:
        raise ValueError("'samples' must be a non-empty list of report texts")
    for number, sample in enumerate(samples, start=1):
        if not _text(sample):
            raise ValueError(f"sample {number} is empty or not a text")
    return RawReport(rid, record["candidate"], tuple(samples), record["ground_truth"], line)


def read_lines(lines: Iterable[str | bytes], *, source: str = "input"
               ) -> list[CalibrationReport | RawReport]:
    """Parse and check a calibration file's lines (blank lines are skipped)."""
    records: list[CalibrationReport | RawReport] = []
    first_n: tuple[int, int] | None = None
    seen: dict[str, int] = {}
    for line, raw_line in enumerate(lines, start=1):
        text = raw_line.decode("utf-8-sig") if isinstance(raw_line, bytes) else raw_line
        if line == 1:
            text = text.lstrip("\ufeff")
        if not text.strip():
            continue
        where = f"{source}:{line}"
        try:
            record = parse_record(text, where)
        except JsonlError as exc:
            raise CalibrationInputError(str(exc), line) from None
        rid = record.get("id")
        if rid is None:
            raise CalibrationInputError(f"{where}: missing 'id'", line)
        if not (_whole(rid) or isinstance(rid, str)):
            raise CalibrationInputError(f"{where}: 'id' must be a string or a number", line)
        rid = str(rid)
        if rid in seen:
            raise CalibrationInputError(f"{where}: id {rid!r} repeats line {seen[rid]}", line)
        try:
            if "sentences" in record or "n_samples" in record:
                parsed: CalibrationReport | RawReport = _pre_scored(record, rid, line)
            elif any(name in record for name in ("candidate", "samples", "ground_truth")):
                parsed = _raw(record, rid, line)
            else:
                raise ValueError("expected 'n_samples' and 'sentences' (pre-scored) or "
                                 "'candidate', 'samples' and 'ground_truth' (raw)")
        except ValueError as exc:
            raise CalibrationInputError(f"{where}: {exc}", line) from None
        if first_n is None:
            first_n = (parsed.n_samples, line)
        elif parsed.n_samples != first_n[0]:
            raise CalibrationInputError(
                f"{where}: {parsed.n_samples} samples, but line {first_n[1]} has {first_n[0]}; "
                "every report of a calibration file must have the same number of samples", line)
        seen[rid] = line
        records.append(parsed)
    if not records:
        raise CalibrationInputError(f"{source}: no calibration reports (the file is empty)")
    return records


def read_file(path: str | Path) -> list[CalibrationReport | RawReport]:
    path = Path(path)
    with path.open("rb") as handle:
        return read_lines(handle, source=path.name)


# --- scoring raw reports ---------------------------------------------------------------------


def score_raw(record: RawReport, *, model=None) -> CalibrationReport:
    """Support against the samples and factuality against the ground truth, by the entailment
    role (the built-in engine when ``model`` is None), for the candidate's scored sentences."""

    parsed = nlp.parse_report(record.candidate)
    categories = nlp.sentence_categories(parsed)
    sentences = [s for s in parsed.sentences if s.section in SCORED_SECTIONS]
    if not sentences:
        raise CalibrationInputError(
            f"line {record.line}: the candidate has no findings or impression sentences to score",
            record.line)
    texts = [s.text for s in sentences]
    supports = judge_sentences(texts, record.samples, model=model)
    truths = judge_sentences(texts, [record.ground_truth], model=model)
    return CalibrationReport(record.id, record.n_samples, tuple(
        CalibrationSentence(sentence.text, sum(v.verdict in SUPPORTING for v in verdicts),
                            truth[0].verdict == COMPLETE, categories[sentence.index])
        for sentence, verdicts, truth in zip(sentences, supports, truths)
    ), record.line)


def prepare(records: Sequence[CalibrationReport | RawReport], *, model=None,
            categorise: bool = False, progress: Progress = no_progress) -> list[CalibrationReport]:
    """Scored reports: raw ones scored; with ``categorise``, missing categories filled in by
    ``workers.nlp.category_of``."""
    reports = []
    for done, record in enumerate(records):
        report = score_raw(record, model=model) if isinstance(record, RawReport) else record
        if categorise and any(s.category is None for s in report.sentences):

            report = CalibrationReport(report.id, report.n_samples, tuple(
                s if s.category else CalibrationSentence(s.text, s.support, s.factual,
                                                         category_of(s.text))
                for s in report.sentences), report.line)
        reports.append(report)
        progress((done + 1) / len(records), f"{done + 1} of {len(records)} reports")
    return reports


# --- the selection ---------------------------------------------------------------------------


def check_alpha(alpha: Any) -> Fraction:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, Fraction, str)):
        raise CalibrationInputError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    try:
        value = exact(alpha)
    except (ValueError, ZeroDivisionError):
        raise CalibrationInputError(
            f"alpha must be a number between 0 and 1, got {alpha!r}") from None
    if not 0 < value < 1:
        raise CalibrationInputError(f"alpha must be strictly between 0 and 1, got {alpha}")
    return value


def check_target_rate(rate: Any) -> Fraction | None:
    if rate is None:
        return None
    try:
        value = exact(rate)
    except (TypeError, ValueError, ZeroDivisionError):
        raise CalibrationInputError(
            f"the target report rate must be a number between 0 and 1, got {rate!r}") from None
    if not 0 <= value <= 1:
        raise CalibrationInputError(f"the target report rate must be between 0 and 1, got {rate}")
    return value


def loss_sum(supports: Sequence[int], factual: Sequence[bool], lam: int) -> int:
    """Σ 1[E < λ]·1[factual]: true sentences that λ flags."""
    return sum(1 for e, f in zip(supports, factual) if f and e < lam)


def empirical_risk(supports: Sequence[int], factual: Sequence[bool], lam: int) -> Fraction:
    """L̂(λ), the mean loss over the sentences."""
    return Fraction(loss_sum(supports, factual, lam), len(supports))


def adjusted_risk(supports: Sequence[int], factual: Sequence[bool], lam: int) -> Fraction:
    """(c/(c+1))·L̂(λ) + 1/(c+1)."""
    c = len(supports)
    return Fraction(c, c + 1) * empirical_risk(supports, factual, lam) + Fraction(1, c + 1)


def select_lambda1(supports: Sequence[int], factual: Sequence[bool], n: int, alpha) -> int:
    """The largest λ in {0, …, n+1} whose adjusted risk is at most α; 0 when none is."""
    if len(supports) != len(factual):
        raise ValueError("supports and factual flags differ in length")
    if not supports:
        raise CalibrationInputError("no calibration sentences")
    bound = check_alpha(alpha)
    feasible = [lam for lam in range(n + 2) if adjusted_risk(supports, factual, lam) <= bound]
    return max(feasible, default=0)


def select_lambda2(flag_counts: Sequence[int], target_rate) -> int:
    """The smallest λ2 ≥ 1 that flags at most ``target_rate`` of the reports (k ≥ λ2)."""
    if not flag_counts:
        raise CalibrationInputError("no calibration reports")
    target = check_target_rate(target_rate)
    if target is None:
        raise CalibrationInputError("a target report rate is needed to choose λ2")
    for lambda2 in range(1, max(flag_counts) + 2):
        if Fraction(sum(1 for k in flag_counts if k >= lambda2), len(flag_counts)) <= target:
            return lambda2
    raise AssertionError("unreachable: λ2 = max + 1 flags no report")


def lambda2_rows(flag_counts: Sequence[int], values: Iterable[int] = LAMBDA2_TABLE) -> list[dict]:
    """For each λ2: reports flagged, their share, mean flagged sentences per flagged report."""
    rows = []
    for lambda2 in values:
        flagged = [k for k in flag_counts if k >= lambda2]
        rows.append({
            "lambda2": lambda2, "reports_flagged": len(flagged),
            "share": len(flagged) / len(flag_counts) if flag_counts else 0.0,
            "mean_flagged_sentences": sum(flagged) / len(flagged) if flagged else None,
        })
    return rows


@dataclass
class CalibrationResult:
    lambda1: int
    lambda1_by_category: dict[str, int]
    lambda2: int | None
    alpha: float
    target_report_rate: float | None
    per_category: bool
    n_samples: int
    n_reports: int
    n_sentences: int
    n_factual: int
    risk_at_lambda1: float
    adjusted_risk_at_lambda1: float
    sentence_flag_rate: float
    report_flag_rate: float | None
    category_sentences: dict[str, int] = field(default_factory=dict)
    #: one row per λ in 0..n+1 (λ as the overall λ1): risk, adjusted risk, flag rates.
    curve: list[dict] = field(default_factory=list)
    #: the λ2 used for the curve's report flag rate (λ2, or 1 when none was chosen).
    curve_lambda2: int = 1
    lambda2_table: list[dict] = field(default_factory=list)
    #: risk.figures() for the overall λ1 and (per category) the thresholds in force.
    threshold_sets: list[dict] = field(default_factory=list)
    #: risk.figures() within each category at its own λ1.
    category_figures: list[dict] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The command's output JSON."""
        return {
            "lambda1": self.lambda1, "lambda1_by_category": dict(self.lambda1_by_category),
            "lambda2": self.lambda2, "alpha": self.alpha, "n_sentences": self.n_sentences,
            "risk_at_lambda1": self.risk_at_lambda1,
            "sentence_flag_rate": self.sentence_flag_rate,
            "report_flag_rate": self.report_flag_rate,
            "adjusted_risk_at_lambda1": self.adjusted_risk_at_lambda1,
            "true_flag_rate_at_lambda1": next(
                (s["true_flag_rate"] for s in self.threshold_sets if s["in_force"]), None),
            "target_report_rate": self.target_report_rate, "per_category": self.per_category,
            "n_samples": self.n_samples, "n_reports": self.n_reports, "n_factual": self.n_factual,
            "category_sentences": dict(self.category_sentences),
        }

    def as_dict(self) -> dict[str, Any]:
        """Everything, for storing with a calibration."""
        return {**self.summary(), "curve": self.curve, "curve_lambda2": self.curve_lambda2,
                "lambda2_table": self.lambda2_table, "threshold_sets": self.threshold_sets,
                "category_figures": self.category_figures}


def calibrate(reports: Sequence[CalibrationReport], *, alpha, per_category: bool = False,
              target_report_rate=None) -> CalibrationResult:
    """λ1 (overall, and per category when asked), λ2 and the figures the page plots."""
    bound = check_alpha(alpha)
    target = check_target_rate(target_report_rate)
    if not reports:
        raise CalibrationInputError("no calibration reports")
    n = reports[0].n_samples
    if any(r.n_samples != n for r in reports):
        raise CalibrationInputError("every calibration report must have the same number of samples")
    sentences = [s for r in reports for s in r.sentences]
    if not sentences:
        raise CalibrationInputError("no calibration sentences")
    supports = [s.support for s in sentences]
    factual = [s.factual for s in sentences]
    lambda1 = select_lambda1(supports, factual, n, bound)

    by_category: dict[str, int] = {}
    sizes: dict[str, int] = {}
    if per_category:
        if any(s.category is None for s in sentences):
            raise CalibrationInputError("per-category calibration needs every sentence's category")
        for category in CATEGORIES:
            members = [s for s in sentences if s.category == category]
            if members:
                sizes[category] = len(members)
                by_category[category] = select_lambda1(
                    [s.support for s in members], [s.factual for s in members], n, bound)

    def threshold(sentence: CalibrationSentence) -> int:
        return by_category.get(sentence.category, lambda1) if per_category else lambda1

    in_force = [threshold(s) for s in sentences]
    losses = sum(1 for s, lam in zip(sentences, in_force) if s.factual and s.support < lam)
    c = len(sentences)
    counts = [sum(1 for s in r.sentences if s.support < threshold(s)) for r in reports]
    lambda2 = select_lambda2(counts, target) if target is not None else None
    curve_lambda2 = lambda2 or 1
    curve = []
    for lam in range(n + 2):
        lam_counts = [sum(1 for s in r.sentences if s.support < lam) for r in reports]
        curve.append({
            "lambda": lam,
            "risk": float(empirical_risk(supports, factual, lam)),
            "adjusted_risk": float(adjusted_risk(supports, factual, lam)),
            "sentence_flag_rate": sum(1 for e in supports if e < lam) / c,
            "report_flag_rate": sum(1 for k in lam_counts if k >= curve_lambda2) / len(reports),
            "true_flag_rate": (loss_sum(supports, factual, lam) / sum(factual)
                               if any(factual) else None),
        })
    # One set of figures per threshold set (risk.py): the overall λ1, and the per-category λ1
    # that is in force when there is one; never one set's risk beside another set's rates.
    overall = {"name": "overall", "lambda1": lambda1, "in_force": not per_category,
               **risk.figures(sentences, lambda s: lambda1, reports=reports,
                              lambda2=curve_lambda2)}
    threshold_sets = [overall]
    if per_category:
        threshold_sets.append({
            "name": "per_category", "lambda1_by_category": dict(by_category), "in_force": True,
            **risk.figures(sentences, threshold, reports=reports, lambda2=curve_lambda2)})
    category_figures = [
        {"category": name, "lambda1": value,
         **risk.figures([s for s in sentences if s.category == name], lambda s, v=value: v)}
        for name, value in by_category.items()]
    return CalibrationResult(
        lambda1=lambda1, lambda1_by_category=by_category, lambda2=lambda2, alpha=float(bound),
        target_report_rate=float(target) if target is not None else None,
        per_category=per_category, n_samples=n, n_reports=len(reports), n_sentences=c,
        n_factual=sum(factual),
        risk_at_lambda1=float(Fraction(losses, c)),
        adjusted_risk_at_lambda1=float(Fraction(losses + 1, c + 1)),
        sentence_flag_rate=sum(1 for s, lam in zip(sentences, in_force) if s.support < lam) / c,
        report_flag_rate=(sum(1 for k in counts if k >= lambda2) / len(reports)
                          if lambda2 is not None else None),
        category_sentences=sizes, curve=curve, curve_lambda2=curve_lambda2,
        lambda2_table=lambda2_rows(counts), threshold_sets=threshold_sets,
        category_figures=category_figures,
    )


def calibrate_lines(lines: Iterable[str | bytes], *, alpha, per_category: bool = False,
                    target_report_rate=None, model=None, source: str = "input",
                    progress: Progress = no_progress) -> CalibrationResult:
    """Read, score and calibrate in one call (the command and the site job)."""
    check_alpha(alpha)
    check_target_rate(target_report_rate)
    records = read_lines(lines, source=source)
    reports = prepare(records, model=model, categorise=per_category, progress=progress)
    return calibrate(reports, alpha=alpha, per_category=per_category,
                     target_report_rate=target_report_rate)
