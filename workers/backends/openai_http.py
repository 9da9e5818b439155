"""llm and generator roles over an OpenAI-compatible chat-completions server (vLLM, Ollama, ...).

``openai:http://gpu-host:8000/v1?model=NAME&api_key_env=VAR&timeout=60&retries=3&concurrency=4``

* The API key is read from the environment variable that ``api_key_env`` names, when the
  backend loads; it is sent as a bearer token and never logged or shown.
* Timeouts, connection errors, HTTP 5xx, 408 and 429 are retried ``retries`` times with
  exponential backoff (``backoff`` · 2^attempt seconds, or the server's Retry-After); any
  other 4xx fails at once, since repeating the same request cannot help.
* At most ``concurrency`` requests are in flight from one process; ``complete_many`` fans
  out over that many threads.
* Images travel as base64 PNG data URLs in ``image_url`` content parts.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

from .errors import BackendLoadError, BackendRequestError
from .images import study_content, to_png_data_url
from .roles import ImageInput, Message
from .spec import BackendSpec

log = logging.getLogger(__name__)

_MAX_RETRY_AFTER_S = 60.0


def _retryable_status(status: int) -> bool:
    return status >= 500 or status in (408, 429)


class OpenAIClient:
    """POSTs chat-completion bodies with retries, backoff and a per-process concurrency limit."""

    def __init__(self, spec: BackendSpec) -> None:
        self.spec = spec
        self.setting = spec.setting
        self.url = spec.location + "/chat/completions"
        self.shown_url = spec.display_location + "/chat/completions"
        self.model: str = spec.option("model")
        self.timeout: float = spec.option("timeout")
        self.retries: int = spec.option("retries")
        self.backoff: float = spec.option("backoff")
        self.concurrency: int = spec.option("concurrency")
        key_env = spec.option("api_key_env")
        self._api_key = os.environ.get(key_env) if key_env else None
        if key_env and not self._api_key:
            raise BackendLoadError(f"{self.setting}: the environment variable {key_env} "
                                   "(api_key_env) is not set")
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"OpenAIClient({self.shown_url}, model={self.model!r})"

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """One chat-completions call; returns the decoded JSON response."""
        body = {"model": self.model, **body}
        attempts = self.retries + 1
        reason = ""
        for attempt in range(attempts):
            wait = self.backoff * (2 ** attempt)
            try:
                with self._slots:
                    response = self._session().post(self.url, json=body, headers=self._headers(),
                                                     timeout=self.timeout)
            except requests.Timeout:
                reason = f"no answer within {self.timeout:g} s"
            except requests.ConnectionError as exc:
                reason = f"connection failed ({type(exc).__name__})"
            else:
                if response.status_code == 200:
                    try:
                        data = response.json()
                    except ValueError:
                        reason = "the response was not JSON"
                    else:
                        if isinstance(data, dict) and isinstance(data.get("choices"), list):
                            return data
                        reason = "the response has no 'choices' list"
                elif _retryable_status(response.status_code):
                    reason = f"HTTP {response.status_code}"
                    retry_after = response.headers.get("Retry-After", "")
                    if retry_after.replace(".", "", 1).isdigit():
                        wait = min(float(retry_after), _MAX_RETRY_AFTER_S)
                else:
                    raise BackendRequestError(
                        f"{self.setting}: {self.shown_url} refused the request with HTTP "
                        f"{response.status_code}: {response.text[:300]}",
                        status=response.status_code)
            if attempt + 1 < attempts:
                log.warning("%s: %s: %s; retry %d of %d in %.2f s", self.setting,
                            self.shown_url, reason, attempt + 1, self.retries, wait)
                time.sleep(wait)
        raise BackendRequestError(f"{self.setting}: {self.shown_url} failed after {attempts} "
                                  f"attempt{'s' if attempts > 1 else ''}: {reason}")

    @staticmethod
    def choice_texts(response: dict[str, Any]) -> list[str]:
        choices = sorted(response["choices"], key=lambda choice: choice.get("index", 0))
        texts = []
        for choice in choices:
            message = choice.get("message") or {}
            content = message.get("content")
            if isinstance(content, list):  # some servers return content parts
                content = "".join(part.get("text", "") for part in content
                                  if isinstance(part, dict))
            texts.append((content or "").strip())
        return texts


class OpenAITextModel:
    """``TextModel`` over an OpenAI-compatible server."""

    def __init__(self, spec: BackendSpec) -> None:
        self.client = OpenAIClient(spec)
        self.name: str = spec.option("name") or self.client.model
        self.response_format: str = spec.option("response_format")

    def _body(self, messages: list[Message], temperature: float, top_p: float, max_tokens: int,
              json_schema: dict | None) -> dict[str, Any]:
        body: dict[str, Any] = {"messages": messages, "temperature": float(temperature),
                                "top_p": float(top_p), "max_tokens": int(max_tokens), "n": 1}
        if json_schema is not None and self.response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        elif json_schema is not None and self.response_format == "json_schema":
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "reply", "schema": json_schema}}
        return body

    def complete(self, messages: list[Message], *, temperature: float = 0.0, top_p: float = 1.0,
                 max_tokens: int = 512, json_schema: dict | None = None) -> str:
        response = self.client.chat(self._body(messages, temperature, top_p, max_tokens,
                                               json_schema))
        texts = self.client.choice_texts(response)
        if not texts:
            raise BackendRequestError(f"{self.client.setting}: the server returned no choices")
        return texts[0]

    def complete_many(self, conversations: list[list[Message]], *, temperature: float = 0.0,
                      top_p: float = 1.0, max_tokens: int = 512,
                      json_schema: dict | None = None) -> list[str]:
        if len(conversations) <= 1:
            return [self.complete(messages, temperature=temperature, top_p=top_p,
                                  max_tokens=max_tokens, json_schema=json_schema)
                    for messages in conversations]
        with ThreadPoolExecutor(max_workers=min(self.client.concurrency,
                                                len(conversations))) as pool:
            return list(pool.map(lambda messages: self.complete(
                messages, temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                json_schema=json_schema), conversations))


class OpenAIGenerator:
    """``Generator`` over an OpenAI-compatible server with image input.

    The n samples are asked for in one request (``n``); when the server returns fewer
    choices, or refuses n > 1, the missing samples come from single-sample requests.
    """

    def __init__(self, spec: BackendSpec) -> None:
        self.client = OpenAIClient(spec)
        self.name: str = spec.option("name") or self.client.model
        self.max_image_side: int = spec.option("max_image_side")
        self._n_refused = False

    def _messages(self, images: list[ImageInput], prompt: str) -> list[Message]:
        def image_part(image: ImageInput) -> dict[str, Any]:
            return {"type": "image_url",
                    "image_url": {"url": to_png_data_url(image.pixels, self.max_image_side)}}
        return [{"role": "user", "content": study_content(images, prompt, image_part)}]

    def _request(self, messages: list[Message], temperature: float, n: int,
                 max_tokens: int) -> list[str]:
        body = {"messages": messages, "temperature": float(temperature), "top_p": 1.0,
                "max_tokens": int(max_tokens), "n": n}
        return self.client.choice_texts(self.client.chat(body))

    def generate(self, images: list[ImageInput], prompt: str, *, temperature: float, n: int,
                 max_tokens: int = 256) -> list[str]:
        if not images:
            raise ValueError("generate() needs at least one image")
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        messages = self._messages(images, prompt)
        if temperature <= 0:
            reports = self._request(messages, 0.0, 1, max_tokens)
            if not reports:
                raise BackendRequestError(f"{self.client.setting}: the server returned no choices")
            return reports[:1] * n
        reports: list[str] = []
        if n > 1 and not self._n_refused:
            try:
                reports = self._request(messages, temperature, n, max_tokens)[:n]
            except BackendRequestError as exc:
                if exc.status not in (400, 422):
                    raise
                log.warning("%s: the server refused n=%d (%s); asking one sample at a time",
                            self.client.setting, n, exc.status)
                self._n_refused = True
        missing = n - len(reports)
        if missing > 0:
            with ThreadPoolExecutor(max_workers=min(self.client.concurrency, missing)) as pool:
                singles = list(pool.map(
                    lambda _: self._request(messages, temperature, 1, max_tokens), range(missing)))
            for texts in singles:
                if not texts:
                    raise BackendRequestError(f"{self.client.setting}: the server returned no "
                                              "choices")
                reports.append(texts[0])
        return reports
