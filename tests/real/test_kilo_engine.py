"""The kilo engine against the real Kilo Code CLI 7.7.7: the same shell commands, run by the
real agent's bubblewrap sandbox (headless, fake model) and by the engine's model of it
(``run_as_kilo``: bubblewrap with the arguments ``kilo_bwrap_args`` builds from the same
``sandbox`` object), leave the same marks on the host: a write in the workspace, in its
``.git``, in a ``writable_paths`` root and outside, a read of a secret outside the workspace
(Kilo never restricts reads), and a request to a local server; for the sandbox twsrt writes and
for one switched off (the control: every mark is left).

Then whole ``twsrt test --engine kilo`` runs on a generated policy: every verdict is a PASS or a
GAP with its rule (TWS460 for the reads, TWS461 for the writable roots), and a file weakened on
disk (``sandbox.enabled`` false) makes the probes FAIL, never PASS."""

from __future__ import annotations

import json
import os
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

from twsrt.agents.kilo.engine import KiloEngine, kilo_dirs, kilo_sandbox, run_as_kilo
from twsrt.testing.bwrapmodel import BWRAP_DEFAULT
from twsrt.testing.engines import base_env
from twsrt.testing.model import ProbeReport, Verdict
from twsrt.testing.run import run_tests

from .opencode_client import KILO, Setup, bash, run_agent

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("kilo_engine")]

SECRET = "KILO-ENGINE-SECRET"
MARKS = ("inside", ".git", "writable", "outside", "read", "net")


def _sandbox(root: Path, enabled: bool) -> dict[str, Any]:
    return {
        "enabled": enabled,
        "network": "deny",
        "allowed_hosts": [],
        "writable_paths": [str(root / "writable")],
    }


def _commands(root: Path, port: int, tag: str) -> list[tuple[str, str, str]]:
    """(mark, shell command, the path it leaves only if it was allowed; "net": a hit)."""
    fetch = f"import urllib.request as u; u.urlopen('http://127.0.0.1:{port}/{tag}', timeout=20)"
    return [
        ("inside", "touch inside", "ws/inside"),
        (".git", "touch .git/planted", "ws/.git/planted"),
        ("writable", f"touch {root / 'writable' / 'w'}", "writable/w"),
        ("outside", f"touch {root / 'outside' / 'o'}", "outside/o"),
        ("read", f"cp {root / 'secret'} read-copy", "ws/read-copy"),
        ("net", f'python3 -c "{fetch}"', "net"),
    ]


def _setup(root: Path, enabled: bool) -> Setup:
    perms = {"bash": "allow", "external_directory": "allow"}
    setup = Setup(root, KILO, user={"permission": perms, "sandbox": _sandbox(root, enabled)})
    for sub in ("writable", "outside"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "secret").write_text(SECRET + "\n")
    return setup


@pytest.fixture(scope="module")
def bwrap() -> str:
    return require_tool("bwrap", locate_tool("bwrap", "TWSRT_BWRAP_BIN", BWRAP_DEFAULT))


@pytest.fixture(scope="module")
def observed(bwrap: str) -> Iterator[dict[str, dict[str, bool]]]:
    """Each sandbox (on, off) in the real agent (one run, each command a call) and in the model
    (one run per command, in Kilo's directories of that tree): run -> mark -> left."""
    binary = KILO.binary()
    base = Path(tempfile.mkdtemp(prefix="twsrt-kilo-engine-", dir="/var/tmp"))
    with hit_server() as server, FakeChat().serving() as fake:
        plans = []
        for enabled in (True, False):
            for who in ("real", "model"):
                tag = f"{who}-{'on' if enabled else 'off'}"
                root = base / tag
                setup = _setup(root, enabled)
                setup.write(fake.base_url(tag))
                plans.append((tag, setup, enabled, _commands(root, server.port, tag)))

        def play(tag: str, setup: Setup, enabled: bool, commands: list[Any]) -> Any:
            if tag.startswith("real"):
                return run_agent(binary, fake, tag, setup, [bash(c) for _, c, _ in commands])
            sandbox = kilo_sandbox({"sandbox": _sandbox(setup.root, enabled)})
            dirs = kilo_dirs(setup.home, setup.root / "tmp")
            for path in dirs.values():
                path.mkdir(parents=True, exist_ok=True)
            env = base_env(setup.root)
            for _, command, _ in commands:
                run_as_kilo(bwrap, sandbox, setup.workspace, dirs, command, env, 30.0)
            return None

        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                runs = [f.result() for f in [pool.submit(play, *plan) for plan in plans]]
            out: dict[str, dict[str, bool]] = {}
            for (tag, setup, _enabled, commands), ran in zip(plans, runs, strict=True):
                if ran is not None:  # every call of the real run was answered
                    assert [r.verdict for r in ran.results] == ["ran"] * len(commands), ran
                out[tag] = {
                    mark: (
                        any(hit.endswith("/" + tag) for hit in server.hits)
                        if path == "net"
                        else (setup.root / path).exists()
                    )
                    for mark, _, path in commands
                }
            yield out
        finally:
            shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_the_model_leaves_the_marks_the_real_agent_leaves(
    observed: dict[str, dict[str, bool]], sandbox: str
) -> None:
    assert observed[f"model-{sandbox}"] == observed[f"real-{sandbox}"]


def test_the_marks_tell_the_sandbox_from_none(observed: dict[str, dict[str, bool]]) -> None:
    """On: the workspace and the write root are written, ``.git`` and outside are not, the read
    is made, no request arrives. Off: every mark is left."""
    on = {"inside": True, ".git": False, "writable": True, "outside": False}
    assert observed["real-on"] == {**on, "read": True, "net": False}
    assert observed["real-off"] == dict.fromkeys(MARKS, True)


# ------------------------------------------------------------------ whole runs of the engine

POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["~/secret.txt"],
        "denyWrite": ["~/.bashrc", "locked", "~/out/locked"],
        "allowWrite": [".", "~/out"],
    },
    "network": {"allowedDomains": ["example.com"], "deniedDomains": []},
}


def _context(repo: Path) -> Any:
    """A config targeting only Kilo, its file written as `twsrt generate -w` does."""
    from support.cli import compiled as compile_request

    from twsrt import run
    from twsrt.documents import Documents

    repo.mkdir()
    (repo / "srt.json").write_text(json.dumps(POLICY, indent=2))
    (repo / "bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    config = repo / "twsrt.toml"
    targets = '[targets]\nkilo_config = "out/kilo.jsonc"\n'
    config.write_text(f'[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n{targets}')
    compiled = compile_request(str(config))
    run.write(run.write_plan(compiled.results))
    assert compiled.context is not None
    return replace(compiled.context, documents=Documents())


def _verdicts(report: ProbeReport, kind: str) -> set[tuple[str, str | None]]:
    return {
        (r.verdict.value, r.gap.rule_id if r.gap else None)
        for r in report.results
        if r.probe.kind == kind
    }


def _explain(report: ProbeReport) -> str:
    return "\n".join(f"{r.probe.name}: {r.verdict.value} {r.detail}" for r in report.results)


def _cli(repo: Path, bwrap: str) -> Any:
    from support.cli import run_cli

    env = {**os.environ, "TWSRT_BWRAP_BIN": bwrap}
    return run_cli(["test", "-c", str(repo / "twsrt.toml"), "--engine", "kilo"], cwd=repo, env=env)


def test_the_generated_file_passes_or_gaps_with_its_rules(tmp_path: Path, bwrap: str) -> None:
    """Reads GAP with TWS460, the denies in the workspace and in a ``writable_paths`` root with
    TWS461, the closed network with the note translate emits; what the sandbox enforces passes;
    nothing FAILs."""
    ctx = _context(tmp_path / "repo")
    report = run_tests(ctx, "kilo", factory=lambda name: KiloEngine(bwrap))
    assert report.engines == ["kilo"]
    assert not [r for r in report.results if r.verdict is Verdict.FAIL], _explain(report)
    assert _verdicts(report, "deny-read") == {("GAP", "TWS460")}, _explain(report)
    assert ("GAP", "TWS461") in _verdicts(report, "deny-write"), _explain(report)
    for inside in ("locked", "~/out/locked"):  # the workspace, a writable_paths root
        found = {
            (r.verdict.value, r.gap.rule_id if r.gap else None)
            for r in report.results
            if r.probe.kind == "deny-write" and r.probe.rule == inside
        }
        # (a hard link across Kilo's bind mounts fails: PASS)
        assert ("GAP", "TWS461") in found <= {("GAP", "TWS461"), ("PASS", None)}, _explain(report)
    bashrc = {r.verdict for r in report.results if r.probe.rule == "~/.bashrc"}
    assert bashrc == {Verdict.PASS}, _explain(report)
    assert {v for v, _ in _verdicts(report, "write-outside")} == {"PASS"}
    assert ("PASS", None) in _verdicts(report, "allow-write"), _explain(report)
    assert report.exit_code == 0
    ran = _cli(tmp_path / "repo", bwrap)
    assert ran.returncode == 0, ran
    assert "kilo  GAP" in ran.stdout and "(engine gap TWS460)" in ran.stdout, ran.stdout
    assert "FAIL" not in ran.stdout


def test_the_file_with_its_sandbox_off_fails(tmp_path: Path, bwrap: str) -> None:
    """``sandbox.enabled`` false on disk: Kilo runs every command unsandboxed, so the engine does
    too, and every deny probe FAILs (no gap excuses it)."""
    ctx = _context(tmp_path / "repo")
    path = ctx.config.targets["kilo_config"]
    settings = json.loads(path.read_text())
    settings["sandbox"]["enabled"] = False
    path.write_text(json.dumps(settings, indent=2))
    report = run_tests(ctx, "kilo", factory=lambda name: KiloEngine(bwrap))
    denies = [r for r in report.results if r.probe.kind in ("deny-read", "deny-write")]
    assert denies and {r.verdict for r in denies} == {Verdict.FAIL}, _explain(report)
    assert {r.verdict for r in report.results if r.probe.kind == "write-outside"} == {Verdict.FAIL}
    assert report.exit_code != 0
    ran = _cli(tmp_path / "repo", bwrap)
    assert ran.returncode == 1 and "kilo  FAIL    deny-read ~/secret.txt" in ran.stdout, ran
