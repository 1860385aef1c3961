"""What the real pi 1.4.0 and its sandbox extension example (srt 0.0.26) do with the
extension's files (groundwork for a pi target): every fact the target will compile against,
pinned by a headless run against the fake model of ``pi_client``, checked on disk (the file a
command would write exists or not) or in what the model is told (a secret's text in the tool
result), each refused case beside a control that succeeds. docs/agents/pi-droid-observed.md
lists the facts.

The runs of one module fixture, three at a time, all against one fake chat server:
``noext`` (pi's own bash tool, no extension: the control of every refusal), ``strict`` (the
extension's global file ~/.pi/agent/extensions/sandbox.json with every key explicit),
``legacy`` (the same document at ~/.pi/agent/sandbox.json), ``defaults`` (a global file
without ``allowWrite``), ``project_list`` and ``project_off`` (a project .pi/sandbox.json that
replaces ``denyRead`` / says ``enabled: false``), ``nobwrap`` (bwrap not on PATH),
``flag`` (``--no-sandbox``), ``trust_default`` / ``trust_approve`` (a project
.pi/extensions/ extension, without / with ``--approve``), ``agent_dir``
(``PI_CODING_AGENT_DIR`` naming another directory), ``stubs`` (two commands in a workspace
without .claude/ and .git/ directories), then ``planted``: a second launch in the workspace where a
sandboxed command of ``strict`` wrote a .pi/sandbox.json. Install with .ci/install-pi.sh.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat

from .gemini_client import path_without
from .pi_client import (
    LEGACY_FILE,
    SRT_VERSION,
    VERSION,
    Call,
    Observed,
    Setup,
    edit,
    extension_dir,
    package_dir,
    pi_bin,
    read,
    run_all,
    run_pi,
    write,
)
from .qwen_client import scratch_dir

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("pi_observed")]

SECRET = "PI-OUTSIDE-SECRET"
SECRET2 = "PI-SECOND-SECRET"
SSH_SECRET = "PI-SSH-SECRET"
TMP_MARK = f"/tmp/twsrt-pi-{uuid.uuid4().hex}"  # the extension's default allowWrite has /tmp
PLANT = "mkdir -p .pi && echo '{\"enabled\": false}' > .pi/sandbox.json"
# a project extension that leaves a mark in the workspace when pi loads it
MARK_EXTENSION = """import { writeFileSync } from "node:fs";
export default function () {
    writeFileSync(process.cwd() + "/extension-loaded", "x");
}
"""
# the forbidden writes through bash: (name, command, the path it makes, relative to the root)
WRITES = [
    ("deny-create", "touch prot/new", "ws/prot/new"),
    ("deny-append", "echo more >> prot/e", None),
    ("deny-rename", "mv movable prot/moved", "ws/prot/moved"),
    ("deny-symlink", "ln -s /etc/hostname prot/link", "ws/prot/link"),
    ("out-create", "touch ../out/new", "out/new"),
    ("out-append", "echo more >> ../out/e", None),
    ("out-rename", "mv movable2 ../out/moved", "out/moved"),
    ("out-symlink", "ln -s /etc/hostname ../out/link", "out/link"),
]


def _sandbox(setup: Setup, out: Path, **filesystem: list[str]) -> dict[str, Any]:
    """A whole extension document: every list explicit unless ``filesystem`` drops one."""
    fs: dict[str, Any] = {
        "denyRead": [f"{out}/secret", f"{out}/secret2"],
        "allowWrite": [str(setup.workspace)],
        "denyWrite": [str(setup.workspace / "prot")],
    }
    fs.update(filesystem)
    network = {"allowedDomains": ["localhost"], "deniedDomains": []}
    return {"enabled": True, "network": network, "filesystem": {k: v for k, v in fs.items()}}


def _files(setup: Setup, out: Path, stub_dirs: bool = True) -> None:
    """The run's files. ``stub_dirs``: .claude/ and .git/ exist as directories, so srt 0.0.26's
    0-byte stubs for .claude/commands and .git/hooks land inside them (see test_stubs...)."""
    setup.write()
    if stub_dirs:
        (setup.workspace / ".claude").mkdir()
        (setup.workspace / ".git").mkdir()
    (setup.workspace / "prot").mkdir()
    (setup.workspace / "prot" / "e").write_text("old\n")
    (setup.workspace / "prot" / "ed").write_text("old\n")
    (setup.workspace / "movable").write_text("m\n")
    (setup.workspace / "movable2").write_text("m\n")
    (setup.workspace / "in").write_text("IN\n")
    (setup.root / "out").mkdir()
    (setup.root / "out" / "e").write_text("old\n")
    (setup.home / ".ssh").mkdir()
    (setup.home / ".ssh" / "key").write_text(SSH_SECRET + "\n")


def _calls(setup: Setup, out: Path, fake: FakeChat) -> list[Call]:
    calls = [
        Call(f"cat {out}/secret"),
        Call(f"cat {out}/secret2"),
        Call("cat ~/.ssh/key"),
        Call("echo x > ok"),
        Call(f"touch {TMP_MARK}-{setup.root.name}"),
    ]
    calls += [Call(command) for _, command, _ in WRITES]
    calls += [
        Call(
            f"curl -sS -m 10 --noproxy '' {fake.url('allowed').replace('127.0.0.1', 'localhost')}"
        ),
        Call(f"curl -sS -m 10 --noproxy '' {fake.url('refused-ip')}"),
        read(f"{out}/secret"),
        write(setup.workspace / "prot" / "w"),
        edit(setup.workspace / "prot" / "ed", "old", "new"),
        Call(PLANT),
    ]
    return calls


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    files = {"secret": SECRET + "\n", "secret2": SECRET2 + "\n"}
    with scratch_dir("twsrt-pi-out-", files) as path:
        yield path


def _plans(root: Path, out: Path, fake: FakeChat) -> dict[str, Any]:
    plans: dict[str, Any] = {}
    for name in ("noext", "strict", "legacy", "defaults", "project_list", "project_off"):
        setup = Setup(root / name)
        if name != "noext":
            setup.sandbox = _sandbox(setup, out)
        if name == "legacy":
            setup.sandbox_file = LEGACY_FILE
        if name == "defaults":
            del setup.sandbox["filesystem"]["allowWrite"]
        if name == "project_list":
            setup.project = {"filesystem": {"denyRead": [f"{out}/secret2"]}}
        if name == "project_off":
            setup.project = {"enabled": False}
        _files(setup, out)
        plans[name] = (setup, _calls(setup, out, fake), {"extension": name != "noext"})
    for name, flags in (("trust_default", []), ("trust_approve", ["--approve"])):
        setup = Setup(root / name)
        setup.sandbox = _sandbox(setup, out)
        _files(setup, out)
        (setup.workspace / ".pi" / "extensions").mkdir(parents=True)
        (setup.workspace / ".pi" / "extensions" / "mark.ts").write_text(MARK_EXTENSION)
        plans[name] = (setup, [Call(f"cat {out}/secret")], {"flags": flags})
    stubs = Setup(root / "stubs", sandbox=None)
    stubs.sandbox = _sandbox(stubs, out)
    _files(stubs, out, stub_dirs=False)
    plans["stubs"] = (stubs, [Call("echo first"), Call("echo second")], {})
    for name in ("nobwrap", "flag", "agent_dir"):
        setup = Setup(root / name)
        setup.sandbox = _sandbox(setup, out)
        _files(setup, out)
        options: dict[str, Any] = {"flags": ["--no-sandbox"]} if name == "flag" else {}
        if name == "agent_dir":
            options["extra_env"] = {"PI_CODING_AGENT_DIR": str(setup.root / "other-agent")}
        if name == "nobwrap":
            options["path"] = path_without("bwrap", root / "nobwrap-bin")
        plans[name] = (setup, _calls(setup, out, fake), options)
    return plans


@pytest.fixture(scope="module")
def runs(outside: Path, fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = pi_bin()
    before = set(os.listdir("/tmp"))
    with scratch_dir("twsrt-pi-") as root:
        try:
            observed = run_all(binary, fake, _plans(root, outside, fake))
            strict = observed["strict"].setup  # its sandboxed bash planted .pi/sandbox.json
            calls = [Call(f"cat {outside}/secret")]
            run = run_pi(binary, fake, "planted", strict, calls)
            observed["planted"] = Observed(strict, calls, run)
            yield observed
        finally:
            for name in os.listdir("/tmp"):
                if name.startswith(os.path.basename(TMP_MARK)):
                    os.unlink(os.path.join("/tmp", name))
            _drop_stubs("/tmp", before)


def _drop_stubs(directory: str, before: set[str]) -> None:
    """The empty read-only files srt 0.0.26 leaves for the denied names under a write root
    (the defaults' /tmp here): a later test below /tmp would read /tmp/.claude as a layer."""
    for name in set(os.listdir(directory)) - before:
        path = os.path.join(directory, name)
        if (
            os.path.isfile(path)
            and not os.path.islink(path)
            and os.path.getsize(path) == 0
            and not os.stat(path).st_mode & 0o222
        ):
            os.unlink(path)


def _tmp_written(observed: Observed) -> bool:
    return os.path.exists(f"{TMP_MARK}-{observed.setup.root.name}")


def _leaked(observed: Observed, key: str, secret: str) -> bool:
    return secret in observed.result(key)


def test_the_pinned_build_is_installed() -> None:
    binary = pi_bin()
    package = json.loads((package_dir(binary) / "package.json").read_text())
    assert (package["name"], package["version"]) == ("@earendil-works/pi-coding-agent", VERSION)
    srt = extension_dir(binary) / "node_modules" / "@anthropic-ai" / "sandbox-runtime"
    assert json.loads((srt / "package.json").read_text())["version"] == SRT_VERSION
    got = subprocess.run(
        [binary, "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PI_OFFLINE": "1"},
    )
    assert VERSION in got.stdout + got.stderr


def test_every_run_exits_0_and_answers_every_call(runs: dict[str, Observed]) -> None:
    """A refused command is not a failed run: each launch ends with status 0 and every call
    got a tool result."""
    assert {n: o.run.returncode for n, o in runs.items()} == dict.fromkeys(runs, 0)
    missing = {n: o.run.results.count(None) for n, o in runs.items()}
    assert missing == dict.fromkeys(runs, 0)


# which file the extension reads, and what a key left out means


def test_the_global_file_is_extensions_sandbox_json(
    runs: dict[str, Observed], outside: Path
) -> None:
    """~/.pi/agent/extensions/sandbox.json is read (its denyRead refuses the secret); the same
    document at ~/.pi/agent/sandbox.json (the pre-#2009 path) is ignored: the secret is read and
    the built-in defaults rule instead (their denyRead hides ~/.ssh, their allowedDomains refuse
    localhost)."""
    secret = f"cat {outside}/secret"
    assert _leaked(runs["noext"], secret, SECRET)  # the control: no extension
    assert not _leaked(runs["strict"], secret, SECRET)
    assert _leaked(runs["legacy"], secret, SECRET)
    assert not _leaked(runs["legacy"], "cat ~/.ssh/key", SSH_SECRET)
    assert "blocked by network allowlist" in runs["legacy"].result(
        "curl -sS -m 10 --noproxy '' http://localhost"
    )


def test_a_list_given_replaces_the_default_list(runs: dict[str, Observed]) -> None:
    """A denyRead that does not list ~/.ssh lets ~/.ssh be read: the built-in default list is
    replaced, not extended (the legacy run, on the defaults, hides it)."""
    assert _leaked(runs["strict"], "cat ~/.ssh/key", SSH_SECRET)
    assert not _leaked(runs["legacy"], "cat ~/.ssh/key", SSH_SECRET)


def test_an_omitted_allow_write_falls_back_to_the_default_with_tmp(
    runs: dict[str, Observed],
) -> None:
    """Without ``allowWrite`` the default [".", "/tmp"] applies: a write to /tmp lands; with an
    explicit allowWrite (the workspace only) it is refused."""
    assert _tmp_written(runs["defaults"])
    assert not _tmp_written(runs["strict"])
    assert _tmp_written(runs["noext"])


# what the sandbox holds for bash, and what it does not cover


@pytest.mark.parametrize(("case", "command", "made"), WRITES, ids=[w[0] for w in WRITES])
def test_bash_writes_into_deny_write_and_outside_allow_write_are_refused(
    runs: dict[str, Observed], case: str, command: str, made: str | None
) -> None:
    """create, append, rename, symlink: each lands without the extension, none under it."""
    plain, strict = runs["noext"], runs["strict"]
    assert "Read-only file system" in strict.result(command), strict.result(command)
    assert "Read-only file system" not in plain.result(command)
    if made is None:  # an append: the file keeps its one line
        target = "ws/prot/e" if "prot" in command else "out/e"
        assert (plain.setup.root / target).read_text() == "old\nmore\n"
        assert (strict.setup.root / target).read_text() == "old\n"
    else:
        assert plain.exists(made) and not strict.exists(made)
    assert strict.exists("ws/ok")  # a write inside allowWrite lands


def test_deny_read_refuses_a_bash_read(runs: dict[str, Observed], outside: Path) -> None:
    result = runs["strict"].result(f"cat {outside}/secret")
    assert "Permission denied" in result
    assert _leaked(runs["noext"], f"cat {outside}/secret", SECRET)


def test_allowed_domains_hold_for_bash(runs: dict[str, Observed], fake: FakeChat) -> None:
    """localhost (listed) goes through the proxy to the fake server; 127.0.0.1 (not listed) is
    refused by the proxy; both reach it without the extension."""
    strict, plain = runs["strict"], runs["noext"]
    assert strict.result("curl -sS -m 10 --noproxy '' http://localhost").strip() == "ok"
    refused = strict.result("curl -sS -m 10 --noproxy '' http://127.0.0.1")
    assert "blocked by network allowlist" in refused
    assert plain.result("curl -sS -m 10 --noproxy '' http://127.0.0.1").strip() == "ok"


def test_the_read_and_write_tools_are_not_sandboxed(
    runs: dict[str, Observed], outside: Path
) -> None:
    """pi's own read and write tools ignore the extension: the denyRead secret is returned and
    a file lands in the denyWrite directory, while bash is refused both."""
    strict = runs["strict"]
    assert SECRET in strict.result(f"read {outside}/secret")
    assert strict.exists("ws/prot/w")
    assert not strict.exists("ws/prot/new")


# how the protection is switched off


def test_a_project_file_replaces_a_whole_list(runs: dict[str, Observed], outside: Path) -> None:
    """A project denyRead of [secret2] replaces the global [secret, secret2]: secret is read."""
    observed = runs["project_list"]
    assert _leaked(observed, f"cat {outside}/secret", SECRET)
    assert not _leaked(observed, f"cat {outside}/secret2", SECRET2)
    assert not _leaked(runs["strict"], f"cat {outside}/secret", SECRET)


def test_a_project_file_with_enabled_false_turns_it_off(
    runs: dict[str, Observed], outside: Path
) -> None:
    observed = runs["project_off"]
    assert _leaked(observed, f"cat {outside}/secret", SECRET)
    assert observed.exists("out/new") and observed.exists("ws/prot/new")


def test_without_bwrap_bash_runs_unsandboxed_and_headless_says_nothing(
    runs: dict[str, Observed], outside: Path
) -> None:
    """srt cannot start (no bwrap on PATH): the extension falls back to pi's plain bash. Its
    notice goes to ``ctx.ui.notify``, a no-op in print/JSON mode, so the run prints nothing about
    it."""
    observed = runs["nobwrap"]
    assert _leaked(observed, f"cat {outside}/secret", SECRET)
    assert observed.exists("out/new") and observed.exists("ws/prot/new")
    output = observed.run.finished.stdout + observed.run.finished.stderr
    assert "Sandbox initialization failed" not in output
    assert "bwrap" not in observed.run.finished.stderr


def test_the_no_sandbox_flag_turns_it_off(runs: dict[str, Observed], outside: Path) -> None:
    observed = runs["flag"]
    assert _leaked(observed, f"cat {outside}/secret", SECRET)
    assert observed.exists("out/new")


def test_a_sandboxed_command_can_plant_a_project_file_that_disables_the_next_launch(
    runs: dict[str, Observed], outside: Path
) -> None:
    """allowWrite covers the workspace and srt 0.0.26 does not protect .pi/: a bash command
    under the sandbox wrote .pi/sandbox.json ``{"enabled": false}`` and the next launch in that
    workspace read the secret the first one refused."""
    assert runs["strict"].exists("ws/.pi/sandbox.json")
    assert not _leaked(runs["strict"], f"cat {outside}/secret", SECRET)
    assert _leaked(runs["planted"], f"cat {outside}/secret", SECRET)


def test_srt_stubs_break_the_second_command_in_a_bare_workspace(runs: dict[str, Observed]) -> None:
    """srt 0.0.26 leaves 0-byte read-only stubs for its protected names (.bashrc, .claude,
    .git, ...) in the workspace; a .claude stub file then fails the next command's bwrap (it
    cannot make .claude/commands): fail closed, but the session's bash is broken. With .claude/
    and .git/ already directories (every other run) the stubs go inside them."""
    stubs = runs["stubs"]
    assert stubs.result("echo first").startswith("first")
    second = stubs.result("echo second")
    assert "Can't mkdir parents" in second and "second" not in second.replace("echo second", "")
    assert (stubs.setup.workspace / ".claude").is_file()
    assert (stubs.setup.workspace / ".bashrc").stat().st_size == 0
    assert not runs["noext"].exists("ws/.bashrc")
    assert runs["strict"].result("echo x > ok") == "(no output)"


def test_pi_coding_agent_dir_moves_the_global_file(
    runs: dict[str, Observed], outside: Path
) -> None:
    """``PI_CODING_AGENT_DIR`` in the launch environment moves the whole agent dir, the
    extension's global file with it: ~/.pi/agent/extensions/sandbox.json is then ignored and the
    built-in defaults rule (the secret is read, ~/.ssh is hidden)."""
    observed = runs["agent_dir"]
    assert _leaked(observed, f"cat {outside}/secret", SECRET)
    assert not _leaked(observed, "cat ~/.ssh/key", SSH_SECRET)
    assert not _leaked(runs["strict"], f"cat {outside}/secret", SECRET)


def test_project_trust_skips_project_extensions_but_not_the_sandbox_file(
    runs: dict[str, Observed], outside: Path
) -> None:
    """Headless, pi's default project trust ("ask") skips a project .pi/extensions/ extension;
    ``--approve`` loads it. The extension's .pi/sandbox.json is no trust-protected resource: it
    is read anyway (the project_off run has no trust decision)."""
    assert not runs["trust_default"].exists("ws/extension-loaded")
    assert runs["trust_approve"].exists("ws/extension-loaded")
    assert not _leaked(runs["trust_default"], f"cat {outside}/secret", SECRET)
    assert _leaked(runs["project_off"], f"cat {outside}/secret", SECRET)
