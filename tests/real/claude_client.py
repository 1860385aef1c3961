"""Drive the real Claude Code CLI headless, offline, and see what its Bash tool may do.

`claude -p` runs one prompt against the Messages API named by ANTHROPIC_BASE_URL. Here that is
FakeMessagesAPI, a local HTTP server that plays the model: while the request offers the Bash tool
it answers each turn with a `tool_use` of Bash running the next scripted command, and once every
command has its `tool_result` it ends the turn with text. The results are the command outputs as
Claude's Bash tool returned them, so whatever Claude's sandbox (or its permission rules) did to a
command shows there, not what a settings validator thinks.

The run uses a fresh HOME holding the settings under test as ~/.claude/settings.json, an
environment built from scratch (no CLAUDE_*/ANTHROPIC_* variable leaks in), no network, and
`--allowedTools Bash` so that a command runs without a prompt (deny rules still win over it; the
fake model asks for `dangerouslyDisableSandbox` only when a test says so). One start takes about
a second.
Verified with Claude Code 2.1.332 (streaming SSE; the minimal event sequence below suffices).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from support.tools import locate_tool, require_tool

DEFAULT_BIN = "/opt/twsrt-tools/claude/bin/claude"
TIMEOUT_S = 120
PROMPT = "Run the scripted commands."


def find_claude() -> str:
    """The Claude Code CLI (skips the test when it is missing, fails under CI's
    TWSRT_REQUIRE_REAL_TOOLS=1)."""
    return require_tool("claude", locate_tool("claude", "TWSRT_CLAUDE_BIN", DEFAULT_BIN))


@dataclass
class Script:
    """What the fake model does: one Bash call per command, in order (or, with ``tool``, one
    call of that tool per entry of ``inputs``)."""

    commands: list[str]
    tool_input: dict[str, Any] = field(default_factory=dict)  # more Bash input for every call
    tool: str = "Bash"
    inputs: list[dict[str, Any]] = field(default_factory=list)  # the calls of a non-Bash tool
    results: dict[str, str] = field(default_factory=dict)  # tool_use id -> result text
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """The content blocks and stop reason of the next assistant turn."""
        with self.lock:
            self.requests.append(body)
            done = self._collect(body.get("messages") or [])
        tools = {tool.get("name") for tool in body.get("tools") or []}
        if self.tool in tools and done < self._calls():
            if self.tool == "Bash":
                call = {"command": self.commands[done], "description": f"probe {done}"}
                call.update(self.tool_input)
            else:
                call = dict(self.inputs[done])
            block = {
                "type": "tool_use",
                "id": f"toolu_{done:04d}",
                "name": self.tool,
                "input": call,
            }
            return [block], "tool_use"
        return [{"type": "text", "text": "done"}], "end_turn"

    def _calls(self) -> int:
        return len(self.commands) if self.tool == "Bash" else len(self.inputs)

    def _collect(self, messages: list[dict[str, Any]]) -> int:
        count = 0
        for message in messages:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self.results[str(block.get("tool_use_id"))] = _text(block.get("content"))
                    count += 1
        return count

    def outputs(self) -> list[str | None]:
        """Each command's tool result, None for a command Claude never ran."""
        return [self.results.get(f"toolu_{i:04d}") for i in range(self._calls())]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def _events(body: dict[str, Any], blocks: list[dict[str, Any]], stop: str) -> bytes:
    """A Messages API stream: message_start, one start/delta/stop per block, message_delta."""
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (the http.server hook name)
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                body = {}
            if "count_tokens" in self.path:
                self._send("application/json", b'{"input_tokens": 1}')
                return
            blocks, stop = script.reply(body)
            if body.get("stream"):
                self._send("text/event-stream", _events(body, blocks, stop))
                return
            message = {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "fake"),
                "content": blocks,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
            self._send("application/json", json.dumps(message).encode())

        def do_GET(self) -> None:  # noqa: N802
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

        def _send(self, kind: str, data: bytes) -> None:
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    return Handler


@contextmanager
def fake_messages_api(script: Script) -> Iterator[str]:
    """A local Messages API playing ``script``; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def claude_env(home: Path, base_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A from-scratch environment: offline, no updater, no onboarding, a dummy API key."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "dummy-key-for-a-local-fake",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    env.update(extra or {})
    return env


@dataclass
class BashRun:
    outputs: list[str | None]  # per command: the Bash tool's result text (None: never ran)
    stdout: str  # claude's own JSON result
    returncode: int
    requests: list[dict[str, Any]] = field(default_factory=list)  # what the fake model was sent


def run_bash(
    claude_bin: str,
    settings: Mapping[str, Any] | str | Path | None,
    commands: list[str],
    home: Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    tool_input: Mapping[str, Any] | None = None,
    tool: str = "Bash",
    inputs: list[dict[str, Any]] | None = None,
    argv_extra: list[str] | None = None,
    allow_tool: bool = True,
) -> BashRun:
    """Start ``claude -p`` with ``settings`` as the user settings of ``home`` (a dict, JSON text
    or a file to copy; None: whatever ``home`` holds, such as a stowed link, left untouched) and
    have its Bash tool run ``commands`` in ``cwd``, one tool call each (``tool_input`` adds to
    every call, e.g. ``{"dangerouslyDisableSandbox": True}``). With ``tool`` (``"Write"``,
    ``"Edit"``) the fake model calls that tool once per entry of ``inputs`` instead, and only
    that tool is allowed unasked (unless ``allow_tool`` is false: then the settings and the
    permission mode decide); ``argv_extra`` goes after the harness's own arguments.
    Raises RuntimeError when Claude could not be driven at all."""
    settings_path = home / ".claude" / "settings.json"
    if settings is not None:
        settings_path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(settings, Path):
            shutil.copyfile(settings, settings_path)
        else:
            text = settings if isinstance(settings, str) else json.dumps(settings, indent=2)
            settings_path.write_text(text, encoding="utf-8")
    script = Script(list(commands), dict(tool_input or {}), tool, list(inputs or []))
    argv = [claude_bin, "-p", PROMPT, "--output-format", "json"]
    argv += (["--allowedTools", tool] if allow_tool else []) + (argv_extra or [])
    with fake_messages_api(script) as url:
        try:
            proc = subprocess.run(
                argv,
                cwd=cwd,
                env=claude_env(home, url, env),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
            )
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"claude -p timed out after {TIMEOUT_S}s") from exc
    if not script.requests:
        raise RuntimeError(
            f"claude never called the fake API (exit {proc.returncode}):\n"
            f"{proc.stdout}\n{proc.stderr}"
        )
    return BashRun(script.outputs(), proc.stdout, proc.returncode, list(script.requests))
