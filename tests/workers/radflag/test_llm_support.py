"""The LLM form of RadFlag support, against a scripted OpenAI-compatible server.

One request per sentence; the reply must put every sample in exactly one list. A reply that
misses a sample, repeats one or names one that does not exist is answered with the problem and
asked once more; a second bad reply fails the stage with a message naming the sentence.
"""
from __future__ import annotations

import json
import re

import pytest

from tests.support.fake_llm_server import FakeServer, Reply, completion
from workers.backends import registry
from workers.pipeline import StageError
from workers.radflag import SentenceInfo, Thresholds
from workers.radflag.llm_support import coverage_problem
from workers.radflag.stages import RadFlagInputs, radflag

SENTENCES = (SentenceInfo(0, "Small left pleural effusion.", 10, 38, "findings", "Pleura",
                          ({"observation": "pleural effusion", "status": "present"},)),
             SentenceInfo(1, "No pneumothorax.", 39, 55, "findings", "Pleura"))
SAMPLES = tuple(f"Sample report {i}: no pneumothorax." for i in range(5))
THRESHOLDS = Thresholds(lambda1=3, lambda2=1, n_samples=5)
GOOD = {  # per sentence: the verdict lists the model gives
    "Small left pleural effusion.": {"complete": [1], "partial": [2], "none": [3, 4, 5],
                                     "reasons": {"2": "moderate, not small", "3": "not mentioned"}},
    "No pneumothorax.": {"complete": [1, 2, 3, 4, 5], "partial": [], "none": []},
}


def sentence_of(body) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return re.search(r"Sentence to check:\n(.*?)\n\n", user, re.S).group(1)


def is_retry(body) -> bool:
    return any("could not be used" in m["content"] for m in body["messages"] if m["role"] == "user")


def answer(value) -> Reply:
    return Reply(body=completion(json.dumps(value) if not isinstance(value, str) else value))


def run_with(server) -> object:
    registry.configure({"llm": f"openai:{server.url}?model=judge-7b&retries=0"})
    return radflag(RadFlagInputs(SENTENCES, SAMPLES, THRESHOLDS), llm=registry.llm())


def test_valid_lists_give_support_verdicts_and_reasons():
    with FakeServer() as server:
        server.script = lambda body: answer(GOOD[sentence_of(body)])
        result = run_with(server)
    assert len(server.requests) == 2  # one call per sentence, nothing retried
    effusion, pneumothorax = result.supports
    assert (effusion.support, effusion.complete, effusion.partial) == (2, 1, 1)
    assert [v.verdict for v in effusion.verdicts] == ["complete", "partial", "none", "none", "none"]
    assert effusion.verdicts[1].reason == "moderate, not small" and effusion.verdicts[0].sample == 0
    assert pneumothorax.support == 5
    (detection,) = result.outcome.detections
    assert detection.sentence_index == 0 and detection.prompt_version == "radflag_support/v1"
    assert detection.model == "judge-7b"
    first = server.requests[0]["body"]
    user = first["messages"][-1]["content"]
    assert "Report 5:" in user and "Report 6:" not in user


def test_an_uncovered_sample_is_asked_again_and_the_second_answer_is_used():
    def script(body):
        sentence = sentence_of(body)
        if sentence.startswith("Small") and not is_retry(body):
            return answer({"complete": [1], "partial": [2], "none": [3, 4]})  # sample 5 missing
        return answer(GOOD[sentence])

    with FakeServer() as server:
        server.script = script
        result = run_with(server)
    retries = [r["body"] for r in server.requests if is_retry(r["body"])]
    assert len(server.requests) == 3 and len(retries) == 1
    assert "report 5 is in none of the lists" in retries[0]["messages"][-1]["content"]
    assert result.supports[0].support == 2 and result.supports[0].n == 5


@pytest.mark.parametrize(
    "bad, problem",
    [
        (
            {"complete": [1, 2], "partial": [2], "none": [3, 4, 5]},
            "report 2 is in both 'complete' and 'partial'",
        ),
        (
            {"complete": [1, 2, 3, 4, 5, 6], "partial": [], "none": []},
            "6 is greater than the maximum of 5",
        ),
        ({"complete": [1, 1, 2, 3, 4, 5], "partial": [], "none": []}, "non-unique"),
        ("The sample supports it.", "no JSON value"),
        ({"complete": [1, 2, 3, 4, 5]}, "'partial' is a required property"),
    ],
)
def test_twice_invalid_fails_the_stage_with_a_clear_message(bad, problem):
    def script(body):
        return (
            answer(bad)
            if sentence_of(body).startswith("Small")
            else answer(GOOD[sentence_of(body)])
        )

    with FakeServer() as server:
        server.script = script
        with pytest.raises(StageError) as failed:
            run_with(server)
    message = failed.value.message
    assert "judge-7b twice gave an unusable verdict list" in message
    assert "Small left pleural effusion." in message and problem in message
    assert "nothing was stored" in message
    assert sum(is_retry(r["body"]) for r in server.requests) == 1


def test_coverage_rules():
    assert coverage_problem({"complete": [1, 2], "partial": [3], "none": []}, 3) is None
    assert (
        coverage_problem({"complete": [1], "partial": [], "none": []}, 3)
        == "reports 2, 3 are in none of the lists"
    )
    assert "is not a report number" in coverage_problem(
        {"complete": [0, 1, 2], "partial": [], "none": []}, 2
    )
