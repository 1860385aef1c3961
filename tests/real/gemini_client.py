"""Drive the real Gemini CLI headless, offline, and see what its shell tool may do.

`gemini -p PROMPT` runs one prompt; the hidden flag `--fake-responses FILE` replaces the model
with a script (bundle `FakeContentGenerator`): one JSON object a line, each
`{"method": "generateContentStream", "response": [<GenerateContentResponse>, ...]}`, consumed in
order (strict: a request with no line left, or of another method, is an error). Here each model
turn is one `functionCall` of a tool (by default `run_shell_command` with the next command), and
the last turn answers text. `-m gemini-2.5-flash` names the model so that no routing request
(`generateContent`) is made. `--output-format stream-json` prints one event a line; a
`tool_use` event and its `tool_result` (status `success` | `error`, with `error.type` such as
`policy_violation`) share a `tool_id`.

The run uses a fresh HOME holding ~/.gemini/settings.json (API-key auth, folder trust off, plus
the keys under test) and optionally ~/.gemini/policies/twsrt.toml, an environment built from
scratch (GEMINI_API_KEY=x, no GEMINI_*/GOOGLE_* variable leaks in), TMPDIR inside the run's
directory, GEMINI_CLI_NO_RELAUNCH=1 (no second Node process) and the test session's Node
compile cache (``support.nodecache``). One run with one shell call costs 0.85 s of CPU warm
(1.2 s with the tool sandbox on), mostly loading the bundle; on the machine's Node 20 it cost
1.5 s (1.6 s), which is why .ci/install-gemini.sh runs it on Node 22.
Verified with Gemini CLI 0.61.0 on Node 22 (and earlier on Node 20).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.nodecache import compile_cache_dir
from support.tools import locate_tool, require_tool

DEFAULT_BIN = "/opt/twsrt-tools/gemini/bin/gemini"
VERSION = "0.61.0"
MODEL = "gemini-2.5-flash"
TIMEOUT_S = 120
SHELL = "run_shell_command"
# usage statistics off: with them on, every run probes the GPU (lspci, clinfo, ...) and looks up
# Google's host, so a run would not stay on this machine
BASE_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "privacy": {"usageStatisticsEnabled": False},
}


def gemini_bin() -> str:
    """The Gemini CLI (skips the test when it is missing, fails under CI's
    TWSRT_REQUIRE_REAL_TOOLS=1)."""
    return require_tool("gemini", locate_tool("gemini", "TWSRT_GEMINI_BIN", DEFAULT_BIN))


def bundle_dir(binary: str) -> Path:
    """The installed package's bundle/ (the wrapper of .ci/install-gemini.sh names it)."""
    text = Path(binary).read_text(errors="replace")
    for word in text.split():
        if word.endswith("/bundle/gemini.js"):
            return Path(word).parent
    raise AssertionError(f"{binary} names no bundle/gemini.js")


def merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` merged in, key by key (nested objects merged, others replaced)."""
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            out[key] = merge(old, value)
        else:
            out[key] = value
    return out


def deny_rule(prefix: str, priority: int = 999, decision: str = "deny") -> str:
    """One TOML `[[rule]]` on the shell tool's command prefix."""
    return (
        f'[[rule]]\ntoolName = "{SHELL}"\ncommandPrefix = {json.dumps(prefix)}\n'
        f'decision = "{decision}"\npriority = {priority}\n\n'
    )


@dataclass
class Call:
    """One tool call of the fake model; ``args`` default to a shell command."""

    command: str = ""
    tool: str = SHELL
    args: dict[str, Any] = field(default_factory=dict)

    def function_call(self, index: int) -> dict[str, Any]:
        args = dict(self.args)
        if self.tool == SHELL:
            args = {"command": self.command, "description": f"probe {index}", **args}
        return {"functionCall": {"name": self.tool, "args": args}}


def _turn(parts: list[dict[str, Any]]) -> dict[str, Any]:
    candidate = {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
    return {
        "method": "generateContentStream",
        "response": [{"candidates": [candidate], "usageMetadata": usage}],
    }


def fake_responses(calls: Sequence[Call]) -> str:
    """The `--fake-responses` JSONL: one turn a call, then a text answer."""
    turns = [_turn([call.function_call(i)]) for i, call in enumerate(calls)]
    turns.append(_turn([{"text": "done"}]))
    return "".join(json.dumps(turn) + "\n" for turn in turns)


@dataclass
class Result:
    """What Gemini did with one call: None if it never reported the call."""

    status: str | None
    output: str
    error_type: str | None

    @property
    def denied(self) -> bool:
        return self.error_type == "policy_violation"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    results: list[Result]
    seconds: float


def parse_stream(stdout: str, count: int) -> list[Result]:
    """Pair each tool_use with its tool_result, in call order."""
    order: list[str] = []
    found: dict[str, Result] = {}
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("type") == "tool_use":
            order.append(str(event.get("tool_id")))
        elif event.get("type") == "tool_result":
            error = event.get("error") or {}
            found[str(event.get("tool_id"))] = Result(
                str(event.get("status")), str(event.get("output") or ""), error.get("type")
            )
    results = [found.get(tool_id, Result(None, "", None)) for tool_id in order]
    return results + [Result(None, "", None)] * (count - len(results))


@dataclass
class Setup:
    """A run's files: HOME (settings, policy) and the workspace it starts in."""

    root: Path
    settings: dict[str, Any] = field(default_factory=dict)
    policy: str | None = None

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def workspace(self) -> Path:
        return self.root / "ws"

    def write(self) -> None:
        gemini_dir = self.home / ".gemini"
        gemini_dir.mkdir(parents=True, exist_ok=True)
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        settings = merge(BASE_SETTINGS, self.settings)
        (gemini_dir / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
        if self.policy is not None:
            (gemini_dir / "policies").mkdir(exist_ok=True)
            (gemini_dir / "policies" / "twsrt.toml").write_text(self.policy)


def run_gemini(
    binary: str,
    setup: Setup,
    calls: Sequence[Call],
    *,
    yolo: bool = True,
    path: str | None = None,
    timeout: float = TIMEOUT_S,
) -> Run:
    """Run ``gemini -p`` headless in ``setup.workspace`` with the fake model playing ``calls``."""
    import time

    setup.write()
    script = setup.root / "fake.jsonl"
    script.write_text(fake_responses(calls))
    env = {
        "PATH": path or os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(setup.home),
        "TMPDIR": str(setup.root / "tmp"),
        "GEMINI_API_KEY": "x",
        "GEMINI_CLI_NO_RELAUNCH": "1",
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "NODE_COMPILE_CACHE": compile_cache_dir(),  # the bundle compiled once per process
    }
    argv = [binary, "-m", MODEL, "-p", "Run the scripted commands."]
    argv += ["--fake-responses", str(script), "--output-format", "stream-json"]
    if yolo:
        argv.append("--yolo")
    start = time.monotonic()
    proc = subprocess.run(
        argv,
        cwd=setup.workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    seconds = time.monotonic() - start
    results = parse_stream(proc.stdout, len(calls))
    return Run(proc.returncode, proc.stdout, proc.stderr, results, seconds)


def path_without(tool: str, where: Path) -> str:
    """A PATH of one directory linking every program of $PATH except ``tool``."""
    where.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            link = where / name
            if name == tool or link.exists() or link.is_symlink():
                continue
            target = os.path.join(directory, name)
            if os.path.isfile(target) and os.access(target, os.X_OK):
                link.symlink_to(target)
    return str(where)
