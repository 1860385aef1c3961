"""Drive the real OpenCode CLI or its fork, the Kilo Code CLI, headless and offline, and see
what its tools may do.

``opencode run --format json PROMPT`` (``kilo run ...``) answers one prompt and prints one JSON
event a line; a ``tool_use`` event carries the call's ``callID`` and its final ``state``:
``completed`` with the ``output`` the model is told, or ``error`` with the ``error`` text (a deny
rule: "The user has specified a rule which prevents you from using this specific tool call";
an ``ask`` that the headless run answers "reject": "The user rejected permission to use this
specific tool call."). The model is ``support.fake_chat.FakeChat``, configured as an
OpenAI-compatible provider (``provider.fake.npm = "@ai-sdk/openai-compatible"`` with
``options.baseURL``) in the user file; each model turn is one scripted tool call (``call_<n>``).

Every run gets a fresh HOME with the XDG directories and TMPDIR inside the run's directory, and
an environment built from scratch, so no OPENCODE_*/KILO_* variable leaks in. Network besides
the fake model is off: auto-update, model-catalogue fetches, sharing and LSP downloads by
environment, Kilo's own gateway providers by ``enabled_providers``, its telemetry by
``KILO_TELEMETRY_LEVEL=off``; the background ``npm install`` of their plugin package that
both run in their config directory (and in every ``.opencode``/``.kilo`` directory) is skipped
because that directory already holds a ``node_modules`` and a lock file naming the package;
``--title`` skips the title request; ``"snapshot": false`` skips the git snapshots of the
workspace. One OpenCode run costs about 3.7 s of CPU, a Kilo run about 8.5 s (measured alone on
the 2-core test machine; most of it is the runtime itself, not work a setting switches off).
Verified with OpenCode 1.18.33 and Kilo 7.7.7.
"""

from __future__ import annotations

import json
import os
import re
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
from support.side_by_side import side_by_side
from support.tools import locate_tool, require_tool

from .gemini_client import merge

TIMEOUT_S = 180
MODEL_ID = "fake-model"
DENIED_TEXT = "The user has specified a rule which prevents you from using this specific tool call"
REJECTED_TEXT = "The user rejected permission to use this specific tool call"
UNAVAILABLE_TEXT = "Model tried to call unavailable tool"


@dataclass(frozen=True)
class Agent:
    """What differs between OpenCode and Kilo: names of files, variables and the binary."""

    name: str
    version: str
    env: str  # the prefix of its variables: OPENCODE_CONFIG_CONTENT, KILO_PERMISSION, ...
    bin_env: str
    default_bin: str
    user_file: str  # in ~/.config/<name>/
    project_file: str  # in the workspace
    dot_dir: str  # the project directory whose <name>.json(c) is also read

    def binary(self) -> str:
        """The CLI (skips the test when missing, fails it under TWSRT_REQUIRE_REAL_TOOLS=1)."""
        return require_tool(self.name, locate_tool(self.name, self.bin_env, self.default_bin))

    def quiet_env(self) -> dict[str, str]:
        """The variables that switch its network besides the model off."""
        names = ["DISABLE_AUTOUPDATE", "DISABLE_MODELS_FETCH", "DISABLE_SHARE"]
        names += ["DISABLE_LSP_DOWNLOAD", "DISABLE_EXTERNAL_SKILLS", "DISABLE_CLAUDE_CODE"]
        env = {f"{self.env}_{name}": "1" for name in names}
        if self.name == "kilo":
            env |= {
                "KILO_TELEMETRY_LEVEL": "off",
                "KILO_DISABLE_SESSION_INGEST": "1",
                "KILO_DISABLE_CODEBASE_INDEXING": "1",
                "KILO_DISABLE_PRESENCE": "1",
            }
        return env


OPENCODE = Agent(
    name="opencode",
    version="1.18.33",
    env="OPENCODE",
    bin_env="TWSRT_OPENCODE_BIN",
    default_bin="/opt/twsrt-tools/opencode/bin/opencode",
    user_file="opencode.json",
    project_file="opencode.json",
    dot_dir=".opencode",
)
KILO = Agent(
    name="kilo",
    version="7.7.7",
    env="KILO",
    bin_env="TWSRT_KILO_BIN",
    default_bin="/opt/twsrt-tools/kilo/bin/kilo",
    user_file="kilo.jsonc",
    project_file="kilo.jsonc",
    dot_dir=".kilo",
)


def provider(base_url: str) -> dict[str, Any]:
    """The user-file keys that make the fake chat server the only model."""
    fake = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Fake",
        "options": {"baseURL": base_url, "apiKey": "x"},
        "models": {MODEL_ID: {"name": "fake"}},
    }
    return {
        "provider": {"fake": fake},
        "model": f"fake/{MODEL_ID}",
        "enabled_providers": ["fake"],
        "autoupdate": False,
        "share": "disabled",
        # no git snapshot of the workspace before and after each step (about 0.4 s of CPU of
        # an OpenCode run, 1 s of a Kilo run); it only feeds undo and the session diff
        "snapshot": False,
        # a rejected ask ends the run by default; the probes go on to the next call
        "experimental": {"continue_loop_on_deny": True},
    }


@dataclass
class Call:
    """One tool call of the fake model."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)

    def step(self) -> dict[str, Any]:
        return {"name": self.tool, "arguments": self.args}

    @property
    def key(self) -> str:
        """What ``Observed.result`` finds the call by: the command, or the tool and its target."""
        if self.tool == "bash":
            return str(self.args["command"])
        return f"{self.tool} {self.args.get('filePath') or self.args.get('url', '')}"


def bash(command: str) -> Call:
    return Call("bash", {"command": command, "description": "scripted probe"})


def read(path: Path | str) -> Call:
    return Call("read", {"filePath": str(path)})


def write(path: Path | str, content: str = "WRITTEN\n") -> Call:
    return Call("write", {"filePath": str(path), "content": content})


def edit(path: Path | str, old: str, new: str) -> Call:
    return Call("edit", {"filePath": str(path), "oldString": old, "newString": new})


def webfetch(url: str) -> Call:
    return Call("webfetch", {"url": url, "format": "text"})


@dataclass
class Result:
    """What the agent did with one call: ``verdict`` is ``ran``, ``denied`` (a deny rule),
    ``asked`` (an ``ask`` the headless run rejected), ``unavailable`` (the tool is not offered:
    a whole-tool deny), ``error`` (it ran and failed) or None (never reported); ``output``
    is the text the model is told."""

    verdict: str | None
    output: str


def classify(state: Mapping[str, Any]) -> Result:
    text = str(state.get("output" if state.get("status") == "completed" else "error", ""))
    if UNAVAILABLE_TEXT in text:  # a tool that a whole-tool deny took out of the tool list
        return Result("unavailable", text)
    if state.get("status") == "completed":
        return Result("ran", text)
    if DENIED_TEXT in text:
        return Result("denied", text)
    if REJECTED_TEXT in text:
        return Result("asked", text)
    return Result("error", text)


def parse_events(stdout: str, count: int) -> list[Result]:
    """The result of each scripted call (``call_<n>``), in call order."""
    found: dict[int, Result] = {}
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # the auto-reject notice is a plain line
        part = event.get("part") if isinstance(event, dict) else None
        if not isinstance(part, dict) or event.get("type") != "tool_use":
            continue
        match = re.fullmatch(r"call_(\d+)", str(part.get("callID", "")))
        state = part.get("state")
        if match and isinstance(state, dict):
            found[int(match.group(1))] = classify(state)
    return [found.get(i, Result(None, "")) for i in range(count)]


@dataclass
class Setup:
    """A run's files under ``root``: HOME with the user file, the workspace (``ws``, a git
    repository unless ``git`` is False) with project files (relative path: text)."""

    root: Path
    agent: Agent
    user: dict[str, Any] = field(default_factory=dict)
    user_text: str | None = None  # the user file verbatim (JSONC), the provider spliced in
    project: Mapping[str, str] = field(default_factory=dict)
    git: bool = True
    # Kilo writes ``permission.bash: "allow"`` into a user file without one at its first start
    # unless this marker exists; the probes pre-create it (False: the first start as it is)
    migrated: bool = True

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def workspace(self) -> Path:
        return self.root / "ws"

    @property
    def config_dir(self) -> Path:
        return self.home / ".config" / self.agent.name

    @property
    def user_path(self) -> Path:
        return self.config_dir / self.agent.user_file

    @property
    def log_dir(self) -> Path:
        return self.home / ".local" / "share" / self.agent.name / "log"

    def resolve(self, call: Call) -> Call:
        """``call`` with the placeholders HOME/ and WS/ of a file tool's path filled in."""
        path = str(call.args.get("filePath", ""))
        for prefix, where in (("HOME/", self.home), ("WS/", self.workspace)):
            if path.startswith(prefix):
                return Call(call.tool, {**call.args, "filePath": str(where / path[len(prefix) :])})
        return call

    def write(self, base_url: str) -> None:
        for sub in (".cache", ".local/share", ".local/state"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        self.workspace.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        self.config_dir.mkdir(parents=True, exist_ok=True)
        stub_plugin_install(self.config_dir)
        if self.migrated and self.agent.name == "kilo":
            (self.config_dir / ".bash-permission-migrated").write_text("")
        keys = provider(base_url)
        if self.user_text is None:
            text = json.dumps(merge(keys, self.user), indent=2) + "\n"
        else:  # the provider keys first, then the verbatim members
            body = self.user_text.strip()
            assert body.startswith("{"), "user_text must be a JSON(C) object"
            text = "{\n" + json.dumps(keys, indent=2)[1:-1].rstrip() + ",\n" + body[1:] + "\n"
        self.user_path.write_text(text)
        if self.git:
            subprocess.run(["git", "init", "-q", str(self.workspace)], check=True)
        for relative, content in self.project.items():
            path = self.workspace / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
        if (self.workspace / self.agent.dot_dir).is_dir():
            stub_plugin_install(self.workspace / self.agent.dot_dir)

    def evaluations(self) -> list[str]:
        """The ``evaluated permission=...`` lines of the run's log (which rule decided)."""
        lines: list[str] = []
        for log in sorted(self.log_dir.glob("*.log")):
            lines += [
                ln for ln in log.read_text(errors="replace").splitlines() if "evaluated" in ln
            ]
        return lines


def stub_plugin_install(directory: Path) -> None:
    """Make the agent's background ``npm install`` of its plugin package in ``directory`` a
    no-op (OpenCode: ``@opencode-ai/plugin``; Kilo, where a local plugin is found:
    ``@kilocode/plugin``): it runs only when node_modules is missing or the lock file lacks
    the package."""
    (directory / "node_modules").mkdir(parents=True, exist_ok=True)
    names = ("@opencode-ai/plugin", "@kilocode/plugin")
    lock = {"packages": {"": {"dependencies": dict.fromkeys(names, "*")}}}
    (directory / "package-lock.json").write_text(json.dumps(lock) + "\n")


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    results: list[Result]
    seconds: float
    cpu: float  # user + system seconds of the agent and its children
    told: dict[str, str] = field(default_factory=dict)  # call id -> the tool message it got


def base_env(setup: Setup, path: str | None = None) -> dict[str, str]:
    home = setup.home
    return {
        "PATH": path or os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "TMPDIR": str(setup.root / "tmp"),
        "TERM": "dumb",
        "LANG": "C.UTF-8",
        **setup.agent.quiet_env(),
    }


def run_agent(
    binary: str,
    fake: FakeChat,
    name: str,
    setup: Setup,
    calls: Sequence[Call],
    *,
    flags: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
    path: str | None = None,
    timeout: float = TIMEOUT_S,
) -> Run:
    """Run ``<agent> run`` headless in ``setup.workspace``, the fake model (script ``name``)
    playing ``calls``. The files are written unless ``setup.user_path`` exists."""
    if not setup.user_path.exists():
        setup.write(fake.base_url(name))
    fake.add(name, [call.step() for call in calls])
    env = {**base_env(setup, path), **(extra_env or {})}
    argv = [binary, "run", "--format", "json", "--title", name, *flags]
    argv.append("Run the scripted tool calls.")
    start, before = time.monotonic(), _children_cpu()
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
    seconds, cpu = time.monotonic() - start, _children_cpu() - before
    results = parse_events(proc.stdout, len(calls))
    told = fake.tool_results(name)
    return Run(proc.returncode, proc.stdout, proc.stderr, results, seconds, cpu, told)


def _children_cpu() -> float:
    """CPU of finished children so far (parallel runs blur it; one run alone is exact)."""
    usage = os.times()
    return usage.children_user + usage.children_system


@dataclass
class Observed:
    """One finished run: its files, the calls the fake model made, what the agent did."""

    setup: Setup
    calls: list[Call]
    run: Run

    def result(self, key: str) -> Result:
        """The result of the first call whose key starts with ``key``; `` WS/`` and `` HOME/``
        in it stand for the run's workspace and HOME (``"read WS/in"``)."""
        key = key.replace(" WS/", f" {self.setup.workspace}/")
        key = key.replace(" HOME/", f" {self.setup.home}/")
        starts = [call.key.startswith(key) for call in self.calls]
        assert any(starts), f"no call {key!r}"
        return self.run.results[starts.index(True)]

    def told(self, key: str) -> str:
        """What the fake model's last request carried as the result of that call."""
        key = key.replace(" WS/", f" {self.setup.workspace}/")
        index = [call.key.startswith(key) for call in self.calls].index(True)
        return self.run.told.get(f"call_{index}", "")

    def verdict(self, key: str) -> str | None:
        return self.result(key).verdict

    def exists(self, relative: str) -> bool:
        return (self.setup.root / relative).exists()


@contextmanager
def scratch_dir(prefix: str, files: Mapping[str, str] | None = None) -> Iterator[Path]:
    """A fresh directory under /var/tmp holding ``files`` (name: text), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/var/tmp"))
    try:
        for name, text in (files or {}).items():
            (path / name).write_text(text)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


Plans = Mapping[str, tuple[Setup, Sequence[Call], Mapping[str, Any]]]


def run_all(binary: str, fake: FakeChat, plans: Plans, workers: int = 3) -> dict[str, Observed]:
    """Every run of ``plans`` (name: files, calls, run_agent options), ``workers`` at a time
    (the machine has 2 cores; one run is mostly waiting on its own startup)."""

    def one(name: str) -> Observed:
        setup, calls, options = plans[name]
        calls = [setup.resolve(call) for call in calls]
        run = run_agent(options.get("binary", binary), fake, name, setup, calls, **_opts(options))
        return Observed(setup, calls, run)

    return side_by_side(plans, one, workers)


def _opts(options: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k != "binary"}
