"""Drive the real pi coding agent headless, offline, with its sandbox extension, and see what
its tools may do.

`pi --mode json --no-session --provider fake --model fake-model -e EXT PROMPT` runs one prompt
and prints one JSON event a line. Its model is `support.fake_chat.FakeChat`: ~/.pi/agent/
models.json declares a provider ``fake`` (``api: openai-completions``, the fake server's base
URL, a dummy key) with one model. Each model turn is one tool call of the script (pi offers
``read bash edit write``); the last turn answers text. A call's result is what the fake model
was told in pi's next request (the ``tool`` message of that call id), and marks on disk.

The run uses a fresh HOME (~/.pi/agent/models.json, plus the extension's global file when the
test gives one), a workspace it starts in (optionally with a project ``.pi/sandbox.json``), an
environment built from scratch with ``PI_OFFLINE=1`` (no catalog refresh, no version check) and
a TMPDIR inside the run's directory. ``EXT`` is the sandbox example shipped in the pinned
package (.ci/install-pi.sh links it at PREFIX/sandbox-extension); without ``-e`` pi's own bash
tool runs, unsandboxed (the control). Verified with pi 1.4.0 (@earendil-works/pi-coding-agent)
on Node 22, the example's srt 0.0.26.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.fake_chat import FakeChat
from support.measured import Finished, run_measured
from support.nodecache import compile_cache_dir
from support.side_by_side import side_by_side
from support.tools import locate_tool, require_tool

DEFAULT_BIN = "/opt/twsrt-tools/pi/bin/pi"
VERSION = "1.4.0"
SRT_VERSION = "0.0.26"
MODEL = "fake-model"
PROVIDER = "fake"
TIMEOUT_S = 180
GLOBAL_FILE = "extensions/sandbox.json"  # under ~/.pi/agent: the pinned example's global file
LEGACY_FILE = "sandbox.json"  # under ~/.pi/agent: the path of examples before pi-mono #2009


def pi_bin() -> str:
    """The pi wrapper (skips the test when it is missing, fails under CI's
    TWSRT_REQUIRE_REAL_TOOLS=1)."""
    return require_tool("pi", locate_tool("pi", "TWSRT_PI_BIN", DEFAULT_BIN))


def package_dir(binary: str) -> Path:
    """The installed package (the wrapper of .ci/install-pi.sh names its dist/bundle/cli.js)."""
    for word in Path(binary).read_text(errors="replace").split():
        if word.endswith("/dist/bundle/cli.js"):
            return Path(word).parents[2]
    raise AssertionError(f"{binary} names no dist/bundle/cli.js")


def extension_dir(binary: str) -> Path:
    """The sandbox example inside the installed package."""
    path = package_dir(binary) / "examples" / "extensions" / "sandbox"
    assert (path / "index.ts").is_file(), f"no sandbox extension at {path}"
    return path


@dataclass
class Call:
    """One tool call of the fake model: ``bash`` with a command, or a file tool with a path."""

    command: str = ""
    tool: str = "bash"
    args: dict[str, Any] = field(default_factory=dict)

    def arguments(self) -> dict[str, Any]:
        return {"command": self.command} if self.tool == "bash" else dict(self.args)

    @property
    def key(self) -> str:
        return self.command if self.tool == "bash" else f"{self.tool} {self.args.get('path')}"


def read(path: Path | str) -> Call:
    return Call(tool="read", args={"path": str(path)})


def write(path: Path | str, content: str = "WRITTEN\n") -> Call:
    return Call(tool="write", args={"path": str(path), "content": content})


def edit(path: Path | str, old: str, new: str) -> Call:
    return Call(tool="edit", args={"path": str(path), "edits": [{"oldText": old, "newText": new}]})


@dataclass
class Setup:
    """A run's files: HOME (models.json, the extension's global file) and the workspace."""

    root: Path
    sandbox: dict[str, Any] | None = None  # the extension's global file, None: no file
    sandbox_file: str = GLOBAL_FILE
    project: dict[str, Any] | None = None  # the workspace's .pi/sandbox.json

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def workspace(self) -> Path:
        return self.root / "ws"

    @property
    def agent_dir(self) -> Path:
        return self.home / ".pi" / "agent"

    def write(self) -> None:
        """The extension's files and the directories (models.json comes with each run)."""
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        if self.sandbox is not None:
            target = self.agent_dir / self.sandbox_file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(self.sandbox, indent=2) + "\n")
        if self.project is not None:
            (self.workspace / ".pi").mkdir(exist_ok=True)
            text = json.dumps(self.project, indent=2) + "\n"
            (self.workspace / ".pi" / "sandbox.json").write_text(text)

    def point_at(self, base_url: str) -> None:
        """models.json: the one provider, the fake server under this run's script."""
        model = {"id": MODEL, "name": MODEL, "input": ["text"], "contextWindow": 32000}
        provider = {"baseUrl": base_url, "api": "openai-completions", "apiKey": "x"}
        models = {"providers": {PROVIDER: {**provider, "models": [model]}}}
        (self.agent_dir / "models.json").write_text(json.dumps(models, indent=2) + "\n")


@dataclass
class Run:
    finished: Finished
    results: list[str | None]  # what the model was told each call returned; None: never told
    events: list[dict[str, Any]]

    @property
    def returncode(self) -> int:
        return self.finished.returncode


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


def run_pi(
    binary: str,
    fake: FakeChat,
    name: str,
    setup: Setup,
    calls: Sequence[Call],
    *,
    extension: bool = True,
    path: str | None = None,
    flags: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
    timeout: float = TIMEOUT_S,
) -> Run:
    """Run pi headless in ``setup.workspace``, the fake model (script ``name``) playing
    ``calls``, with the sandbox extension unless ``extension`` is false. The files are written
    unless ~/.pi/agent exists: a later run in the same directories keeps what earlier ones
    left there."""
    fake.add(name, [{"name": c.tool, "arguments": c.arguments()} for c in calls])
    if not setup.agent_dir.exists():
        setup.write()
    setup.point_at(fake.base_url(name))
    env = {
        "PATH": path or os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(setup.home),
        "TMPDIR": str(setup.root / "tmp"),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "NODE_COMPILE_CACHE": compile_cache_dir(),
        **(extra_env or {}),
    }
    moved = env.get("PI_CODING_AGENT_DIR")
    if moved:  # an agent dir elsewhere: it gets the provider too, and nothing else
        Path(moved).mkdir(parents=True, exist_ok=True)
        (Path(moved) / "models.json").write_text((setup.agent_dir / "models.json").read_text())
    argv = [binary, "--mode", "json", "--no-session", "--provider", PROVIDER, "--model", MODEL]
    if extension:
        argv += ["-e", str(extension_dir(binary))]
    # the prompt before ``flags``: an extension's boolean flag (--no-sandbox) would take the
    # next word as its value
    argv += ["Run the scripted tool calls.", *flags]
    finished = run_measured(argv, setup.workspace, env, timeout)
    told = fake.tool_results(name)
    results = [told.get(f"call_{i}") for i in range(len(calls))]
    return Run(finished, results, _events(finished.stdout))


@dataclass
class Observed:
    """One finished run: its files, the calls the fake model made, what pi did."""

    setup: Setup
    calls: list[Call]
    run: Run

    def result(self, key: str) -> str:
        """What the model was told by the first call whose key starts with ``key``."""
        starts = [call.key.startswith(key) for call in self.calls]
        assert any(starts), f"no call {key!r}"
        told = self.run.results[starts.index(True)]
        assert told is not None, f"call {key!r} got no result: {self.run.finished.stderr[-2000:]}"
        return told

    def exists(self, relative: str) -> bool:
        return os.path.lexists(self.setup.root / relative)


Plans = Mapping[str, tuple[Setup, Sequence[Call], Mapping[str, Any]]]


def run_all(binary: str, fake: FakeChat, plans: Plans, workers: int = 3) -> dict[str, Observed]:
    """Run every plan (name: files, calls, run_pi options), ``workers`` at a time."""

    def one(name: str) -> Observed:
        setup, calls, options = plans[name]
        return Observed(setup, list(calls), run_pi(binary, fake, name, setup, calls, **options))

    return side_by_side(plans, one, workers)
