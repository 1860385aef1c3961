"""One model turn of the real Codex CLI against a fake Responses API, to see what Codex does with
a command the model asks to run.

``tool_output(codex, config, command, cwd, home)`` starts a local HTTP server that speaks the
streamed Responses API: its first answer is a call of Codex's command tool (``exec_command``, or
``shell`` when Codex offers that) running ``command``; its second answer ends the turn. It runs
``codex exec`` with a model provider pointing at the server (appended to ``config``) and returns
the tool output Codex sent back in the second request: the command's output, or Codex's refusal
(``rejected: <justification>`` for a ``forbidden`` exec-policy rule). Nothing leaves the
machine; each call gets its own server and Codex home (``codex_client``'s layout).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from .codex_client import PLACEHOLDER_RACE, TIMEOUT_S, _env, _layout, _run, serve

RACE_TRIES = 5
RACE_PAUSE_S = 0.5

KEY_VARIABLE = "TWSRT_FAKE_OPENAI_KEY"


def with_provider(config: str, port: int) -> str:
    """``config`` (a config.toml text) with the fake server as its model provider: the keys that
    select it first, its table last, so the user's own keys and tables stay where they were."""
    selected = 'model = "twsrt-fake"\nmodel_provider = "twsrt-fake"\n'
    table = (
        "[model_providers.twsrt-fake]\n"
        'name = "twsrt fake"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'wire_api = "responses"\n'
        f'env_key = "{KEY_VARIABLE}"\n'
    )
    return f"{selected}{config}\n{table}"


def _events(response_id: str, item: dict[str, Any]) -> bytes:
    usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
    events = [
        {"type": "response.created", "response": {"id": response_id}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
    ]
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events
    )


def _call(tools: list[str], command: str) -> dict[str, Any]:
    if "exec_command" in tools:
        name, arguments = "exec_command", {"cmd": command}
    else:
        name, arguments = "shell", {"command": ["bash", "-lc", command]}
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": name,
        "arguments": json.dumps(arguments),
    }


class _Turn:
    def __init__(self, command: str) -> None:
        self.command = command
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def answer(self, body: dict[str, Any]) -> bytes:
        with self.lock:
            self.requests.append(body)
            count = len(self.requests)
        if count == 1:
            tools = [t.get("name", "") for t in body.get("tools", []) if isinstance(t, dict)]
            item = _call(tools, self.command)
        else:
            text = {"type": "output_text", "text": "done"}
            item = {"type": "message", "id": "msg_1", "role": "assistant", "content": [text]}
        return _events(f"resp_{count}", item)

    def outputs(self) -> list[str]:
        return [
            str(entry.get("output", ""))
            for body in self.requests
            for entry in body.get("input", [])
            if isinstance(entry, dict) and entry.get("type") == "function_call_output"
        ]


@contextmanager
def _server(turn: _Turn) -> Iterator[int]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server hook name)
            length = int(self.headers.get("Content-Length", 0))
            data = turn.answer(json.loads(self.rfile.read(length) or b"{}"))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            data = b'{"data": [], "models": []}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    with serve(Handler) as port:
        yield port


def tool_output(
    codex: str,
    config: str,
    command: str,
    cwd: Path,
    home: Path,
    root: Path,
    *,
    user_rules: str | None = None,
) -> str:
    """What Codex answered the model's request to run ``command`` (see the module doc);
    ``root``: an empty directory for Codex's home and temp dir; ``user_rules``: the user's
    ``$CODEX_HOME/rules/twsrt.rules``, if any."""
    # a start that lost the placeholder race is retried after a growing pause (CI saw three
    # back-to-back starts lose it, so a retry at once is not enough), as the engine retries
    for attempt in range(RACE_TRIES):
        where = root / f"attempt-{attempt}"
        where.mkdir()
        try:
            return _one_turn(codex, config, command, cwd, home, where, user_rules)
        except RuntimeError as exc:
            last = attempt == RACE_TRIES - 1
            if last or not any(text in str(exc) for text in PLACEHOLDER_RACE):
                raise
            time.sleep(RACE_PAUSE_S * (attempt + 1))
    raise AssertionError("unreachable")


def _one_turn(
    codex: str,
    config: str,
    command: str,
    cwd: Path,
    home: Path,
    root: Path,
    user_rules: str | None,
) -> str:
    turn = _Turn(command)
    with _server(turn) as port:
        codex_home, tmpdir = _layout(root, with_provider(config, port))
        if user_rules is not None:
            (codex_home / "rules").mkdir()
            (codex_home / "rules" / "twsrt.rules").write_text(user_rules, encoding="utf-8")
        env = {**_env(codex_home, tmpdir, home), KEY_VARIABLE: "twsrt-fake-key"}
        argv = [codex, "exec", "--skip-git-repo-check", f"run {command}"]
        out = _run(argv, env, cwd, TIMEOUT_S).stdout
    outputs = turn.outputs()
    if not outputs:
        raise RuntimeError(f"Codex sent no tool output back:\n{out}")
    return outputs[0]
