"""V-RAG probing: the built-in vote, the llm form (fake server), the multimodal form (tiny VLM
and an OpenAI-compatible server): what each is given and how its answer is read."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support import tiny_models as tiny
from tests.support.fake_llm_server import FakeServer, Reply, completion
from workers.backends.openai_http import OpenAIGenerator, OpenAITextModel
from workers.backends.spec import parse_spec
from workers.imagememory import MemoryImage, MemoryStudy, Neighbour
from workers.vrag.probe import (
    Probe,
    builtin_answer,
    generator_probes,
    llm_probes,
    neighbour_evidence,
    parse_yes_no,
)

REPORTS = ["Small left pleural effusion. No pneumothorax.",
           "No pleural effusion. Heart size is normal.",
           "Mild cardiomegaly."]


def neighbours(similarities=(0.99, 0.95, 0.90)) -> list[Neighbour]:
    return [Neighbour(MemoryImage(10 + i, i + 1, "PA", f"ref-{i}.png"),
                      MemoryStudy(i + 1, f"ref-{i + 1}", "test", report), similarity)
            for i, (report, similarity) in enumerate(zip(REPORTS, similarities))]


def probe(observation="pleural effusion") -> Probe:
    return Probe(observation, observation, f"Is there a {observation}?", "unclear", 0.0, "builtin")


def test_the_built_in_vote_weighs_each_report_s_statement_by_image_similarity():
    rows = neighbour_evidence(neighbours(), "pleural effusion")
    assert [r["says"] for r in rows] == ["present", "absent", "not mentioned"]
    assert rows[0]["reference_id"] == 1 and rows[0]["image_id"] == 10
    answer, score = builtin_answer(rows)
    assert answer == "yes" and 0 < score < 1  # the closest image's report says present
    answer, score = builtin_answer(neighbour_evidence(neighbours((0.90, 0.99, 0.98)),
                                                      "pleural effusion"))
    assert answer == "no" and score < 0
    assert builtin_answer([]) == ("unclear", 0.0)
    assert builtin_answer(neighbour_evidence(neighbours(), "pneumothorax"))[0] == "no"


def test_yes_and_no_are_read_from_free_text():
    assert parse_yes_no("Yes.") == "yes" and parse_yes_no("no, there is none") == "no"
    assert parse_yes_no("The answer: NO") == "no" and parse_yes_no("maybe") == "unclear"


def test_the_llm_form_sends_the_references_with_their_similarity(tmp_path):
    probes = [probe("pleural effusion"), probe("cardiomegaly")]
    with FakeServer() as server:
        server.script = lambda body: Reply(body=completion(json.dumps(
            {"answer": "yes" if "Is there a pleural effusion?" in body["messages"][-1]["content"]
             else "no",
             "reason": "closest reference"})))
        llm = OpenAITextModel(parse_spec("llm", f"openai:{server.url}?model=fake-llm"))
        llm_probes(llm, probes, neighbours())
        sent = [r["body"]["messages"][-1]["content"] for r in server.requests]
    assert len(sent) == 2  # one request per probe, sent concurrently
    effusion = next(text for text in sent if "Is there a pleural effusion?" in text)
    assert "Reference 1 (PA, similarity 0.99): Small left pleural effusion." in effusion
    assert "Question about the query image: Is there a pleural effusion?" in effusion
    assert [(p.answer, p.method, p.model, p.prompt_version) for p in probes] == [
        ("yes", "llm", "fake-llm", "vrag_probe/v1"), ("no", "llm", "fake-llm", "vrag_probe/v1")]


class _Query:
    def __init__(self, view):
        self.pixels = np.random.default_rng(0).random((48, 40), dtype=np.float32)
        self.view = view


def reference_pixels() -> list[np.ndarray]:
    return [np.full((40, 40), 0.2 + 0.2 * i, np.float32) for i in range(3)]


def test_the_multimodal_form_puts_the_references_before_the_query():
    probes = [probe()]
    with FakeServer() as server:
        server.script = [Reply(body=completion("Yes, on the left."))]
        generator = OpenAIGenerator(parse_spec("generator",
                                               f"openai:{server.url}?model=fake-vlm"))
        generator_probes(generator, probes, neighbours(), reference_pixels(),
                         [_Query("PA"), _Query("LATERAL")])
        body = server.requests[0]["body"]
    parts = body["messages"][0]["content"]
    labels = [p["text"] for p in parts if p["type"] == "text"]
    assert labels[:5] == ["View: Reference 1 (PA)", "View: Reference 2 (PA)",
                          "View: Reference 3 (PA)", "View: Query (PA)", "View: Query (LATERAL)"]
    assert [p["type"] for p in parts].count("image_url") == 5
    assert parts[-1]["type"] == "text" and "Question: Is there a pleural effusion?" in labels[-1]
    assert "Reference 1 (PA): Small left pleural effusion." in labels[-1]
    assert body["temperature"] == 0.0
    assert (probes[0].answer, probes[0].method, probes[0].model) == ("yes", "generator", "fake-vlm")
    assert probes[0].prompt_version == "vrag_probe_image/v1"


@pytest.mark.slow
def test_the_multimodal_form_runs_on_a_tiny_vision_language_model(tmp_path):
    from workers.backends.transformers_vlm import TransformersGenerator

    folder = tiny.build_vlm(tmp_path / "tiny-llava")
    generator = TransformersGenerator(parse_spec("generator",
                                                 f"transformers:{folder}?device={tiny.DEVICE}"))
    probes = [probe(), probe("cardiomegaly")]
    generator_probes(generator, probes, neighbours(), reference_pixels(), [_Query("PA")])
    for p in probes:
        assert p.method == "generator" and p.model == "tiny-llava"
        assert p.answer in ("yes", "no", "unclear")  # random weights: any word may come out
        assert p.answer == parse_yes_no(p.reason)
