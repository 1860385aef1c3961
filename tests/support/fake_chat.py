"""A fake OpenAI-compatible chat-completions server on 127.0.0.1 that replays scripted tool calls.

An agent that speaks the OpenAI chat API (``POST <base>/chat/completions``) is pointed at
``FakeChat.base_url(name)`` = ``http://127.0.0.1:PORT/<name>/v1``; the server answers each request
of script ``name`` with its next step: the n-th answer is a call of tool ``steps[n]`` (a
``{"name": ..., "arguments": {...}}`` dict), and once the steps are used up it answers
``FINAL_TEXT``. The step is chosen from the request itself (the number of assistant tool calls in
its ``messages``), not from a counter, so a retried or repeated request gets the same answer and
many runs can share one server at once, each under its own name. Answers are streamed as
server-sent events when the request asks for ``stream`` (with a final usage chunk), else one JSON
body.

Every other request (a GET, a POST elsewhere) is answered ``200 ok`` and its path recorded in
``hits``: the server doubles as the network target of sandbox probes (``curl .../probe``).
``tool_results(name)`` is what the model of script ``name`` was last told each call returned
(the ``tool`` messages of its latest request, by call id), read from the agent's own request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "done"
COMPLETIONS = "/v1/chat/completions"


def tool_calls_so_far(messages: Sequence[Mapping[str, Any]]) -> int:
    """How many tool calls the assistant already made in this conversation."""
    return sum(len(m.get("tool_calls") or []) for m in messages if m.get("role") == "assistant")


def answer(steps: Sequence[Mapping[str, Any]], body: Mapping[str, Any]) -> dict[str, Any]:
    """The assistant message (plus finish reason) for one request of a script."""
    index = tool_calls_so_far(body.get("messages") or [])
    if index >= len(steps):
        return {"message": {"role": "assistant", "content": FINAL_TEXT}, "finish": "stop"}
    step = steps[index]
    call = {
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": step["name"], "arguments": json.dumps(step["arguments"])},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"message": message, "finish": "tool_calls"}


def _chunk(model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {
        "id": "fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [choice],
    }


USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


def sse_events(model: str, reply: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The streamed form of ``reply``: the message as one delta, then the finish and usage."""
    message = dict(reply["message"])
    delta: dict[str, Any] = {"role": "assistant"}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(message["tool_calls"])]
    else:
        delta["content"] = message.get("content") or ""
    last = _chunk(model, {}, reply["finish"])
    last["usage"] = USAGE
    return [_chunk(model, delta, None), last]


class FakeChat:
    """The server: ``add(name, steps)`` before the agent starts; ``hits`` lists other requests."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[dict[str, Any]]] = {}
        self.hits: list[str] = []
        self.requests: dict[str, int] = {}
        self.latest: dict[str, list[Any]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def add(self, name: str, steps: Sequence[Mapping[str, Any]]) -> None:
        if "/" in name or not name:
            raise ValueError(f"script name {name!r} must be one path segment")
        self.scripts[name] = [dict(step) for step in steps]

    def base_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}/v1"

    def url(self, path: str) -> str:
        """A URL of this server outside every script (a network probe's target)."""
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def count(self, name: str) -> None:
        with self._lock:
            self.requests[name] = self.requests.get(name, 0) + 1

    def record(self, name: str, body: Mapping[str, Any]) -> None:
        with self._lock:
            self.latest[name] = list(body.get("messages") or [])

    def tool_results(self, name: str) -> dict[str, str]:
        """Call id -> the text of its tool message, in the latest request of script ``name``."""
        results = {}
        for message in self.latest.get(name, []):
            if isinstance(message, dict) and message.get("role") == "tool":
                content = message.get("content")
                if isinstance(content, list):  # content parts
                    content = "".join(
                        str(p.get("text", "")) for p in content if isinstance(p, dict)
                    )
                results[str(message.get("tool_call_id"))] = str(content or "")
        return results

    def hit(self, path: str) -> None:
        with self._lock:
            self.hits.append(path)

    @contextmanager
    def serving(self) -> Iterator[FakeChat]:
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join(timeout=5)


def _handler(fake: FakeChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 (the http.server hook name)
            fake.hit(self.path)
            self._send(200, "text/plain", b"ok")

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            name, _, rest = self.path.lstrip("/").partition("/")
            steps = fake.scripts.get(name)
            if steps is None or "/" + rest != COMPLETIONS:
                fake.hit(self.path)
                self._send(200, "text/plain", b"ok")
                return
            fake.count(name)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, "application/json", b'{"error": "bad json"}')
                return
            fake.record(name, body)
            reply = answer(steps, body)
            model = str(body.get("model") or "fake")
            if body.get("stream"):
                events = sse_events(model, reply)
                text = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
                self._send(200, "text/event-stream", text.encode())
                return
            choice = {"index": 0, "message": reply["message"], "finish_reason": reply["finish"]}
            whole = {
                "id": "fake",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [choice],
                "usage": USAGE,
            }
            self._send(200, "application/json", json.dumps(whole).encode())

        def _send(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    return Handler
