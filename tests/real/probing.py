"""Helpers of the `twsrt test` real tests: generated Codex targets and report views."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context
from twsrt.testing.launches import FAMILIES
from twsrt.testing.model import ProbeReport

CODEX_TARGETS = """\
[targets]
codex_config = "home/.codex/config.toml"
codex_rules = "home/.codex/rules/twsrt.rules"
"""


def generated(tmp_path: Path, srt_settings: dict[str, Any], sandbox_mode: str = "") -> Context:
    """A config with Codex targets, its files generated on disk as `twsrt generate -w` writes
    them; the run context the probes read them with."""
    from support.cli import compiled as compile_request

    from twsrt import run

    (tmp_path / "srt.json").write_text(json.dumps(srt_settings, indent=2))
    (tmp_path / "bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    mode = f'[sandbox]\nmode = "{sandbox_mode}"\n' if sandbox_mode else ""
    config = tmp_path / "twsrt.toml"
    config.write_text(
        f'[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n{mode}{CODEX_TARGETS}'
    )
    compiled = compile_request(str(config))
    run.write(run.write_plan(compiled.results))
    assert compiled.context is not None
    return compiled.context


def across_launches(result: Any) -> bool:
    """An attack across launches (a JSON result or a Result): those are judged, family by
    family and engine by engine, in test_twsrt_test_launches.py; the tests of the plain
    probes and the per-rule attacks leave them out."""
    kind = result["kind"] if isinstance(result, dict) else result.probe.kind
    return kind in FAMILIES


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


Outcomes = dict[str, Any]


def model_and_claude(
    ctx: Context, plan: Any, srt: str, user_settings: Any, project_file: Path | None = None
) -> tuple[Outcomes, Outcomes]:
    """Each filesystem probe of ``plan`` through the claude engine (the model) and through real
    Claude Code's Bash tool, in one fixture tree: Claude started in its work tree with
    ``user_settings`` as its user file and ``project_file`` (if any) as the work tree's
    ``.claude/settings.json``. Outcomes by probe name."""
    import base64
    import shutil
    import tempfile

    from twsrt.agents.claude.engine import ClaudeEngine
    from twsrt.testing.commands import command, observe
    from twsrt.testing.engines import build_fixtures, root_base, upstream_stub
    from twsrt.testing.model import Action

    from .claude_client import find_claude, run_bash

    probes = [
        p
        for p in plan.probes
        if p.action in (Action.READ, Action.APPEND, Action.CREATE) and not p.problem
    ]
    engine = ClaudeEngine(srt)
    with (
        tempfile.TemporaryDirectory(prefix="twsrt-pin-", dir=root_base()) as tmp,
        upstream_stub() as upstream,
    ):
        root = Path(tmp)
        build_fixtures(plan.fixtures, root)
        # Claude's user directory, as every user has it: a deny of the protected set there is
        # then bound as it is, not as srt's placeholder file where run_bash puts the settings
        if not (root / "home" / ".claude").exists():
            (root / "home" / ".claude").mkdir(parents=True)
        engine.prepare(ctx, root, upstream)
        shells = [command(p, str(root), "python3", i) for i, p in enumerate(probes)]
        modelled = {
            p.name: observe(p, (run := engine.run(s, 60)).exit_code, run.output).outcome
            for p, s in zip(probes, shells, strict=True)
        }
        if project_file is not None:
            (root / "work" / ".claude").mkdir()
            shutil.copyfile(project_file, root / "work" / ".claude" / "settings.json")
        # Claude's permission layer refuses a Bash command that names a denied path in its
        # text (before any sandbox); hidden in base64, the path reaches the sandbox
        hidden = [f"echo {base64.b64encode(s.encode()).decode()} | base64 -d | sh" for s in shells]
        real = run_bash(find_claude(), user_settings, hidden, home=root / "home", cwd=root / "work")
    claude = {
        p.name: observe(p, None, out or "").outcome
        for p, out in zip(probes, real.outputs, strict=True)
    }
    return modelled, claude
