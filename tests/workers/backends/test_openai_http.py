"""The OpenAI-compatible client against a local HTTP server started by the test."""
from __future__ import annotations

import base64
import io
import json
import logging
import socket

import numpy as np
import pytest
from PIL import Image

from tests.support.fake_llm_server import FakeServer, Reply, completion
from workers.backends import BackendRequestError, ImageInput, StructuredOutputError, registry
from workers.backends.openai_http import OpenAIGenerator, OpenAITextModel
from workers.backends.spec import parse_spec
from workers.backends.structured import complete_json

SECRET = "sk-test-SECRET-4242"
MESSAGES = [{"role": "user", "content": "Is there an effusion?"}]
SCHEMA = {"type": "object", "properties": {"effusion": {"type": "boolean"}},
          "required": ["effusion"], "additionalProperties": False}


@pytest.fixture
def server():
    with FakeServer() as running:
        yield running


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("RR_TEST_OPENAI_KEY", SECRET)


def llm(server, **options) -> OpenAITextModel:
    settings = {"model": "qwen-test", "api_key_env": "RR_TEST_OPENAI_KEY", "retries": 2,
                "backoff": 0, "timeout": 5, **options}
    query = "&".join(f"{key}={value}" for key, value in settings.items())
    return OpenAITextModel(parse_spec("llm", f"openai:{server.url}?{query}"))


def generator(server, **options) -> OpenAIGenerator:
    settings = {"model": "vlm-test", "retries": 1, "backoff": 0, **options}
    query = "&".join(f"{key}={value}" for key, value in settings.items())
    return OpenAIGenerator(parse_spec("generator", f"openai:{server.url}?{query}"))


def study() -> list[ImageInput]:
    rows = np.linspace(0, 1, 300, dtype=np.float32)[:, None]
    return [ImageInput(np.tile(rows, (1, 200)), "PA"),
            ImageInput(np.full((64, 80), 0.25, dtype=np.float32), "LATERAL")]


def test_complete_sends_the_request_and_returns_the_text(server):
    server.script = [Reply(body=completion("  No effusion.  "))]
    model = llm(server)
    assert model.name == "qwen-test"
    assert model.complete(MESSAGES, temperature=0.2, top_p=0.9, max_tokens=64) == "No effusion."
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {SECRET}"
    body = request["body"]
    assert body == {"model": "qwen-test", "messages": MESSAGES, "temperature": 0.2,
                    "top_p": 0.9, "max_tokens": 64, "n": 1}


def test_through_the_registry(server):
    registry.configure({"llm": f"openai:{server.url}?model=qwen-test&api_key_env="
                               "RR_TEST_OPENAI_KEY"})
    assert registry.llm().complete(MESSAGES) == "ok"
    result = registry.probe("llm")
    assert result.ok and "qwen-test replied 'ok'" in result.detail
    assert server.requests[-1]["body"]["max_tokens"] == 8


def test_server_error_then_success_is_retried(server, caplog):
    server.script = [Reply(500, {"error": "busy"}), Reply(503, raw="overloaded"),
                     Reply(body=completion("fine"))]
    with caplog.at_level(logging.DEBUG):
        assert llm(server).complete(MESSAGES) == "fine"
    assert len(server.requests) == 3
    assert "retry 1 of 2" in caplog.text and "HTTP 503" in caplog.text
    assert SECRET not in caplog.text


def test_rate_limit_honours_retry_after(server):
    server.script = [Reply(429, {"error": "slow down"}, headers={"Retry-After": "0"}),
                     Reply(body=completion("fine"))]
    assert llm(server, backoff=30).complete(MESSAGES) == "fine"  # Retry-After: 0 wins
    assert len(server.requests) == 2


def test_client_errors_are_not_retried(server):
    server.script = [Reply(400, {"error": {"message": "context too long"}})]
    with pytest.raises(BackendRequestError) as caught:
        llm(server).complete(MESSAGES)
    assert len(server.requests) == 1
    assert caught.value.status == 400
    assert "RADREVIEW_LLM" in str(caught.value) and "context too long" in str(caught.value)
    assert SECRET not in str(caught.value)


def test_timeouts_are_retried_then_fail(server):
    server.script = [Reply(body=completion("late"), delay=1.0)]
    with pytest.raises(BackendRequestError, match="failed after 2 attempts: no answer within"):
        llm(server, timeout=0.2, retries=1).complete(MESSAGES)
    assert len(server.requests) == 2


def test_unreachable_server():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAITextModel(parse_spec("llm", f"openai:http://127.0.0.1:{port}/v1?model=m"
                                              "&retries=1&backoff=0&timeout=2"))
    with pytest.raises(BackendRequestError, match="connection failed"):
        model.complete(MESSAGES)


def test_a_garbled_success_body_is_retried(server):
    server.script = [Reply(raw="<html>proxy error</html>"), Reply(body=completion("fine"))]
    assert llm(server).complete(MESSAGES) == "fine"


def test_complete_many_keeps_order_and_the_concurrency_limit(server):
    server.script = lambda body: Reply(body=completion(body["messages"][0]["content"].upper()),
                                       delay=0.15)
    conversations = [[{"role": "user", "content": f"q{i}"}] for i in range(6)]
    replies = llm(server, concurrency=2).complete_many(conversations)
    assert replies == [f"Q{i}" for i in range(6)]
    assert server.max_in_flight <= 2


def test_response_format_when_configured(server):
    server.script = [Reply(body=completion('{"effusion": true}'))]
    model = llm(server, response_format="json_schema")
    assert complete_json(model, MESSAGES, SCHEMA, task="entailment/v1") == {"effusion": True}
    assert server.requests[0]["body"]["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA}}
    plain = llm(server)
    complete_json(plain, MESSAGES, SCHEMA, task="entailment/v1")
    assert "response_format" not in server.requests[1]["body"]


def test_malformed_json_then_valid_json(server):
    server.script = [Reply(body=completion("Sure! {effusion: yes")),
                     Reply(body=completion('```json\n{"effusion": false}\n```'))]
    assert complete_json(llm(server), MESSAGES, SCHEMA, task="judge/v1") == {"effusion": False}
    retry = server.requests[1]["body"]["messages"]
    assert retry[:1] == MESSAGES
    assert retry[1] == {"role": "assistant", "content": "Sure! {effusion: yes"}
    assert retry[2]["role"] == "user"
    assert "the reply contains no JSON value" in retry[2]["content"]


def test_twice_invalid_json_raises(server):
    server.script = [Reply(body=completion('{"effusion": "maybe"}')),
                     Reply(body=completion('{"verdict": 1}'))]
    with pytest.raises(StructuredOutputError) as caught:
        complete_json(llm(server), MESSAGES, SCHEMA, task="entailment/v1")
    message = str(caught.value)
    assert message.startswith("entailment/v1: model qwen-test did not return valid JSON")
    assert "'maybe' is not of type 'boolean' (at effusion)" in message
    assert len(server.requests) == 2


def test_generator_sends_images_and_asks_for_n_samples_at_once(server):
    server.script = [Reply(body=completion("r1", "r2", "r3"))]
    model = generator(server, max_image_side=128)
    reports = model.generate(study(), "Write the report.", temperature=1.0, n=3, max_tokens=99)
    assert reports == ["r1", "r2", "r3"]
    assert len(server.requests) == 1
    body = server.requests[0]["body"]
    assert body["n"] == 3 and body["temperature"] == 1.0 and body["max_tokens"] == 99
    assert "Authorization" not in server.requests[0]["headers"]
    parts = body["messages"][0]["content"]
    assert [part["type"] for part in parts] == ["text", "image_url", "text", "image_url", "text"]
    assert parts[0]["text"] == "View: PA" and parts[2]["text"] == "View: LATERAL"
    assert parts[4]["text"] == "Write the report."
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert image.format == "PNG" and image.size == (85, 128)  # 200x300 shrunk to 128 px
    pixels = np.asarray(image)
    assert pixels[0, 0] <= 2 and pixels[-1, 0] >= 253  # dark top, bright bottom
    second = Image.open(io.BytesIO(base64.b64decode(
        parts[3]["image_url"]["url"].split(",", 1)[1])))
    assert second.size == (80, 64)  # small images are sent as they are


def test_generator_tops_up_when_the_server_returns_fewer_choices(server):
    server.script = [Reply(body=completion("a")), Reply(body=completion("b")),
                     Reply(body=completion("c"))]
    reports = generator(server).generate(study(), "x", temperature=0.8, n=3)
    assert sorted(reports) == ["a", "b", "c"]
    assert [request["body"]["n"] for request in server.requests] == [3, 1, 1]


def test_generator_falls_back_to_single_samples_when_n_is_refused(server):
    def script(body):
        if body["n"] > 1:
            return Reply(400, {"error": "n must be 1"})
        return Reply(body=completion("one"))

    server.script = script
    model = generator(server)
    assert model.generate(study(), "x", temperature=1.0, n=4) == ["one"] * 4
    assert [request["body"]["n"] for request in server.requests] == [4, 1, 1, 1, 1]
    model.generate(study(), "x", temperature=1.0, n=2)
    assert [request["body"]["n"] for request in server.requests[5:]] == [1, 1]


def test_generator_greedy_asks_once(server):
    server.script = [Reply(body=completion("same"))]
    assert generator(server).generate(study(), "x", temperature=0.0, n=3) == ["same"] * 3
    assert len(server.requests) == 1
    assert server.requests[0]["body"]["n"] == 1
    assert server.requests[0]["body"]["temperature"] == 0.0


def test_key_is_never_shown(server):
    model = llm(server)
    assert SECRET not in repr(model.client)
    assert SECRET not in json.dumps([status.__dict__ for status in registry.describe()])
