"""Drive the real Qwen Code CLI headless, offline, and see what its tools may do.

`qwen -p PROMPT` runs one prompt. Its model is `support.fake_chat.FakeChat`, a local
OpenAI-compatible chat-completions server: ~/.qwen/settings.json selects the OpenAI-compatible
provider (`security.auth.selectedType = "openai"`), and the environment names the server
(`OPENAI_BASE_URL`, one path per run), a key (`OPENAI_API_KEY`) and a model (`OPENAI_MODEL`).
Each model turn is one tool call of the script (by default `run_shell_command` with the next
command); the last turn answers text. `--output-format stream-json` prints one event a line: an
`assistant` message whose content holds a `tool_use` (id, name, input), then a `user` message
whose `tool_result` (`tool_use_id`, `is_error`, `content`) is what the model is told; the final
`result` event lists `permission_denials` (the tool_use ids a permission rule refused).

The run uses a fresh HOME holding ~/.qwen/settings.json (the provider, auto-update and usage
statistics off, plus the keys under test), optionally a project `.qwen/settings.json` in the
workspace, an environment built from scratch (no QWEN_*/OPENAI_* variable leaks in) and a TMPDIR
inside the run's directory. `QWEN_CODE_SUPPRESS_YOLO_WARNING=1` silences the one stderr line
that `--yolo` without a sandbox prints. One run with one tool call costs about 2.5 s wall alone
on the 2-core test machine (3 s of CPU; the entry script starts a second Node process with
`--expose-gc`), 5-6 s with four calls while other suites load the machine.
Verified with Qwen Code 0.24.4 on Node 22.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.fake_chat import FakeChat
from support.nodecache import compile_cache_dir
from support.side_by_side import side_by_side
from support.tools import locate_tool, require_tool

from .gemini_client import merge

DEFAULT_BIN = "/opt/twsrt-tools/qwen/bin/qwen"
VERSION = "0.24.4"
MODEL = "twsrt-fake-model"
TIMEOUT_S = 120
SHELL = "run_shell_command"
BASE_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "openai"}},
    "general": {"enableAutoUpdate": False},
    "privacy": {"usageStatisticsEnabled": False},
}


def qwen_bin() -> str:
    """The Qwen Code CLI (skips the test when it is missing, fails under CI's
    TWSRT_REQUIRE_REAL_TOOLS=1)."""
    return require_tool("qwen", locate_tool("qwen", "TWSRT_QWEN_BIN", DEFAULT_BIN))


def package_dir(binary: str) -> Path:
    """The installed package (the wrapper of .ci/install-qwen.sh names its cli-entry.js)."""
    text = Path(binary).read_text(errors="replace")
    for word in text.split():
        if word.endswith("/cli-entry.js"):
            return Path(word).parent
    raise AssertionError(f"{binary} names no cli-entry.js")


def permissions(**lists: list[str]) -> dict[str, Any]:
    """A settings fragment ``{"permissions": {"deny": [...], ...}}``."""
    return {"permissions": dict(lists)}


@dataclass
class Call:
    """One tool call of the fake model; a bare string is a shell command."""

    command: str = ""
    tool: str = SHELL
    args: dict[str, Any] = field(default_factory=dict)

    def step(self, index: int) -> dict[str, Any]:
        args = dict(self.args)
        if self.tool == SHELL:
            args = {"command": self.command, "description": f"probe {index}", **args}
        return {"name": self.tool, "arguments": args}

    @property
    def key(self) -> str:
        """What ``Observed.result`` finds the call by: the command, or tool and path."""
        if self.tool == SHELL:
            return self.command
        return f"{self.tool} {self.args.get('file_path', '')}"


def read_file(path: Path | str) -> Call:
    return Call(tool="read_file", args={"file_path": str(path)})


def write_file(path: Path | str, content: str = "WRITTEN\n") -> Call:
    return Call(tool="write_file", args={"file_path": str(path), "content": content})


def edit(path: Path | str, old: str, new: str) -> Call:
    args = {"file_path": str(path), "old_string": old, "new_string": new}
    return Call(tool="edit", args=args)


@dataclass
class Result:
    """What Qwen did with one call: ``status`` None if it never reported the call."""

    status: str | None
    output: str
    denied: bool = False


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    results: list[Result]
    seconds: float
    finished: bool  # a final `result` event was printed


def _events(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _content(event: Mapping[str, Any]) -> list[dict[str, Any]]:
    message = event.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [part for part in content or [] if isinstance(part, dict)]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def parse_stream(stdout: str, count: int) -> tuple[list[Result], bool]:
    """Pair each tool_use with its tool_result, in call order; and whether the run finished."""
    order: list[str] = []
    found: dict[str, Result] = {}
    denied: set[str] = set()
    finished = False
    for event in _events(stdout):
        kind = event.get("type")
        for part in _content(event):
            if kind == "assistant" and part.get("type") == "tool_use":
                order.append(str(part.get("id")))
            elif kind == "user" and part.get("type") == "tool_result":
                status = "error" if part.get("is_error") else "success"
                found[str(part.get("tool_use_id"))] = Result(status, _text(part.get("content")))
        if kind == "result":
            finished = True
            for denial in event.get("permission_denials") or []:
                denied.add(str(denial.get("tool_use_id")))
    results = []
    for tool_id in order:
        result = found.get(tool_id, Result(None, ""))
        result.denied = tool_id in denied
        results.append(result)
    return results + [Result(None, "")] * (count - len(results)), finished


@dataclass
class Setup:
    """A run's files: HOME (user settings) and the workspace it starts in (project settings)."""

    root: Path
    settings: dict[str, Any] = field(default_factory=dict)
    project: dict[str, Any] | None = None

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def workspace(self) -> Path:
        return self.root / "ws"

    @property
    def user_settings(self) -> Path:
        return self.home / ".qwen" / "settings.json"

    def resolve(self, call: Call) -> Call:
        """``call`` with the placeholders HOME/ and WS/ of a file tool's path filled in."""
        path = str(call.args.get("file_path", ""))
        for prefix, where in (("HOME/", self.home), ("WS/", self.workspace)):
            if path.startswith(prefix):
                args = {**call.args, "file_path": str(where / path.removeprefix(prefix))}
                return Call(call.command, call.tool, args)
        return call

    def write(self) -> None:
        self.user_settings.parent.mkdir(parents=True, exist_ok=True)
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        settings = merge(BASE_SETTINGS, self.settings)
        self.user_settings.write_text(json.dumps(settings, indent=2) + "\n")
        if self.project is not None:
            project = self.workspace / ".qwen" / "settings.json"
            project.parent.mkdir(exist_ok=True)
            project.write_text(json.dumps(self.project, indent=2) + "\n")


def run_qwen(
    binary: str,
    fake: FakeChat,
    name: str,
    setup: Setup,
    calls: Sequence[Call],
    *,
    yolo: bool = True,
    path: str | None = None,
    timeout: float = TIMEOUT_S,
    flags: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
) -> Run:
    """Run ``qwen -p`` headless in ``setup.workspace``, the fake model (script ``name`` of
    ``fake``) playing ``calls``, with more command-line ``flags`` and ``extra_env``. The files
    are written unless ``setup.user_settings`` exists."""
    if not setup.user_settings.exists():
        setup.write()
    fake.add(name, [call.step(i) for i, call in enumerate(calls)])
    env = {
        "PATH": path or os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(setup.home),
        "TMPDIR": str(setup.root / "tmp"),
        "OPENAI_API_KEY": "x",
        "OPENAI_BASE_URL": fake.base_url(name),
        "OPENAI_MODEL": MODEL,
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "NODE_COMPILE_CACHE": compile_cache_dir(),  # the bundle compiled once per process
        **(extra_env or {}),
    }
    argv = [binary, "-p", "Run the scripted commands.", "--output-format", "stream-json"]
    if yolo:
        argv.append("--yolo")
    argv += flags
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
    results, finished = parse_stream(proc.stdout, len(calls))
    return Run(proc.returncode, proc.stdout, proc.stderr, results, seconds, finished)


@dataclass
class Observed:
    """One finished run: its files, the calls the fake model made, what Qwen did."""

    setup: Setup
    calls: list[Call]
    run: Run

    def result(self, key: str) -> Result:
        """The result of the first call whose key starts with ``key``."""
        starts = [call.key.startswith(key) for call in self.calls]
        assert any(starts), f"no call {key!r}"
        return self.run.results[starts.index(True)]

    def exists(self, relative: str) -> bool:
        return (self.setup.root / relative).exists()


@contextmanager
def scratch_dir(prefix: str, files: Mapping[str, str] | None = None) -> Iterator[Path]:
    """A fresh directory under /var/tmp (not /tmp: the sandbox makes /tmp read-only), holding
    ``files`` (name: text), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/var/tmp"))
    try:
        for name, text in (files or {}).items():
            (path / name).write_text(text)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


Plans = Mapping[str, tuple[Setup, Sequence[Call], Mapping[str, Any]]]


def run_all(binary: str, fake: FakeChat, plans: Plans) -> dict[str, Observed]:
    """Start every run of ``plans`` (name: files, calls, run_qwen options) at once."""

    def one(name: str) -> Observed:
        setup, calls, options = plans[name]
        return Observed(setup, list(calls), run_qwen(binary, fake, name, setup, calls, **options))

    return side_by_side(plans, one, len(plans))
