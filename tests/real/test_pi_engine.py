"""Whole ``twsrt test --engine pi`` runs on a generated pi file, with the real srt: what the
file enforces passes, what a command can still plant below a write root's top comes out as the
GAP of the rule check reports (TWS654), a file switched off on disk makes every deny probe FAIL,
and on a machine without bwrap each denied probe is the fail-open gap (TWS510). The engine's
model of the extension rests on tests/real/test_pi_generated.py's runs of the real pi."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from twsrt.agents.pi.engine import PiEngine
from twsrt.testing.model import ProbeReport, Verdict
from twsrt.testing.run import run_tests

from .gemini_client import path_without

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("pi_engine")]

POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["~/secret.txt"],
        "denyWrite": ["~/.bashrc", "locked"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": ["example.com"], "deniedDomains": []},
}


def _context(repo: Path) -> Any:
    """A config targeting only pi, its file written as `twsrt generate -w` does."""
    from support.cli import compiled as compile_request

    from twsrt import run
    from twsrt.documents import Documents

    repo.mkdir()
    (repo / "srt.json").write_text(json.dumps(POLICY, indent=2))
    (repo / "bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    config = repo / "twsrt.toml"
    targets = '[targets]\npi_sandbox = "out/sandbox.json"\n'
    config.write_text(f'[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n{targets}')
    compiled = compile_request(str(config))
    run.write(run.write_plan(compiled.results))
    assert compiled.context is not None
    return replace(compiled.context, documents=Documents())


def _run(ctx: Any) -> ProbeReport:
    engine = PiEngine()
    if not engine.binary:
        pytest.skip("no srt")
    return run_tests(ctx, "pi", factory=lambda name: PiEngine())


def _verdicts(report: ProbeReport, kind: str) -> set[tuple[str, str | None]]:
    return {
        (r.verdict.value, r.gap.rule_id if r.gap else None)
        for r in report.results
        if r.probe.kind == kind
    }


def _explain(report: ProbeReport) -> str:
    return "\n".join(f"{r.probe.name}: {r.verdict.value} {r.detail}" for r in report.results)


@pytest.fixture(autouse=True)
def _srt() -> None:
    from support.tools import locate_tool, require_tool

    from twsrt.testing.engine_srt import SRT_DEFAULT, SRT_ENV

    require_tool("srt", locate_tool("srt", SRT_ENV, SRT_DEFAULT))


def test_the_generated_file_passes_or_gaps_with_its_rules(tmp_path: Path) -> None:
    report = _run(_context(tmp_path / "repo"))
    assert report.engines == ["pi"]
    fails = [r for r in report.results if r.verdict is Verdict.FAIL]
    # check's own errors about the file (TWS654: what a command can plant below the top)
    assert {r.probe.kind for r in fails} <= {"effective"}, _explain(report)
    assert _verdicts(report, "deny-read") == {("PASS", None)}, _explain(report)
    assert {v for v, _ in _verdicts(report, "write-outside")} == {"PASS"}, _explain(report)
    assert ("PASS", None) in _verdicts(report, "deny-write"), _explain(report)
    planted = _verdicts(report, "plant-layer")
    assert ("GAP", "TWS654") in planted, _explain(report)
    top = [r for r in report.results if r.probe.kind == "mandatory" and "top" in r.probe.name]
    assert top and {r.verdict for r in top} == {Verdict.PASS}, _explain(report)


def test_the_file_switched_off_on_disk_fails(tmp_path: Path) -> None:
    ctx = _context(tmp_path / "repo")
    path = ctx.config.targets["pi_sandbox"]
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "enabled": False}, indent=2))
    report = _run(ctx)
    denies = [r for r in report.results if r.probe.kind in ("deny-read", "deny-write")]
    assert denies and {r.verdict for r in denies} == {Verdict.FAIL}, _explain(report)
    assert report.exit_code != 0


def test_without_bwrap_each_denied_probe_is_the_fail_open_gap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = _context(tmp_path / "repo")
    monkeypatch.setenv("PATH", path_without("bwrap", tmp_path / "nobwrap-bin"))
    report = _run(ctx)
    assert _verdicts(report, "deny-read") == {("GAP", "TWS510")}, _explain(report)
    assert ("GAP", "TWS510") in _verdicts(report, "write-outside"), _explain(report)
    assert os.environ["PATH"].endswith("nobwrap-bin")
