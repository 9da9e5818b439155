"""The LLM forms of the three-stage correction and of the judge, against a local fake
OpenAI-compatible server: valid answers, a malformed answer then a valid one, and two invalid
answers in a row (a clear failure, never a made-up result)."""
from __future__ import annotations

import json

import pytest

from tests.support.fake_llm_server import FakeServer, Reply, completion
from workers.backends import StructuredOutputError
from workers.backends.openai_http import OpenAITextModel
from workers.backends.spec import parse_spec
from workers.correction import correct
from workers.judge import judge
from workers.study import StudyContext

REPORT = ("FINDINGS: The heart is normal in size. Pleural effusion or pneumothorax.\n"
          "IMPRESSION: No acute cardiopulmonary abnormality.")


@pytest.fixture
def server():
    with FakeServer() as running:
        yield running


def model(server) -> OpenAITextModel:
    return OpenAITextModel(parse_spec(
        "llm", f"openai:{server.url}?model=judge-test&retries=1&backoff=0&timeout=5"))


def reply(value) -> Reply:
    return Reply(body=completion(value if isinstance(value, str) else json.dumps(value)))


def by_stage(answers: dict[str, list[Reply]]):
    """A script that answers each prompt (told apart by its wording) from its own list."""
    used = {key: 0 for key in answers}

    def script(body):
        text = " ".join(m["content"] for m in body["messages"] if isinstance(m["content"], str))
        key = next(k for k in answers if k in text)
        replies = answers[key]
        answer = replies[min(used[key], len(replies) - 1)]
        used[key] += 1
        return answer
    return script


DETECT = {"has_error": True, "confidence": 0.8, "reason": "a lost negation"}
# Sentences are numbered from 1 for the model, as on the review page: 2 is index 1.
LOCALIZE = {"sentence": 2, "reason": "the list reads as a denial"}
CORRECT = {"corrected_sentence": "No pleural effusion or pneumothorax.",
           "explanation": "The negation of the list was lost."}


def test_three_valid_answers_make_one_correction_with_provenance(server):
    server.script = by_stage({"Step 1 of 3": [reply(DETECT)], "Step 2 of 3": [reply(LOCALIZE)],
                              "Step 3 of 3": [reply(CORRECT)]})
    result = correct(StudyContext(REPORT), llm=model(server))
    assert result.has_error and result.sentence_index == 1
    assert result.corrected_report == REPORT.replace("Pleural effusion or pneumothorax.",
                                                     "No pleural effusion or pneumothorax.")
    [detection] = result.detections
    assert detection.detector == "correction" and detection.confidence == 0.8
    assert detection.suggestion == "No pleural effusion or pneumothorax."
    assert detection.evidence["original"] == "Pleural effusion or pneumothorax."
    assert detection.prompt_version == "correction_correct/v3"
    assert detection.model == "judge-test"
    assert len(server.requests) == 3
    prompt = server.requests[0]["body"]["messages"][-1]["content"]
    assert "[1] (findings) The heart is normal in size." in prompt
    assert "sentence 2 is wrong" in server.requests[2]["body"]["messages"][-1]["content"]


def test_no_error_stops_after_stage_one(server):
    server.script = [reply({"has_error": False, "confidence": 0.9, "reason": "consistent"})]
    result = correct(StudyContext(REPORT), llm=model(server))
    assert not result.has_error and result.detections == [] and len(server.requests) == 1


def test_a_malformed_answer_is_asked_again_once(server):
    server.script = by_stage({
        "Step 1 of 3": [reply(DETECT)],
        # first not JSON at all, then a valid answer
        "Step 2 of 3": [reply("The second sentence."), reply(LOCALIZE)],
        "Step 3 of 3": [reply(CORRECT)],
    })
    result = correct(StudyContext(REPORT), llm=model(server))
    assert result.sentence_index == 1 and len(server.requests) == 4
    retry = server.requests[2]["body"]["messages"]
    assert "could not be used" in retry[-1]["content"]


def test_an_out_of_range_sentence_counts_as_invalid(server):
    server.script = by_stage({"Step 1 of 3": [reply(DETECT)],
                              "Step 2 of 3": [reply({"sentence": 9, "reason": "x"})]})
    with pytest.raises(StructuredOutputError, match="correction_localize/v2"):
        correct(StudyContext(REPORT), llm=model(server))


def test_two_invalid_answers_fail_clearly(server):
    server.script = [reply({"has_error": "maybe"})]
    with pytest.raises(StructuredOutputError) as failure:
        correct(StudyContext(REPORT), llm=model(server))
    message = str(failure.value)
    assert "correction_detect/v2" in message and "judge-test" in message
    assert len(server.requests) == 2


JUDGED = {"problems": [{"sentence": 2, "rule": "impression_vs_findings", "related_sentence": 3,
                        "confidence": 0.7, "explanation": "The findings affirm what the "
                                                          "impression denies."}]}


def test_the_judge_prompt_form(server):
    server.script = [reply("Here it is:\n```json\n" + json.dumps(JUDGED) + "\n```")]
    [detection] = judge(StudyContext(REPORT), llm=model(server))
    assert detection.detector == "judge" and detection.sentence_index == 1
    assert detection.evidence == {"rule": "llm", "llm_rule": "impression_vs_findings",
                                  "related_sentence": 2, "detail": "impression vs findings"}
    assert detection.prompt_version == "judge/v2" and detection.model == "judge-test"


def test_the_judge_asks_again_then_fails_clearly(server):
    bad = {"problems": [{"sentence": 2, "rule": "vibes", "related_sentence": None,
                         "confidence": 0.5, "explanation": "x"}]}
    server.script = [reply(bad), reply(JUDGED)]
    assert len(judge(StudyContext(REPORT), llm=model(server))) == 1
    server.requests.clear()
    server.script = [reply(bad)]
    with pytest.raises(StructuredOutputError, match="judge/v2"):
        judge(StudyContext(REPORT), llm=model(server))
