"""Drive the real Factory Droid CLI headless, offline, and see what its tools may do.

`droid exec -o stream-json -m custom:fake-model PROMPT` runs one prompt with no Factory login:
~/.factory/settings.json lists the fake server as a BYOK model (``customModels``: model,
``baseUrl``, a dummy ``apiKey``, ``provider: generic-chat-completion-api``). Its model is
`support.fake_chat.FakeChat`; each model turn is one tool call of the script (by default
``Execute`` with a command and the ``riskLevel`` the model claims); the last turn answers text.
A call's result is what the fake model was told in Droid's next request (the ``tool`` message
of that call id), and marks on disk. Without ``--auto`` exec runs read-only; a call it may not
run ends the exec early (status 1, an ``error`` event), so the fake model gets no later request.

The run uses a fresh HOME holding ~/.factory/settings.json (the model, plus the keys under
test), optionally a project ``.factory/settings.json`` in the workspace, an environment built
from scratch and a TMPDIR inside the run's directory; Factory's API and telemetry URLs point at a
closed local port. Verified with Droid 0.225.2
(@factory/cli-linux-x64).
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
from support.side_by_side import side_by_side
from support.tools import locate_tool, require_tool

from .gemini_client import merge

DEFAULT_BIN = "/opt/twsrt-tools/droid/bin/droid"
VERSION = "0.225.2"
MODEL = "fake-model"
TIMEOUT_S = 180
EXECUTE = "Execute"
# Droid calls Factory's API (feature flags, org-managed settings, session sync, usage of a
# custom model) and its telemetry host on every run; a closed local port keeps that off the
# network, as it is on a machine without one (each call fails and is logged, the run goes on)
NO_FACTORY = "http://127.0.0.1:9"


def droid_bin() -> str:
    """The Droid wrapper (skips the test when it is missing, fails under CI's
    TWSRT_REQUIRE_REAL_TOOLS=1)."""
    return require_tool("droid", locate_tool("droid", "TWSRT_DROID_BIN", DEFAULT_BIN))


@dataclass
class Call:
    """One tool call of the fake model: ``Execute`` (a command and the risk the model claims)
    or another tool with its arguments."""

    command: str = ""
    risk: str = "low"
    tool: str = EXECUTE
    args: dict[str, Any] = field(default_factory=dict)

    def arguments(self) -> dict[str, Any]:
        if self.tool != EXECUTE:
            return dict(self.args)
        return {"command": self.command, "riskLevel": self.risk, "riskLevelReason": "probe"}

    @property
    def key(self) -> str:
        return self.command if self.tool == EXECUTE else f"{self.tool} {self.args['file_path']}"


# srt inside Droid starts the bridge to its proxy (socat on 127.0.0.1:3128 in the sandbox's
# network namespace) in the background of each command, so a request made before it listens
# fails with "Failed to connect to localhost port 3128" (seen under load). A network probe
# waits for the bridge first: at most 5 s, and without a sandbox it never listens, so the probe
# runs after the wait.
PROXY_WAIT = (
    "w=0; until (exec 3<>/dev/tcp/127.0.0.1/3128) 2>/dev/null || [ $w -ge 50 ]; "
    "do sleep 0.1; w=$((w+1)); done; "
)


def after_proxy(command: str) -> str:
    """``command`` once Droid's in-sandbox proxy bridge listens (``PROXY_WAIT``)."""
    return PROXY_WAIT + command


def read(path: Path | str) -> Call:
    return Call(tool="Read", args={"file_path": str(path)})


def create(path: Path | str, content: str = "WRITTEN\n") -> Call:
    return Call(tool="Create", args={"file_path": str(path), "content": content})


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
        return self.home / ".factory" / "settings.json"

    def write(self) -> None:
        """The directories and the project file (the user file comes with each run)."""
        self.user_settings.parent.mkdir(parents=True, exist_ok=True)
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        if self.project is not None:
            (self.workspace / ".factory").mkdir(exist_ok=True)
            text = json.dumps(self.project, indent=2) + "\n"
            (self.workspace / ".factory" / "settings.json").write_text(text)

    def point_at(self, base_url: str) -> None:
        model = {
            "model": MODEL,
            "displayName": MODEL,
            "baseUrl": base_url,
            "apiKey": "x",
            "provider": "generic-chat-completion-api",
        }
        settings = merge({"customModels": [model]}, self.settings)
        self.user_settings.write_text(json.dumps(settings, indent=2) + "\n")


@dataclass
class Run:
    finished: Finished
    results: list[str | None]  # what the model was told each call returned; None: never told
    events: list[dict[str, Any]]

    @property
    def returncode(self) -> int:
        return self.finished.returncode

    @property
    def ended_early(self) -> str | None:
        """The message of exec's ``error`` event (a call it may not run), if any."""
        for event in self.events:
            if event.get("type") == "error":
                return str(event.get("message"))
        return None


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


def run_droid(
    binary: str,
    fake: FakeChat,
    name: str,
    setup: Setup,
    calls: Sequence[Call],
    *,
    auto: str | None = "high",
    path: str | None = None,
    flags: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
    timeout: float = TIMEOUT_S,
) -> Run:
    """Run ``droid exec`` in ``setup.workspace`` (``--auto auto``; None: the read-only
    default), the fake model (script ``name``) playing ``calls``. The files are written unless
    ~/.factory exists."""
    fake.add(name, [{"name": c.tool, "arguments": c.arguments()} for c in calls])
    if not setup.user_settings.parent.exists():
        setup.write()
    setup.point_at(fake.base_url(name))
    env = {
        "PATH": path or os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(setup.home),
        "TMPDIR": str(setup.root / "tmp"),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        "FACTORY_API_BASE_URL": NO_FACTORY,
        "FACTORY_TELEMETRY_INGEST_BASE_URL": NO_FACTORY,
        **(extra_env or {}),
    }
    argv = [binary, "exec", "-o", "stream-json", "-m", f"custom:{MODEL}"]
    if auto is not None:
        argv += ["--auto", auto]
    argv += [*flags, "Run the scripted tool calls."]
    finished = run_measured(argv, setup.workspace, env, timeout)
    told = fake.tool_results(name)
    events = _events(finished.stdout)
    results = [told.get(f"call_{i}") for i in range(len(calls))]
    for event in events:  # a call that ended the exec is never sent back: take Droid's event
        index = str(event.get("id", "")).removeprefix("call_")
        if event.get("type") != "tool_result" or not index.isdigit() or int(index) >= len(calls):
            continue
        if results[int(index)] is None:
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else event.get("value")
            results[int(index)] = str(message)
    return Run(finished, results, events)


@dataclass
class Observed:
    """One finished run: its files, the calls the fake model made, what Droid did."""

    setup: Setup
    calls: list[Call]
    run: Run

    def result(self, key: str) -> str:
        """What the first call whose key starts with ``key`` returned."""
        starts = [call.key.startswith(key) for call in self.calls]
        assert any(starts), f"no call {key!r}"
        told = self.run.results[starts.index(True)]
        assert told is not None, f"call {key!r} got no result: {self.run.finished.stdout[-2000:]}"
        return told

    def exists(self, relative: str) -> bool:
        return os.path.lexists(self.setup.root / relative)


Plans = Mapping[str, tuple[Setup, Sequence[Call], Mapping[str, Any]]]


def run_all(binary: str, fake: FakeChat, plans: Plans, workers: int = 3) -> dict[str, Observed]:
    """Run every plan (name: files, calls, run_droid options), ``workers`` at a time."""

    def one(name: str) -> Observed:
        setup, calls, options = plans[name]
        return Observed(setup, list(calls), run_droid(binary, fake, name, setup, calls, **options))

    return side_by_side(plans, one, workers)
