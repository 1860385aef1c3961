"""The claude and deepcode engines of ``twsrt test``, with the real tools.

- claude: the engine MODELS Claude Code's reading of its settings file (srt runs the derived
  settings). The model is pinned against real Claude Code 2.1.332, driven headless by
  tests/real/claude_client.py: the very probe commands of a plan run once through the engine
  and once through Claude's Bash tool in the same fixture tree, and every verdict must agree -
  for the generated file and for the file with ``sandbox.enabled`` removed on disk.
- both engines on examples/dotfiles (no FAIL), and on a weakened file on disk (the deny probes
  FAIL, never PASS).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.sandbox import REPO_ROOT
from support.tools import locate_tool, require_tool

from twsrt.agents.claude.engine import ClaudeEngine
from twsrt.agents.deepcode.engine import DeepcodeEngine
from twsrt.documents import Documents
from twsrt.testing.model import Outcome, ProbeReport, Verdict
from twsrt.testing.modes import plan_for_mode
from twsrt.testing.run import run_tests

from .deepcode_client import bwrap_bin, node_bin
from .probing import across_launches, model_and_claude

pytestmark = pytest.mark.real

SRT_DEFAULT = "/opt/twsrt-tools/srt/bin/srt"
# Paths only under ~ and the launch directory: real Claude and the engine see the same tree.
PIN_POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["~/secret.txt", "~/private", "**/*.pem"],
        "denyWrite": ["~/out/locked", "locked", "~/.bashrc"],
        "allowWrite": [".", "~/out"],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}


@pytest.fixture(scope="session")
def srt() -> str:
    return require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", SRT_DEFAULT))


def context(repo: Path, targets: str, policy: dict[str, Any]) -> Any:
    """A config in ``repo`` with ``targets``, its files written as `twsrt generate -w` does."""
    from support.cli import compiled as compile_request

    from twsrt import run

    (repo / "srt.json").write_text(json.dumps(policy, indent=2))
    (repo / "bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    config = repo / "twsrt.toml"
    config.write_text(f'[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n{targets}')
    compiled = compile_request(str(config))
    run.write(run.write_plan(compiled.results))
    assert compiled.context is not None
    # the engines read the files just written: a new run (the compile's store read them before)
    return replace(compiled.context, documents=Documents())


def example_context(tmp_path: Path, yolo: bool = False, example: str = "dotfiles") -> Any:
    from twsrt.invocation import context as make_context
    from twsrt.invocation import find_config
    from twsrt.sources import load_policy

    repo = tmp_path / "example"
    shutil.copytree(REPO_ROOT / "examples" / example, repo, symlinks=True)
    (repo / ".git").mkdir()  # a repository, as the example is one (its files are compiled so)
    config = find_config(str(repo / "twsrt.toml"))
    return make_context(config, load_policy(config), yolo, None)


def by_probe(report: ProbeReport) -> dict[str, str]:
    return {r.probe.name: r.verdict.value for r in report.results}


def explain(report: ProbeReport) -> str:
    return "\n".join(
        f"{r.engine} {r.probe.name}: {r.verdict.value} {r.detail}" for r in report.results
    )


# ------------------------------------------------------------------ claude: the model pinned


def _pin(tmp_path: Path, srt: str, weaken: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each filesystem probe's outcome through the engine and through real Claude."""
    repo = tmp_path / "repo"
    repo.mkdir()
    ctx = context(repo, '[targets]\nclaude_settings = "out/settings.json"\n', PIN_POLICY)
    settings_file = ctx.config.targets["claude_settings"]
    if weaken:
        settings = json.loads(settings_file.read_text())
        del settings["sandbox"]["enabled"]
        settings_file.write_text(json.dumps(settings, indent=2))
    plan = plan_for_mode(ctx.written or ctx.policy, ctx.sandbox_mode)
    return model_and_claude(ctx, plan, srt, settings_file)


def test_claude_model_agrees_with_real_claude(tmp_path: Path, srt: str) -> None:
    """The generated file: every filesystem probe of the plan gets the same answer from the
    model and from Claude's Bash tool - including the relative ``locked`` (Edit rule at the
    launch directory), ``**/*.pem`` (Read rule) and the launch directory that is writable."""
    modelled, claude = _pin(tmp_path, srt, weaken=False)
    assert None not in claude.values(), claude
    assert modelled == claude
    assert Outcome.DENIED in modelled.values() and Outcome.ALLOWED in modelled.values()


def test_claude_model_agrees_without_enabled(tmp_path: Path, srt: str) -> None:
    """``sandbox.enabled`` removed on disk: real Claude enforces nothing, and the engine runs
    the probes unsandboxed too - every deny probe goes through."""
    modelled, claude = _pin(tmp_path, srt, weaken=True)
    assert None not in claude.values(), claude
    assert modelled == claude
    assert set(modelled.values()) == {Outcome.ALLOWED}


# ------------------------------------------------------------------ whole runs


# srt on Linux skips a glob left in denyWrite (TWS501); Claude runs srt, so the same probes
# are GAPs there too (the claude engine's gap table starts with srt's)


def test_claude_engine_on_examples_dotfiles(tmp_path: Path, srt: str) -> None:
    """Full and yolo files of the example, a policy without glob denies: every probe passes."""
    for yolo in (False, True):
        ctx = example_context(tmp_path / str(yolo), yolo)
        report = run_tests(ctx, "claude", factory=lambda name: ClaudeEngine(srt))
        report.results = [r for r in report.results if not across_launches(r)]
        assert report.engines == ["claude"]
        # MOOT: deny-domain pastebin.com, which no allow entry admits (not discriminating)
        rest = [r for r in report.results if r.verdict not in (Verdict.PASS, Verdict.MOOT)]
        assert rest == [], explain(report)
        passed = {r.probe.kind for r in report.results if r.verdict is Verdict.PASS}
        assert {"deny-read", "deny-write"} <= passed, explain(report)


def test_claude_engine_on_the_lossy_example(tmp_path: Path, srt: str) -> None:
    """The lossy example keeps a ``**/.env`` glob in denyWrite and a unix socket grant: srt's
    own gaps (the glob skipped, TWS501; the socket refused, TWS502) are the only probes that do
    not pass, and they are reported as gaps."""
    ctx = example_context(tmp_path, False, "broken/lossy-policy")
    report = run_tests(ctx, "claude", factory=lambda name: ClaudeEngine(srt))
    report.results = [r for r in report.results if not across_launches(r)]
    rest = [r for r in report.results if r.verdict not in (Verdict.PASS, Verdict.MOOT)]
    kinds = {(r.probe.kind, r.probe.rule) for r in rest}
    assert kinds == {("deny-write", "**/.env"), ("allow-unix-socket", "/run/user/1000")}, explain(
        report
    )
    assert {r.verdict for r in rest} == {Verdict.GAP}, explain(report)


def test_claude_engine_weakened_file_fails(tmp_path: Path, srt: str) -> None:
    """``sandbox.enabled`` removed from the example's Claude file on disk: every deny-read and
    deny-write probe FAILs, none PASSes, and the run fails."""
    ctx = example_context(tmp_path)
    path = ctx.config.targets["claude_settings"]
    settings = json.loads(path.read_text())
    del settings["sandbox"]["enabled"]
    path.write_text(json.dumps(settings, indent=2))
    report = run_tests(ctx, "claude", factory=lambda name: ClaudeEngine(srt))
    denies = [r for r in report.results if r.probe.kind in ("deny-read", "deny-write")]
    assert denies and {r.verdict for r in denies} == {Verdict.FAIL}, explain(report)
    assert report.exit_code != 0


def deepcode_engine() -> DeepcodeEngine:
    return DeepcodeEngine(node_bin(), bwrap_bin())


def test_deepcode_engine_on_examples_dotfiles(tmp_path: Path) -> None:
    """Filesystem probes only: with a non-empty allowedDomains DeepCode's network goes through
    a DNS proxy this engine does not run (``not_modelled``). Every deny-read probe (the
    adversarial ones too) holds; the glob denyWrite entries are open on Linux (DeepCode's
    bubblewrap profile has no denyWrite; only its Seatbelt profile does)."""
    ctx = example_context(tmp_path)
    made: list[DeepcodeEngine] = []

    def factory(name: str) -> DeepcodeEngine:  # a new engine per lane, as make_engine gives
        made.append(deepcode_engine())
        return made[-1]

    report = run_tests(ctx, "deepcode", factory=factory)
    assert report.engines == ["deepcode"]
    lanes = [e for e in made if e.args]  # the ones a lane prepared
    assert lanes and all(set(e.not_modelled) == {"fetch", "connect"} for e in lanes)
    fs = [r for r in report.results if r.probe.action.value not in lanes[0].not_modelled]
    reads = [r for r in fs if r.probe.kind == "deny-read"]
    assert reads and {r.verdict for r in reads} == {Verdict.PASS}, explain(report)


def test_deepcode_engine_weakened_file_fails(tmp_path: Path) -> None:
    """The example's DeepCode file switched to danger-full-access by hand on disk: DeepCode
    builds no sandbox, so every deny-read probe FAILs (none PASSes)."""
    ctx = example_context(tmp_path)
    path = ctx.config.targets["deepcode_settings"]
    settings = json.loads(path.read_text())
    settings["sandbox"]["mode"] = "danger-full-access"
    path.write_text(json.dumps(settings, indent=2))
    report = run_tests(ctx, "deepcode", factory=lambda name: deepcode_engine())
    denies = [r for r in report.results if r.probe.kind == "deny-read"]
    assert denies and {r.verdict for r in denies} == {Verdict.FAIL}, explain(report)
    assert report.exit_code != 0
