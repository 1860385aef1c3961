"""The qwen engine against the real Qwen Code 0.24.4: the same shell commands, run by the real
agent's execution sandbox (headless under --yolo, fake model) and by the engine's model of it
(``run_as_qwen``: bubblewrap with the arguments ``qwen_bwrap_args`` builds from the same
settings), leave the same marks on the host. Each command is one whose outcome differs between
a sandbox and none: a read outside the launch directory, writes inside it, in its ``.git``, in
``/tmp``, in ``$HOME`` and outside, the per-command ``$TMPDIR``, and a request to a local
server; for ``workspace-write`` with the network closed, ``read-only`` with it open, and no
sandbox at all (the control: every write is made).

Then whole ``twsrt test --engine qwen`` runs on a generated policy: the losses come out as GAP
with their rule ids, and a file weakened on disk (the sandbox removed, the filesystem or the
network opened by hand) makes the probes FAIL, never PASS."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat
from support.hitserver import hit_server
from support.tools import locate_tool, require_tool

from twsrt.agents.qwen.engine import QwenEngine, execution_sandbox, run_as_qwen
from twsrt.testing.bwrapmodel import BWRAP_DEFAULT
from twsrt.testing.engines import base_env
from twsrt.testing.model import ProbeReport, Verdict
from twsrt.testing.run import run_tests

from .qwen_client import Call, Setup, qwen_bin, run_qwen

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_engine")]

SANDBOXES: dict[str, dict[str, str] | None] = {
    "write-closed": {"backend": "auto", "filesystem": "workspace-write", "network": "closed"},
    "readonly-open": {"backend": "bwrap", "filesystem": "read-only", "network": "open"},
    "none": None,
}
SCRATCH = 'touch "$TMPDIR/s" && case "$TMPDIR" in */qwen-sandbox-*) touch scratch-seen;; esac'
MARKS = ("read-home", "inside", ".git", "leases", "tmp", "home", "outside", "scratch", "net")


def _commands(root: Path, port: int, tag: str) -> list[tuple[str, str, str]]:
    """(mark name, shell command, the path it leaves only if it was allowed; "net": a hit)."""
    fetch = f"import urllib.request as u; u.urlopen('http://127.0.0.1:{port}/{tag}', timeout=20)"
    return [
        ("read-home", f"cp {root / 'home' / 'secret'} read-home", "ws/read-home"),
        ("inside", "touch inside", "ws/inside"),
        (".git", "touch .git/planted", "ws/.git/planted"),
        ("leases", "true", "ws/.qwen/review-leases"),  # the mask Qwen makes itself
        ("tmp", f"touch /tmp/{tag}", f"/tmp/{tag}"),
        ("home", "touch $HOME/home-write", "home/home-write"),
        ("outside", f"touch {root / 'outside' / 'o'}", "outside/o"),
        # left only when $TMPDIR is a writable qwen-sandbox-* scratch (and the workspace too)
        ("scratch", SCRATCH, "ws/scratch-seen"),
        ("net", f'python3 -c "{fetch}"', "net"),
    ]


def _setup(root: Path, sandbox: dict[str, str] | None) -> Setup:
    settings = {} if sandbox is None else {"tools": {"executionSandbox": sandbox}}
    setup = Setup(root, settings)
    setup.write()
    (setup.home / "secret").write_text("SECRET\n")
    (setup.workspace / ".git").mkdir()
    (root / "outside").mkdir()
    return setup


def _left(root: Path, path: str, tag: str, hits: list[str]) -> bool:
    if path == "net":
        return f"/{tag}" in hits
    return (root / path).exists() if not path.startswith("/") else Path(path).exists()


@pytest.fixture(scope="module")
def observed() -> Iterator[dict[str, dict[str, bool]]]:
    """Each sandbox in the real agent (one run, every command a call: a refused command does
    not end Qwen's run, row 13) and in the model (one run per command): run -> mark -> left."""
    binary = qwen_bin()
    bwrap = require_tool("bwrap", locate_tool("bwrap", "TWSRT_BWRAP_BIN", BWRAP_DEFAULT))
    base = Path(tempfile.mkdtemp(prefix="twsrt-qwen-engine-", dir="/var/tmp"))
    tags: list[str] = []
    with hit_server() as server, FakeChat().serving() as fake:
        plans: list[tuple[str, Path, str, list[tuple[str, str, str]]]] = []
        for name, sandbox in SANDBOXES.items():
            for who in ("real", "model"):
                tag = f"{who}-{name}"
                root = base / tag
                commands = _commands(root, server.port, tag)
                _setup(root, sandbox)
                plans.append((tag, root, name, commands))
                tags.append(tag)

        def play(tag: str, root: Path, name: str, commands: list[tuple[str, str, str]]) -> Any:
            setup = Setup(root)
            if tag.startswith("real"):
                calls = [Call(command) for _, command, _ in commands]
                return run_qwen(binary, fake, tag, setup, calls)
            env = base_env(root)
            for _, command, _ in commands:
                run_as_qwen(
                    bwrap, SANDBOXES[name], setup.workspace, root / "tmp", command, env, 30.0
                )
            return None

        try:
            with ThreadPoolExecutor(max_workers=3) as pool:
                done = [pool.submit(play, *plan) for plan in plans]
                runs = [future.result() for future in done]
            out: dict[str, dict[str, bool]] = {}
            for (tag, root, _name, commands), ran in zip(plans, runs, strict=True):
                if ran is not None:  # every call of the real run was answered
                    assert ran.finished and None not in [r.status for r in ran.results], ran
                marks = {m: _left(root, p, tag, server.hits) for m, _, p in commands}
                out[tag] = marks
            yield out
        finally:
            shutil.rmtree(base, ignore_errors=True)
            for tag in tags:
                Path(f"/tmp/{tag}").unlink(missing_ok=True)


@pytest.mark.parametrize("sandbox", list(SANDBOXES))
def test_the_model_leaves_the_marks_the_real_agent_leaves(
    observed: dict[str, dict[str, bool]], sandbox: str
) -> None:
    assert observed[f"model-{sandbox}"] == observed[f"real-{sandbox}"]


def test_the_marks_tell_a_sandbox_from_none(observed: dict[str, dict[str, bool]]) -> None:
    """What each real run shows (so the comparison cannot pass on runs that did nothing)."""
    write, readonly, none = (observed[f"real-{n}"] for n in SANDBOXES)
    assert all(none[m] for m in MARKS if m not in ("leases", "scratch")), none
    assert not none["leases"] and not none["scratch"]
    assert write == {m: m in ("read-home", "inside", ".git", "leases", "scratch") for m in MARKS}
    assert readonly == {**dict.fromkeys(MARKS, False), "net": True}, readonly


def test_backend_auto_without_bwrap_refuses_to_start(
    observed: dict[str, dict[str, bool]], tmp_path: Path
) -> None:
    """``auto`` has no fallback: with ``/usr/bin/bwrap`` hidden (an outer bubblewrap binds
    /dev/null over it), Qwen's capability probe at start fails and no command runs, so there is
    nothing unsandboxed for the engine to model. The control is the ``write-closed`` run, whose
    same settings run ``touch inside``."""
    binary = qwen_bin()
    outer = require_tool("bwrap", locate_tool("bwrap", "TWSRT_BWRAP_BIN", BWRAP_DEFAULT))
    hide = [outer, "--dev-bind", "/", "/", "--ro-bind", "/dev/null", "/usr/bin/bwrap", binary]
    wrapper = tmp_path / "qwen"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.join(hide)} "$@"\n', encoding="utf-8")
    wrapper.chmod(0o700)
    setup = _setup(Path(tempfile.mkdtemp(prefix="twsrt-qwen-nobwrap-", dir="/var/tmp")), None)
    try:
        setup.settings = {"tools": {"executionSandbox": SANDBOXES["write-closed"]}}
        setup.write()
        with FakeChat().serving() as fake:
            ran = run_qwen(str(wrapper), fake, "nobwrap", setup, [Call("touch inside")])
        assert ran.returncode != 0 and "Sandbox capability probe failed" in ran.stderr, ran
        assert not (setup.workspace / "inside").exists()
    finally:
        shutil.rmtree(setup.root, ignore_errors=True)
    assert observed["real-write-closed"]["inside"]


# ------------------------------------------------------------------ whole runs of the engine

POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["~/secret.txt"],
        "denyWrite": ["~/.bashrc", "locked"],
        "allowWrite": [".", "~/out"],
    },
    "network": {"allowedDomains": ["example.com"], "deniedDomains": []},
}
READ_ONLY_POLICY: dict[str, Any] = {
    "filesystem": {"denyRead": ["~/secret.txt"], "denyWrite": [], "allowWrite": ["~/out"]},
    "network": {"allowedDomains": [], "deniedDomains": []},
}


def _context(repo: Path, policy: dict[str, Any]) -> Any:
    """A config targeting only Qwen, its file written as `twsrt generate -w` does."""
    from support.cli import compiled as compile_request

    from twsrt import run
    from twsrt.documents import Documents

    repo.mkdir()
    (repo / "srt.json").write_text(json.dumps(policy, indent=2))
    (repo / "bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    config = repo / "twsrt.toml"
    targets = '[targets]\nqwen_settings = "out/settings.json"\n'
    config.write_text(f'[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n{targets}')
    compiled = compile_request(str(config))
    run.write(run.write_plan(compiled.results))
    assert compiled.context is not None
    return replace(compiled.context, documents=Documents())


def _weaken(ctx: Any, **sandbox: str | None) -> None:
    path = ctx.config.targets["qwen_settings"]
    settings = json.loads(path.read_text())
    if not sandbox:
        del settings["tools"]["executionSandbox"]
    else:
        settings["tools"]["executionSandbox"].update(sandbox)
    path.write_text(json.dumps(settings, indent=2))


def _run(ctx: Any, bwrap: str) -> ProbeReport:
    return run_tests(ctx, "qwen", factory=lambda name: QwenEngine(bwrap))


def _verdicts(report: ProbeReport, kind: str) -> set[tuple[str, str | None]]:
    return {
        (r.verdict.value, r.gap.rule_id if r.gap else None)
        for r in report.results
        if r.probe.kind == kind
    }


def _explain(report: ProbeReport) -> str:
    return "\n".join(f"{r.probe.name}: {r.verdict.value} {r.detail}" for r in report.results)


def _cli(repo: Path, bwrap: str) -> Any:
    """``twsrt test --engine qwen`` on the config in ``repo``, in process."""
    from support.cli import run_cli

    env = {**os.environ, "TWSRT_BWRAP_BIN": bwrap}
    return run_cli(["test", "-c", str(repo / "twsrt.toml"), "--engine", "qwen"], cwd=repo, env=env)


@pytest.fixture(scope="module")
def bwrap() -> str:
    return require_tool("bwrap", locate_tool("bwrap", "TWSRT_BWRAP_BIN", BWRAP_DEFAULT))


def test_the_generated_file_passes_or_gaps_with_its_rules(tmp_path: Path, bwrap: str) -> None:
    """Every loss is a GAP with its rule: reads (TWS483), the relative deny inside the launch
    directory (TWS484), ``~/out`` (TWS408), the closed network (TWS486), the launch directory's
    layers and mandatory names (TWS487); what the sandbox enforces passes; nothing FAILs."""
    ctx = _context(tmp_path / "repo", POLICY)
    assert execution_sandbox(json.loads(ctx.config.targets["qwen_settings"].read_text()))
    report = _run(ctx, bwrap)
    assert report.engines == ["qwen"]
    assert not [r for r in report.results if r.verdict is Verdict.FAIL], _explain(report)
    assert _verdicts(report, "deny-read") == {("GAP", "TWS483")}, _explain(report)
    # (the subdomain probe expects a refusal: example.com does not admit it)
    assert _verdicts(report, "allow-domain") == {("GAP", "TWS486"), ("PASS", None)}
    assert ("GAP", "TWS408") in _verdicts(report, "allow-write"), _explain(report)
    assert ("PASS", None) in _verdicts(report, "allow-write"), _explain(report)
    locked = {
        (r.verdict.value, r.gap.rule_id if r.gap else None)
        for r in report.results
        if r.probe.kind == "deny-write" and r.probe.rule == "locked"
    }
    assert locked == {("GAP", "TWS484")}, _explain(report)
    bashrc = {r.verdict for r in report.results if r.probe.rule == "~/.bashrc"}
    assert bashrc == {Verdict.PASS}, _explain(report)
    assert {v for v, _ in _verdicts(report, "write-outside")} == {"PASS"}
    assert ("GAP", "TWS487") in _verdicts(report, "mandatory"), _explain(report)
    assert report.exit_code == 0
    ran = _cli(tmp_path / "repo", bwrap)
    assert ran.returncode == 0, ran
    assert "qwen  GAP" in ran.stdout and "(engine gap TWS484)" in ran.stdout, ran.stdout
    assert "twsrt test: qwen:" in ran.stdout and " pass, " in ran.stdout
    assert "FAIL" not in ran.stdout


def test_the_file_without_its_sandbox_fails(tmp_path: Path, bwrap: str) -> None:
    """``tools.executionSandbox`` removed on disk: Qwen runs every command unsandboxed, so the
    engine does too, and every deny probe FAILs (no gap excuses it)."""
    ctx = _context(tmp_path / "repo", POLICY)
    _weaken(ctx)
    report = _run(ctx, bwrap)
    denies = [r for r in report.results if r.probe.kind in ("deny-read", "deny-write")]
    assert denies and {r.verdict for r in denies} == {Verdict.FAIL}, _explain(report)
    assert {r.verdict for r in report.results if r.probe.kind == "write-outside"} == {Verdict.FAIL}
    assert report.exit_code != 0
    ran = _cli(tmp_path / "repo", bwrap)
    assert ran.returncode == 1 and "qwen  FAIL    deny-read ~/secret.txt" in ran.stdout, ran


def test_a_filesystem_or_network_opened_by_hand_fails(tmp_path: Path, bwrap: str) -> None:
    """A policy without ``.`` compiles to ``read-only`` and a closed network: switched to
    ``workspace-write`` on disk, the writes at the top of the launch directory FAIL (check
    reports no TWS487 for this policy); switched to ``open``, the canary host is reached."""
    ctx = _context(tmp_path / "fs", READ_ONLY_POLICY)
    assert _run(ctx, bwrap).exit_code == 0
    _weaken(ctx, filesystem="workspace-write")
    report = _run(ctx, bwrap)
    assert ("FAIL", None) in _verdicts(report, "mandatory"), _explain(report)
    assert report.exit_code != 0
    ctx = _context(tmp_path / "net", READ_ONLY_POLICY)
    _weaken(ctx, network="open")
    report = _run(ctx, bwrap)
    assert _verdicts(report, "canary-domain") == {("FAIL", None)}, _explain(report)
