"""Reads of the review: which detections are flags, what each sentence says now, the final text.

``review_state(study)`` builds everything the review page and the API show from a study loaded
by ``radreview.studies.selectors.study_with_everything`` (a fixed number of queries, whatever
the number of sentences and flags). The worklist annotations count open flags in SQL.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
    Window,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce, RowNumber

from radreview.studies.models import Report, Sentence, Study, audited_among
from workers import types
from workers.detectors import DETECTORS, GENERIC_TEMPLATE, builtin
from workers.types import Harm

from . import derivation, report_cache
from . import state as state_table
from .confidence import Figures, figures_of, removed_notes
from .diff import word_diff
from .labels import label_of
from .models import Decision, Detection, SignOff

AUDITED_KINDS = (Report.Kind.UPLOADED, Report.Kind.CANDIDATE)
DECIDING_ACTIONS = (Decision.Action.ACCEPT, Decision.Action.REJECT, Decision.Action.EDIT)
# Studies whose pipeline has finished: the only ones a radiologist decides on and signs.
REVIEWABLE_STATUSES = (Study.Status.READY, Study.Status.SIGNED)
# The review page shows the latest decisions of the study and of each sentence, not all: its
# cost must not grow with the history (the API and the audit trail have every decision).
HISTORY_SHOWN = 20
SENTENCE_HISTORY_SHOWN = 5
# A sentence's state after its effective decision.
STATES = {
    Decision.Action.ACCEPT: "accepted",
    Decision.Action.REJECT: "rejected",
    Decision.Action.EDIT: "edited",
}

JUDGE_RULES = {
    "contradiction": "Contradicts another sentence",
    "laterality": "Laterality conflict",
    "impression_vs_findings": "Impression disagrees with the findings",
    "out_of_domain": "Not something a chest radiograph shows",
    "unsupported_by_library": "Unsupported by similar reference reports",
    "llm": "Language-model judge",
}


# --- which detections are flags --------------------------------------------------------------


def flags_of(detections: list[Detection]) -> list[Detection]:
    """The detections shown as flags (docs/detections.md): the flagged combined rows, or the
    flagged raw rows when the report has no combined rows at all."""
    combined = [d for d in detections if d.detector == Detection.COMBINED]
    pool = combined if combined else detections
    return [d for d in pool if d.flagged]


def suggestion_of(detection: Detection) -> str | None:
    """A flag's proposal: its own, else its most confident source's (combined rows)."""
    if detection.suggestion is not None:
        return detection.suggestion
    if detection.detector == Detection.COMBINED:
        for source in sorted(detection.sources.all(), key=lambda d: (-d.confidence, d.id)):
            if source.suggestion is not None:
                return source.suggestion
    return None


def direction_of(primary: Detection, members: list[Detection], suggestion: str | None,
                 texts: dict[int, str]) -> tuple[str, list[dict[str, Any]]]:
    """Why the flag's suggestion goes its way (the reason of the detection that made it) and,
    when no detection made one automatically, the readings the radiologist chooses between
    (workers/correction/direction.py), each with the text of the sentence it changes."""
    for row in [primary, *members]:
        evidence = row.evidence if isinstance(row.evidence, dict) else {}
        if suggestion is not None and row.suggestion == suggestion \
                and evidence.get("suggestion_reason"):
            return evidence["suggestion_reason"], []
    if suggestion is None:
        for row in members:
            evidence = row.evidence if isinstance(row.evidence, dict) else {}
            readings = [r for r in evidence.get("readings") or [] if isinstance(r, dict)
                        and isinstance(r.get("sentence"), int) and isinstance(r.get("text"), str)]
            if readings:
                return evidence.get("suggestion_reason", ""), [
                    {**r, "number": r["sentence"] + 1, "current": texts.get(r["sentence"], "")}
                    for r in readings]
    return "", []


def _flag_rows_sql() -> QuerySet[Detection]:
    """Flag rows of each study's audited report, correlated on ``OuterRef("pk")`` (a study)."""
    has_combined = Detection.objects.filter(report=OuterRef("report"), detector=Detection.COMBINED)
    has_uploaded = Report.objects.filter(study=OuterRef("report__study"), kind=Report.Kind.UPLOADED)
    return (
        Detection.objects.filter(
            report__study=OuterRef("pk"), report__kind__in=AUDITED_KINDS, flagged=True
        )
        .filter(Q(report__kind=Report.Kind.UPLOADED) | ~Exists(has_uploaded))
        .filter(Q(detector=Detection.COMBINED) | ~Exists(has_combined))
    )


def _decided_sql() -> QuerySet[Decision]:
    """Live deciding decisions on the sentence of the detection at ``OuterRef``."""
    return Decision.objects.filter(
        sentence__report=OuterRef("report"), sentence__index=OuterRef("sentence_index"),
        action__in=DECIDING_ACTIONS, undone_by__isnull=True,
    )


def _count_sentences(rows: QuerySet[Detection]):
    counted = (
        rows.order_by()
        .values("report__study")
        .annotate(n=Count("sentence_index", distinct=True))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def with_flag_counts(studies: QuerySet[Study]) -> QuerySet[Study]:
    """Annotate ``flag_count`` and ``open_flag_count`` (flagged sentences, and those without a
    live decision) and ``signed_version`` (the latest signed version, or None)."""
    flags = _flag_rows_sql()
    latest = SignOff.objects.filter(study=OuterRef("pk")).order_by("-version").values("version")[:1]
    return studies.annotate(
        flag_count=_count_sentences(flags),
        open_flag_count=_count_sentences(flags.filter(~Exists(_decided_sql()))),
        signed_version=Subquery(latest, output_field=IntegerField()),
    )


def flagged_filter(flagged: bool) -> Q:
    condition = Exists(_flag_rows_sql())
    return Q(condition) if flagged else ~Q(condition)


def signed_filter(signed: bool) -> Q:
    condition = Exists(SignOff.objects.filter(study=OuterRef("pk")))
    return Q(condition) if signed else ~Q(condition)


def reviewed_by_filter(user) -> Q:
    """Studies the user uploaded, decided on or signed."""
    return (Q(uploaded_by=user)
            | Exists(Decision.objects.filter(study=OuterRef("pk"), user=user))
            | Exists(SignOff.objects.filter(study=OuterRef("pk"), signer=user)))


def with_reading_room_columns(studies: QuerySet[Study]) -> QuerySet[Study]:
    """Annotate ``open_harm_rank``: the highest harm among open flags, as ``Harm.rank``; None
    without open flags. (Who is reading a study now: studies.selectors.reading_now.)"""
    rank = Case(*[When(harm=harm.value, then=Value(harm.rank)) for harm in Harm],
                output_field=IntegerField())
    open_rows = _flag_rows_sql().filter(~Exists(_decided_sql()))
    highest = open_rows.order_by().values("report__study").annotate(top=Max(rank)).values("top")
    return studies.annotate(open_harm_rank=Subquery(highest, output_field=IntegerField()))


# --- the review of one study -----------------------------------------------------------------


@dataclass
class SourceView:
    """One detector's say on a flagged sentence, ready for its evidence template."""

    detection: Detection
    detector: str
    label: str
    explanation: str
    harm: str
    confidence: float
    suggestion: str | None
    evidence: dict[str, Any]
    templates: list[str]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class FlagView:
    sentence_index: int
    detections: list[Detection]
    primary: Detection
    harm: str
    harm_rank: int
    confidence: float
    suggestion: str | None
    sources: list[SourceView]
    sentence_text: str
    is_open: bool = True
    figures: Figures | None = None  # the confidence explained (confidence.py)
    # why the suggestion goes its way; with no automatic replacement, the readings to choose
    suggestion_reason: str = ""
    readings: list[dict[str, Any]] = field(default_factory=list)
    # The report's kept part this flag was made from (its rendered evidence is kept there).
    kept: StaticFlag | None = field(default=None, repr=False, compare=False)

    @property
    def harm_slug(self) -> str:
        return self.harm.replace(" ", "-")

    @property
    def confidence_band(self) -> str:
        """How strongly the page marks the flag. A flag standing on a calibrated detector's
        guarantee (RadFlag under an active calibration) is never drawn as the weakest,
        whatever the combination's figure."""
        if self.figures is not None and self.figures.guarantees:
            return "calibrated"
        return "high" if self.confidence >= 0.75 else "medium" if self.confidence >= 0.5 else "low"

    @property
    def suggestion_diff(self):
        return word_diff(self.sentence_text, self.suggestion) if self.suggestion else []

    @property
    def proposal(self) -> PrimaryAction:
        """What the panel proposes, and so what the primary action (``a``) does: one rule for
        every flag (``proposes_keeping``)."""
        if self.suggestion:
            return PrimaryAction("accept", f"Change to “{self.suggestion}”")
        if self.suggestion is None and (self.readings or proposes_keeping(
                [source.evidence | {"detector": source.detector} for source in self.sources])):
            return PrimaryAction("reject", "Keep this sentence")
        return PrimaryAction("accept", "Remove this sentence")


def proposes_keeping(members: list[dict[str, Any]]) -> bool:
    """Whether a flag with no replacement proposes keeping its sentence: it offers two readings
    (the text does not say which side is wrong), or it stands on a contradicting pair whose
    other side is the one doubted. Such a flag is never accepted into a removal; any other
    flag with no replacement doubts the sentence itself, and accepting it removes it. Each
    member is a detection's evidence with its ``detector``."""
    for evidence in members:
        if evidence.get("readings"):
            return True
        if evidence.get("detector") == "contradiction" and not evidence.get("doubted"):
            return True
    return False


def keeps_its_sentence(detection: Detection) -> bool:
    """``proposes_keeping`` for a flag row (a combined row: its sources)."""
    rows = (list(detection.sources.all()) if detection.detector == Detection.COMBINED
            else [detection])
    return proposes_keeping([(row.evidence if isinstance(row.evidence, dict) else {})
                             | {"detector": row.detector} for row in rows])


@dataclass(frozen=True)
class PrimaryAction:
    action: str  # the decision it records: "accept" the suggestion, or "reject" the flag
    label: str  # what will happen, in words


@dataclass
class SentenceView:
    sentence: Sentence
    index: int
    section: str
    original: str
    current: str
    state: str  # "unchanged", "accepted", "rejected", "edited"
    decision: Decision | None
    flag: FlagView | None
    history: list[Decision]  # the latest SENTENCE_HISTORY_SHOWN, oldest first
    # Site rules that removed a flag on this sentence, in words (confidence.removed_notes).
    notes: list[str] = field(default_factory=list)
    history_count: int = 0  # all decisions on this sentence

    @property
    def removed(self) -> bool:
        return self.state in ("accepted", "edited") and self.current.strip() == ""

    @property
    def changed(self) -> bool:
        return self.current != self.original

    @property
    def text_diff(self):
        return word_diff(self.original, self.current) if self.changed and self.current else []


@dataclass
class SectionView:
    name: str
    title: str
    sentences: list[SentenceView]


@dataclass
class ReviewState:
    study: Study
    report: Report | None
    version: int
    sections: list[SectionView]
    sentences: list[SentenceView]
    flags: list[FlagView]
    decisions: list[Decision]  # the latest HISTORY_SHOWN, oldest first
    undoable: Decision | None
    signoffs: list[SignOff]
    final_text: str
    final_sections: list[derivation.FinalSection]
    effective_ids: list[int]
    report_warning: dict[str, Any] | None
    reviewable: bool
    decision_count: int = 0  # all of the study's decisions; ``decisions`` holds the latest

    @property
    def open_flags(self) -> list[FlagView]:
        return [f for f in self.flags if f.is_open]

    @property
    def latest_signoff(self) -> SignOff | None:
        return self.signoffs[-1] if self.signoffs else None

    @property
    def unsigned_changes(self) -> bool:
        """Whether the current final text differs from the latest signed version."""
        latest = self.latest_signoff
        if latest is None:
            return True
        return latest.decision_ids != self.effective_ids or latest.report.text != self.final_text

    @property
    def can_sign(self) -> bool:
        return (
            self.reviewable
            and not self.open_flags
            and self.unsigned_changes
            and self.report is not None
        )


def _harm_rank(harm: str) -> int:
    try:
        return Harm.parse(harm).rank
    except ValueError:
        return 0


def same_site_path(url) -> bool:
    """A URL path on this site ("/library/..."): never another host, so nothing leaves the site."""
    return (
        isinstance(url, str)
        and url.startswith("/")
        and not url.startswith("//")
        and "\\" not in url
    )


def _radflag_extra(detection: Detection, evidence: dict, context: dict[str, Any]) -> dict:
    samples = context["samples"]
    return {"verdicts": [{**v, "text": samples.get(v.get("sample"))}
                         for v in evidence.get("verdicts", []) if isinstance(v, dict)]}


def _correction_extra(detection: Detection, evidence: dict, context: dict[str, Any]) -> dict:
    original = evidence.get("original") or context["sentence_text"]
    suggestion = evidence.get("suggestion", detection.suggestion)
    return {"diff": word_diff(original, suggestion) if suggestion else [],
            "removes": suggestion == ""}


def _judge_extra(detection: Detection, evidence: dict, context: dict[str, Any]) -> dict:
    related = evidence.get("related_sentence")
    return {"rule_label": JUDGE_RULES.get(evidence.get("rule"), evidence.get("rule") or ""),
            "related": context["texts"].get(related) if isinstance(related, int) else None}


def _vrag_extra(detection: Detection, evidence: dict, context: dict[str, Any]) -> dict:
    return {"neighbours": [
        {**n, "thumbnail": n["thumbnail_url"] if same_site_path(n.get("thumbnail_url")) else None}
        for n in evidence.get("neighbours", []) if isinstance(n, dict)
    ]}


# What an evidence template needs beyond the evidence itself, for the detectors whose
# template reads more (sample texts, a word diff, a related sentence, thumbnails).
TEMPLATE_EXTRAS = {builtin.RADFLAG.name: _radflag_extra,
                   builtin.CORRECTION.name: _correction_extra,
                   builtin.JUDGE.name: _judge_extra, builtin.VRAG.name: _vrag_extra}


def _source_view(detection: Detection, context: dict[str, Any]) -> SourceView:
    evidence = (
        detection.evidence
        if isinstance(detection.evidence, dict)
        else {"value": detection.evidence}
    )
    name = detection.detector
    spec = DETECTORS.get(name)
    extra_of = TEMPLATE_EXTRAS.get(name)
    extra: dict[str, Any] = extra_of(detection, evidence, context) if extra_of else {}
    extra["items"] = [
        {"key": key, "value": value, "block": False}
        if isinstance(value, (str, int, float, bool)) or value is None
        else {"key": key, "value": json.dumps(value, indent=1, ensure_ascii=False), "block": True}
        for key, value in sorted(evidence.items())
    ]
    return SourceView(
        detection=detection, detector=name, label=label_of(name),
        explanation=detection.explanation, harm=detection.harm, confidence=detection.confidence,
        suggestion=detection.suggestion, evidence=evidence,
        templates=spec.templates if spec is not None else [GENERIC_TEMPLATE], extra=extra,
    )


def report_warning(study: Study, detections: list[Detection]) -> dict[str, Any] | None:
    """The report-level warning, or None.

    The hook: a ``report_flagged`` attribute on the study (a Study field the RadFlag stage may
    add) wins; otherwise any RadFlag detection whose evidence says ``"report_flagged": true``
    flags the report, and its evidence gives the count and the threshold λ2 when present.
    """
    flagged_attr = getattr(study, "report_flagged", None)
    radflag = [d for d in detections
               if d.detector == builtin.RADFLAG.name and isinstance(d.evidence, dict)]
    marked = [d for d in radflag if d.evidence.get("report_flagged") is True]
    if flagged_attr is False or (flagged_attr is None and not marked):
        return None
    evidence = marked[0].evidence if marked else {}
    weak = {d.sentence_index for d in radflag if d.flagged}
    return {
        "flagged_sentences": evidence.get("flagged_sentences", len(weak) or None),
        "lambda2": evidence.get("lambda2"),
    }


@dataclass(frozen=True)
class StaticFlag:
    """A flagged sentence's rows and what is built from them alone (``report_cache``)."""

    rows: list[Detection]  # primary first
    members: list[Detection]
    figures: Figures
    suggestion: str | None
    sources: list[SourceView]
    # The flag's evidence as rendered for each kind of reader (review_tags.flag_evidence).
    rendered: dict = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class StaticReview:
    """What ``review_state`` reads of a reviewable report that never changes (report_cache.py)."""

    sentences: list[Sentence]
    flags: dict[int, StaticFlag]  # by sentence index
    # The sentence's flags as the decisions take them: ``flags_of`` order (database order).
    flag_rows: dict[int, list[Detection]]
    notes: dict[int, list[str]]  # by sentence index: site rules that removed a flag
    titles: dict[str, str]
    warning: dict[str, Any] | None


def static_review(study: Study, report: Report) -> StaticReview:
    """The report's unchanging part of the review: kept per process once the study is
    reviewable (its pipeline is over), built from the report's rows otherwise."""
    cached = report_cache.get(report)
    if cached is not None:
        return cached
    built = _build_static(study, report)
    if study.status in REVIEWABLE_STATUSES:
        report_cache.put(report, built)
    return built


def cached_flag_rows(report: Report) -> dict[int, list[Detection]] | None:
    """The report's flags by sentence index if its unchanging part is already kept, else None
    (a decision then asks the database for its sentence's)."""
    cached = report_cache.get(report)
    return cached.flag_rows if cached is not None else None


def _build_static(study: Study, report: Report) -> StaticReview:
    # Read here unless the caller's loader has (a query each, not one per row).
    prefetch_related_objects(
        [report], Prefetch("sentences", queryset=Sentence.objects.order_by("index")),
        detection_prefetch())
    sentences = list(report.sentences.all())
    detections = list(report.detections.all())
    samples = {r.sample_index: r.text for r in study.reports.all() if r.kind == Report.Kind.SAMPLE}
    texts = {s.index: s.text for s in sentences}

    in_order: dict[int, list[Detection]] = {}
    for detection in flags_of(detections):
        in_order.setdefault(detection.sentence_index, []).append(detection)
    unflagged: dict[int, list[Detection]] = {}
    for detection in detections:
        if detection.detector == Detection.COMBINED and not detection.flagged:
            unflagged.setdefault(detection.sentence_index, []).append(detection)

    flags: dict[int, StaticFlag] = {}
    for sentence in sentences:
        rows = sorted(in_order.get(sentence.index, []),
                      key=lambda d: (-_harm_rank(d.harm), -d.confidence, d.id))
        if not rows:
            continue
        context = {"samples": samples, "texts": texts, "sentence_text": sentence.text}
        members: list[Detection] = []
        for row in rows:
            members.extend(sorted(row.sources.all(), key=lambda d: (-d.confidence, d.id))
                           if row.detector == Detection.COMBINED else [row])
        flags[sentence.index] = StaticFlag(
            rows=rows, members=members, figures=figures_of(rows, members),
            suggestion=suggestion_of(rows[0]),
            sources=[_source_view(d, context) for d in members],
        )
    return StaticReview(
        sentences=sentences,
        flags=flags,
        flag_rows=in_order,
        notes={s.index: removed_notes(unflagged.get(s.index, [])) for s in sentences
               if s.index not in flags},
        titles=derivation.section_titles(report.text),
        warning=report_warning(study, detections),
    )


def review_state(study: Study, report: Report | None = None, *,
                 sentence_history: bool = True,
                 signoffs: list[SignOff] | None = None) -> ReviewState:
    """Everything the review page shows, from a study loaded by ``study_with_everything``
    (or by ``study_for_answer``, with ``report`` and ``signoffs`` given).

    ``sentence_history=False`` leaves each sentence's latest decisions out (its ``history``
    empty): an answer that shows a few panels adds theirs with ``add_sentence_history``."""
    report = report if report is not None else study.audited_report
    decisions, history = _shown_history(study, per_sentence=sentence_history)
    states = state_table.states_of(study)  # kept with every decision: not a replay
    decision_count = sum(row.decision_count for row in states.values())
    signoffs = list(study.signoffs.all()) if signoffs is None else signoffs
    reviewable = study.status in REVIEWABLE_STATUSES
    undoable = _undoable(decisions, decision_count, study)
    if report is None:
        return ReviewState(study, None, study.review_version, [], [], [], decisions, undoable,
                           signoffs, "", [], [], None, reviewable, decision_count)

    static = static_review(study, report)
    sentences = static.sentences
    effective = {sentence_id: row.decision for sentence_id, row in states.items() if row.decision}
    # What each sentence reads now: a reading says what the sentence it would change reads.
    current = {s.index: effective[s.pk].after_text if s.pk in effective else s.text
               for s in sentences}

    views: list[SentenceView] = []
    flags: list[FlagView] = []
    for sentence in sentences:
        decision = effective.get(sentence.pk)
        flag = None
        kept = static.flags.get(sentence.index)
        if kept is not None:
            primary = kept.rows[0]
            reason, readings = direction_of(primary, kept.members, kept.suggestion, current)
            flag = FlagView(
                sentence_index=sentence.index, detections=kept.rows, primary=primary,
                harm=primary.harm, harm_rank=_harm_rank(primary.harm),
                confidence=kept.figures.value, suggestion=kept.suggestion,
                suggestion_reason=reason, readings=readings, sources=kept.sources,
                sentence_text=sentence.text, is_open=decision is None, figures=kept.figures,
                kept=kept,
            )
            flags.append(flag)
        views.append(
            SentenceView(
                sentence=sentence,
                index=sentence.index,
                section=sentence.section,
                original=sentence.text,
                current=decision.after_text if decision else sentence.text,
                state=STATES[decision.action] if decision else "unchanged",
                decision=decision,
                flag=flag,
                history=history.get(sentence.pk, []),
                history_count=states[sentence.pk].decision_count if sentence.pk in states else 0,
                notes=static.notes.get(sentence.index, []),
            )
        )

    titles = static.titles
    sections: list[SectionView] = []
    for view in views:
        if not sections or sections[-1].name != view.section:
            sections.append(
                SectionView(view.section, titles.get(view.section) or view.section.upper(), [])
            )
        sections[-1].sentences.append(view)

    replacements = {v.index: v.current for v in views if v.decision is not None}
    return ReviewState(
        study=study,
        report=report,
        version=study.review_version,
        sections=sections,
        sentences=views,
        flags=flags,
        decisions=decisions,
        undoable=undoable,
        signoffs=signoffs,
        final_text=derivation.final_text(report.text, sentences, replacements),
        final_sections=derivation.final_sections(sentences, replacements, titles),
        effective_ids=sorted(d.id for d in effective.values()),
        report_warning=static.warning,
        reviewable=reviewable,
        decision_count=decision_count,
    )


def _undoable(latest: list[Decision], decision_count: int, study: Study) -> Decision | None:
    """The decision undo takes back: the newest live one of the latest shown, which are the
    newest of all; only when none of them is live does it take a query."""
    for decision in reversed(latest):
        if decision.action != Decision.Action.UNDO and not decision.is_undone:
            return decision
    return state_table.latest_undoable(study) if decision_count > len(latest) else None


# What the decision log, the panels' histories and the undo button show of a decision: its
# user's name and its sentence's number, not the rest of their rows (a user's dates, a sentence's
# text and findings), which would be read and converted for each of up to 25 rows.
SHOWN_DECISION_FIELDS = ("study", "sentence", "detection", "action", "before_text", "after_text",
                         "undoes", "user", "created_at", "study_version", "user__username",
                         "sentence__index")


def _shown_decisions(study: Study) -> QuerySet[Decision]:
    return (Decision.objects.filter(study=study).select_related("user", "sentence")
            .only(*SHOWN_DECISION_FIELDS))


def _marked(decisions: list[Decision]) -> list[Decision]:
    """Set ``is_undone`` on the newest decisions of a study or of a sentence, from the rows
    themselves: an undo is newer than its target and names the same sentence, so the undo of
    any row among a study's (or a sentence's) newest is among them too. No subquery per row."""
    undone = {d.undoes_id for d in decisions if d.undoes_id is not None}
    for decision in decisions:
        decision.is_undone = decision.id in undone
    return decisions


def add_sentence_history(study: Study, views: list[SentenceView],
                         latest: list[Decision] = ()) -> None:
    """Fill the history of these sentences, for a state built with ``sentence_history=False``:
    from ``latest`` (the study's newest decisions, oldest first) when it holds the sentence's
    newest SENTENCE_HISTORY_SHOWN, or all of them; else one short query a sentence (an answer
    shows one or two panels), not the page's ranking."""
    for view in views:
        mine = [d for d in latest if d.sentence_id == view.sentence.pk]
        if len(mine) >= min(SENTENCE_HISTORY_SHOWN, view.history_count):
            view.history = mine[-SENTENCE_HISTORY_SHOWN:]
            continue
        newest = _shown_decisions(study).filter(sentence=view.sentence).order_by("-id")
        view.history = _marked(list(newest[:SENTENCE_HISTORY_SHOWN])[::-1])


def _shown_history(study: Study, per_sentence: bool = True
                   ) -> tuple[list[Decision], dict[int, list[Decision]]]:
    """The decisions the page shows, oldest first: the study's latest HISTORY_SHOWN, and each
    sentence's latest SENTENCE_HISTORY_SHOWN (by sentence id; none without ``per_sentence``).
    Bounded, so the page costs the same however long the history; the whole log is in the API
    and the audit trail."""
    decisions = _shown_decisions(study)
    latest = _marked(list(decisions.order_by("-id")[:HISTORY_SHOWN])[::-1])
    if not per_sentence:
        return latest, {}
    # Ranked on ids alone; only the rows kept are joined.
    ranked = (Decision.objects.filter(study=study, sentence__isnull=False)
              .annotate(rank=Window(RowNumber(), partition_by=[F("sentence_id")],
                                    order_by=F("id").desc()))
              .filter(rank__lte=SENTENCE_HISTORY_SHOWN).values("id"))
    per_sentence = _marked(sorted(decisions.filter(pk__in=ranked), key=lambda d: d.id))
    history: dict[int, list[Decision]] = {}
    for decision in per_sentence:
        history.setdefault(decision.sentence_id, []).append(decision)
    return latest, history


def review_prefetches() -> list:
    """What ``study_with_everything`` prefetches for ``review_state``."""
    # Not the decisions: review_state reads the state table and a bounded part of the history.
    return [
        Prefetch(
            "signoffs",
            queryset=SignOff.objects.select_related("signer", "report").order_by("version"),
        ),
    ]


def study_for_review(pk: int) -> Study:
    """A study with what the review region shows (an action's answer): its reports with their
    sentences and flags, and sign-offs, in a fixed number of queries. Not the images and
    uploader the study page adds (``studies.selectors.study_with_everything``): the region
    shows neither, and each is a query more per decision."""
    sentences = Prefetch("sentences", queryset=Sentence.objects.order_by("index"))
    reports = Prefetch("reports",
                       queryset=Report.objects.prefetch_related(sentences, detection_prefetch()))
    return Study.objects.prefetch_related(reports, *review_prefetches()).get(pk=pk)


def study_for_answer(pk: int) -> tuple[Study, Report | None, list[SignOff]]:
    """What a decision's partial answer reads besides the state rows and the latest decisions:
    the study with its audited report in one plain query (the report's sentences and flags come
    from ``report_cache``, read once per process), and its sign-offs only when it has any: a
    sign-off always stores its text as a final report, so the same query tells."""
    reports = list(Report.objects.filter(study=pk, kind__in=(*AUDITED_KINDS, Report.Kind.FINAL))
                   .select_related("study"))
    report = audited_among(reports)
    if report is None:
        study = study_for_review(pk)
        return study, None, list(study.signoffs.all())
    signed = any(r.kind == Report.Kind.FINAL for r in reports)
    signoffs = list(SignOff.objects.filter(study=pk).select_related("signer", "report")
                    .order_by("version")) if signed else []
    return report.study, report, signoffs


def detection_prefetch() -> Prefetch:
    return Prefetch("detections", queryset=Detection.objects.prefetch_related("sources"))


def signoff_for(study: Study, version: int) -> SignOff:
    return SignOff.objects.select_related("report", "signer", "study").get(
        study=study, version=version
    )


def as_worker_detection(row: Detection) -> types.Detection:
    """A stored detection back as the plain dataclass the workers take (e.g. to combine them)."""
    return types.Detection(
        sentence_index=row.sentence_index, start=row.start, end=row.end, detector=row.detector,
        explanation=row.explanation, harm=row.harm, confidence=row.confidence,
        evidence=row.evidence, suggestion=row.suggestion,
        prompt_version=row.prompt_version or None, model=row.model_name or None,
    )
