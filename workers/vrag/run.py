"""V-RAG for one study: retrieve, collect entities, probe, flag disagreements, rewrite."""
from __future__ import annotations

from dataclasses import dataclass

from workers.backends.builtin import AppearanceDescriptorEncoder
from workers.imagememory import load_pixels
from workers.imagememory.entities import (
    ABSENT,
    PRESENT,
    UNCERTAIN,
    extract_entities,
    question_for,
    said_of,
    shortest_library_subphrase,
    status_in,
)
from workers.nlp import harm_of
from workers.nlp.findings import IMAGE_SECTIONS
from workers.nlp.vocabulary import ancestors
from workers.pipeline import Progress, StageError, no_progress
from workers.study import StudyContext
from workers.types import Detection

from .probe import (
    Probe,
    builtin_answer,
    generator_probes,
    llm_probes,
    neighbour_evidence,
    says_word,
)
from .rewrite import Correction, rewrite_report, rewrite_with_llm, suggestion_for

DETECTOR = "vrag"
DEFAULT_TOP_K = 5
#: Confidence of a disagreement found by a model probe (no vote to scale it by).
MODEL_CONFIDENCE = 0.7


@dataclass
class VragResult:
    neighbours: list[dict]
    probes: list[dict]
    detections: list[Detection]
    rewrite: str
    rewrite_prompt_version: str | None
    rewrite_model: str | None
    omissions: list[str]
    encoder: str
    encoder_learned: bool


@dataclass(frozen=True)
class _Query:
    pixels: object
    view: str


def pooled_neighbours(per_view, k: int):
    """The k best reference studies over every view (one image each, its best)."""
    best = {}
    for hits in per_view:
        for hit in hits:
            old = best.get(hit.study.id)
            if old is None or hit.similarity > old.similarity:
                best[hit.study.id] = hit
    return sorted(best.values(), key=lambda n: (-n.similarity, n.study.id))[:k]


def _entities_to_probe(report: str, neighbours, vocabulary, extractor) -> dict[str, tuple]:
    """observation → (mapped entity phrase, positive phrase as the references word it)."""
    found: dict[str, tuple[str, str]] = {}
    sources = [report] + [n.study.report for n in neighbours]
    for source_index, text in enumerate(sources):
        for mention in extract_entities(text, extractor):
            phrase = shortest_library_subphrase(mention.phrase, vocabulary, mention.observation)
            old = found.get(mention.observation)
            if old is None:
                found[mention.observation] = (phrase, mention.phrase)
            elif source_index > 0 and mention.status == PRESENT and old[1] == old[0]:
                found[mention.observation] = (old[0], mention.phrase)
    return found


def _draft_findings(ctx: StudyContext, observation: str) -> list:
    """The report's findings that state what it says about the observation: every explicit
    mention (one per sentence), else the normal statement that implies it, else a mention of
    a related observation."""
    findings = [f for f in ctx.all_findings if f.section in IMAGE_SECTIONS]
    direct = [f for f in findings if f.observation == observation]
    related = [f for f in findings if observation in ancestors(f.observation)
               or f.observation in ancestors(observation)]
    for pool in (direct, related):
        for implied in (False, True):
            chosen = {}
            for f in pool:
                if f.implied == implied:
                    chosen.setdefault(f.sentence_index, f)
            if chosen:
                return list(chosen.values())
    return []


def _explanation(probe: Probe, report_says: str, disagreeing: list[dict], k: int) -> str:
    names = ", ".join(f"{n['external_id']} ({n['similarity']:.0%}, {n['says']})"
                      for n in disagreeing[:5])
    if probe.method == "builtin":
        asked = f"Asked of the reports of the {k} most similar reference images"
    else:
        asked = f"Asked of {probe.model} with the {k} most similar reference images"
    report_part = {PRESENT: "states it", UNCERTAIN: "suggests it",
                   ABSENT: "rules it out"}[report_says]
    return (f"{asked}, “{probe.question}” is answered {probe.answer}, but the report "
            f"{report_part}. Neighbours that disagree with the report: {names or 'none'}.")


def run_vrag(ctx: StudyContext, progress: Progress = no_progress, *, image_encoder=None,
             extractor=None, generator=None, llm=None) -> VragResult:
    """V-RAG for one study with the models passed in (None: the role's built-in default):
    the report and the images are the study context's, its settings ``top_k``."""
    encoder = image_encoder
    if encoder is None:
        encoder = AppearanceDescriptorEncoder()
    images = ctx.images
    if not images:
        raise StageError("V-RAG needs the study's images; this study has none.")
    top_k = ctx.settings_of(DETECTOR).get("top_k", DEFAULT_TOP_K)
    memory = images.memory_for(encoder)
    neighbours = pooled_neighbours(images.neighbours(encoder, top_k), top_k)
    progress(0.3, f"{len(neighbours)} similar reference images")

    entities = _entities_to_probe(ctx.text, neighbours, memory.entity_vocabulary(), extractor)
    probes: list[Probe] = []
    for observation, (phrase, _) in entities.items():
        rows = neighbour_evidence(neighbours, observation)
        answer, score = builtin_answer(rows)
        probes.append(Probe(phrase, observation, question_for(phrase), answer, score,
                            "builtin", rows))
    if generator is not None and probes:
        reference_pixels = [load_pixels(images.reference_path(n.image.path))
                            for n in neighbours]
        queries = [_Query(pixels, q.view) for pixels, q in zip(images.pixels, images.queries)]
        generator_probes(generator, probes, neighbours, reference_pixels, queries)
    elif llm is not None and probes:
        llm_probes(llm, probes, neighbours)
    progress(0.7, f"{len(probes)} entities probed")

    sentences = {s.index: s for s in ctx.parsed.sentences}
    grouped = ctx.findings
    said = said_of(ctx.all_findings)
    corrections: dict[str, Correction] = {}
    omissions: list[str] = []
    flagged: list[tuple[Probe, str, object]] = []
    for probe in probes:
        report_says = status_in(said, probe.observation)
        positive = entities[probe.observation][1]
        if probe.answer not in ("yes", "no"):
            continue
        if report_says is None:
            if probe.answer == "yes":
                omissions.append(positive)
                corrections[probe.observation] = Correction(probe.observation, "yes", positive)
            continue
        disagrees = (report_says in (PRESENT, UNCERTAIN) and probe.answer == "no") or \
            (report_says == ABSENT and probe.answer == "yes")
        if not disagrees:
            continue
        corrections[probe.observation] = Correction(probe.observation, probe.answer, positive)
        for finding in _draft_findings(ctx, probe.observation):
            flagged.append((probe, report_says, finding))

    detections = []
    for probe, report_says, finding in flagged:
        sentence = sentences[finding.sentence_index]
        disagreeing = [n for n in probe.neighbours
                       if (n["says"] in ("absent", "not mentioned")) == (report_says != ABSENT)]
        if probe.method == "builtin":
            confidence = min(0.95, max(0.05, abs(probe.score)))
        else:
            confidence = MODEL_CONFIDENCE
        suggestion = suggestion_for(sentence.text, grouped[sentence.index],
                                    {probe.observation: corrections[probe.observation]})
        evidence = {
            "entity": probe.entity, "question": probe.question, "answer": probe.answer,
            "report_says": says_word(report_says), "neighbours": probe.neighbours,
            "score": round(probe.score, 4), "method": probe.method,
            "encoder": encoder.name, "encoder_learned": bool(getattr(encoder, "learned", True)),
        }
        if probe.reason:
            evidence["reason"] = probe.reason
        detections.append(Detection(
            sentence_index=sentence.index, start=sentence.start, end=sentence.end,
            detector=DETECTOR, explanation=_explanation(probe, report_says, disagreeing,
                                                      len(neighbours)),
            harm=harm_of(probe.observation, report_says if report_says != ABSENT else PRESENT),
            confidence=round(confidence, 4), evidence=evidence, suggestion=suggestion,
            prompt_version=probe.prompt_version, model=probe.model))

    if llm is not None:
        rewrite, prompt_version, model = rewrite_with_llm(llm, ctx.text, probes)
    else:
        rewrite, prompt_version, model = rewrite_report(ctx, corrections, omissions), None, None
    progress(1.0, f"{len(detections)} disagreements")
    neighbour_rows = [dict(n.to_dict()) for n in neighbours]
    return VragResult(neighbour_rows, [p.to_dict() for p in probes], detections, rewrite,
                      prompt_version, model, omissions, encoder.name,
                      bool(getattr(encoder, "learned", True)))
