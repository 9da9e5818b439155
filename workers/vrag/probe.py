"""V-RAG entity probing: one yes/no question per disease entity, answered three ways.

* **generator** (a vision-language model is configured): the retrieved reference images, each
  labelled "Reference i (view)", then the study's own views labelled "Query (view)", then the
  references' reports and the question (``vrag_probe_image`` prompt). Greedy, a few tokens.
* **llm** (a language model but no generator): the references' reports with their image
  similarity and the question (``vrag_probe`` prompt), validated JSON.
* **built-in**: each retrieved report's statement about the entity votes — present +1,
  uncertain +0.5, not mentioned −0.5 (a full report that does not name a disease usually means
  it is absent), absent −1 — weighted by the neighbour's image similarity (the similarity
  weights of ``workers.rarrg.retrieval``); the answer is "yes" when the weighted mean is above
  zero, "no" below, "unclear" at zero.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from workers.backends.roles import ImageInput
from workers.backends.structured import complete_json_many
from workers.imagememory.access import similarity_weights
from workers.imagememory.entities import ABSENT, PRESENT, UNCERTAIN, statement
from workers.prompts import get_prompt

VOTES = {PRESENT: 1.0, UNCERTAIN: 0.5, None: -0.5, ABSENT: -1.0}
_ANSWER_RE = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


@dataclass
class Probe:
    entity: str
    observation: str
    question: str
    answer: str                    # "yes", "no" or "unclear"
    score: float                   # built-in vote in [-1, 1] (always computed, for evidence)
    method: str                    # "builtin", "generator" or "llm"
    neighbours: list[dict] = field(default_factory=list)
    reason: str = ""
    prompt_version: str | None = None
    model: str | None = None

    def to_dict(self) -> dict:
        return {"entity": self.entity, "observation": self.observation,
                "question": self.question, "answer": self.answer,
                "score": round(self.score, 4), "method": self.method, "reason": self.reason,
                "neighbours": self.neighbours}


def says_word(status: str | None) -> str:
    return {PRESENT: "present", ABSENT: "absent", UNCERTAIN: "uncertain"}.get(status,
                                                                           "not mentioned")


def neighbour_evidence(neighbours, observation: str) -> list[dict]:
    """Each neighbour with what its report says about the observation."""
    rows = []
    for n in neighbours:
        row = n.to_dict()
        row["says"] = says_word(statement(n.study.report, observation))
        rows.append(row)
    return rows


def builtin_answer(neighbour_rows: list[dict]) -> tuple[str, float]:
    """(answer, similarity-weighted mean vote).

    The weights are RA-RRG's similarity weights, exp((s − s_best) / 0.05): a neighbour 0.05
    less similar than the best counts 1/e as much, so a near-copy of the query speaks louder
    than a crowd of images that merely share the chest's layout."""
    inverse = {"present": PRESENT, "absent": ABSENT, "uncertain": UNCERTAIN,
               "not mentioned": None}
    if not neighbour_rows:
        return "unclear", 0.0
    weights = similarity_weights([float(row["similarity"]) for row in neighbour_rows])
    score = float(sum(w * VOTES[inverse[row["says"]]] for w, row in zip(weights, neighbour_rows)))
    answer = "yes" if score > 1e-9 else "no" if score < -1e-9 else "unclear"
    return answer, score


def parse_yes_no(text: str) -> str:
    match = _ANSWER_RE.search(text or "")
    return match.group(1).lower() if match else "unclear"


def _reference_listing(neighbours, with_similarity: bool) -> str:
    lines = []
    for i, n in enumerate(neighbours, 1):
        report = " ".join(n.study.report.split())
        similarity = f", similarity {n.similarity:.2f}" if with_similarity else ""
        lines.append(f"Reference {i} ({n.image.view}{similarity}): {report}")
    return "\n".join(lines)


def generator_probes(generator, probes: list[Probe], neighbours, reference_pixels,
                     query_images) -> None:
    """Answer each probe with the vision-language model (in place)."""
    prompt = get_prompt("vrag_probe_image")
    images = [ImageInput(pixels, f"Reference {i} ({n.image.view})")
              for i, (n, pixels) in enumerate(zip(neighbours, reference_pixels), 1)]
    images += [ImageInput(q.pixels, f"Query ({q.view})") for q in query_images]
    listing = _reference_listing(neighbours, with_similarity=False)
    for probe in probes:
        text = prompt.text(n_references=len(neighbours), references=listing,
                           question=probe.question)
        reply = generator.generate(images, text, temperature=0.0, n=1,
                                   max_tokens=prompt.max_tokens)[0]
        probe.answer = parse_yes_no(reply)
        probe.method = "generator"
        probe.reason = reply.strip()[:200]
        probe.prompt_version, probe.model = prompt.version, generator.name


def llm_probes(llm, probes: list[Probe], neighbours) -> None:
    """Answer every probe with the language model in one batch (in place)."""
    if not probes:
        return
    prompt = get_prompt("vrag_probe")
    listing = _reference_listing(neighbours, with_similarity=True)
    answers = complete_json_many(
        llm, [prompt.render(references=listing, question=p.question) for p in probes],
        prompt.schema, task=prompt.version, max_tokens=prompt.max_tokens)
    for probe, value in zip(probes, answers):
        probe.answer = value["answer"]
        probe.reason = str(value.get("reason", ""))[:300]
        probe.method = "llm"
        probe.prompt_version, probe.model = prompt.version, llm.name
