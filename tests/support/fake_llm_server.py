"""A small OpenAI-compatible chat-completions server for tests, scripted per request."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion(*texts: str) -> dict[str, Any]:
    return {"id": "cmpl-1", "object": "chat.completion", "model": "fake",
            "choices": [{"index": i, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"} for i, text in enumerate(texts)]}


class Reply:
    """What the server does for one request."""

    def __init__(self, status: int = 200, body: Any = None, *, raw: str | None = None,
                 delay: float = 0.0, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.raw = raw
        self.delay = delay
        self.headers = headers or {}


class FakeServer:
    """Answers POST /v1/chat/completions from a script: a list of Reply objects used in turn
    (the last one repeats), or a function of the request body. Records every request."""

    def __init__(self) -> None:
        self.script: list[Reply] | Callable[[dict], Reply] = [Reply(body=completion("ok"))]
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers),
                                            "body": body})
                    index = len(server.requests) - 1
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    reply = server._reply(index, body)
                    time.sleep(reply.delay)
                finally:
                    # Counted out before the answer is written: a client that sends its next
                    # request as soon as it reads this answer must not find this one counted.
                    with server._lock:
                        server.in_flight -= 1
                try:
                    payload = (reply.raw if reply.raw is not None
                               else json.dumps(reply.body)).encode()
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)

    def _reply(self, index: int, body: dict) -> Reply:
        if callable(self.script):
            return self.script(body)
        return self.script[min(index, len(self.script) - 1)]

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
