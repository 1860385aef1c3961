"""Helpers of the `twsrt test` real tests: generated Codex targets and report views."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context
from twsrt.testing.model import ProbeReport

CODEX_TARGETS = """\
[targets]
codex_config = "home/.codex/config.toml"
codex_rules = "home/.codex/rules/twsrt.rules"
"""


def generated(tmp_path: Path, srt_settings: dict[str, Any], sandbox_mode: str = "") -> Context:
    """A config with Codex targets, its files generated on disk as `twsrt generate -w` writes
    them; the run context the probes read them with."""
    from twsrt import run

    (tmp_path / "srt.json").write_text(json.dumps(srt_settings, indent=2))
    (tmp_path / "bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    mode = f'[sandbox]\nmode = "{sandbox_mode}"\n' if sandbox_mode else ""
    config = tmp_path / "twsrt.toml"
    config.write_text(
        f'[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n{mode}{CODEX_TARGETS}'
    )
    compiled = run.compile_agents(str(config), None, False)
    run.write(run.write_plan(compiled.results))
    assert compiled.context is not None
    return compiled.context


def both(report: ProbeReport) -> ProbeReport:
    assert report.engines == ["srt", "codex"], report.skipped
    return report


def verdicts(report: ProbeReport) -> dict[tuple[str, str], str]:
    return {(r.engine, r.probe.name): r.verdict.value for r in report.results}


def explain(report: ProbeReport) -> str:
    from twsrt.reports.probes import render_text

    return render_text(report, verbose=True)


def drop_line(path: Path, line: str) -> None:
    """Remove one line from a file on disk, by hand as a user would."""
    lines = path.read_text().splitlines(keepends=True)
    kept = [item for item in lines if item.strip() != line]
    assert len(kept) == len(lines) - 1, path.read_text()
    path.write_text("".join(kept))
