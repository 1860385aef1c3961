"""``twsrt test`` on a project-scope policy (issue 18): a relative deny glob in the project policy
covers files in the project for the claude engine.

- The claude engine MODELS Claude Code's reading of a PROJECT file (``.claude/settings.json`` in
  the project root, Claude started there): a relative sandbox path and a ``/x`` rule path hang
  from the project root. Pinned against real Claude Code 2.1.332 (tests/real/claude_client.py):
  the plan's filesystem probes, ``**/*.pem`` at three depths among them, run once through the
  engine and once through Claude's Bash tool with the generated project file, and agree.
- ``twsrt test --engine claude`` in the project repository passes, and fails once the generated
  project file drops the deny (so the test can fail).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli

from twsrt.testing.model import Outcome
from twsrt.testing.modes import plan_for_mode

from .probing import across_launches, model_and_claude

pytestmark = pytest.mark.real

PROJECT_POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["**/*.pem", "secrets", "~/secret.txt"],
        "denyWrite": ["locked"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}
CONFIG = """\
[sources]
srt = "policy/srt.json"
bash_rules = "policy/bash.json"

[project]
agents = ["claude"]

[[check.ignore]]
rule = "claude-planted-layers"
reason = "these tests are about the project file's denies, not about planted layers"
"""
SETTINGS = ".claude/settings.json"


def env(tmp_path: Path, srt: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    out.update(HOME=str(tmp_path / "home"), NO_COLOR="1", TWSRT_SRT_BIN=srt)
    out["GIT_CEILING_DIRECTORIES"] = str(tmp_path)
    out["TWSRT_MANAGED_ROOT"] = str(tmp_path / "host-root")
    return out


def project(tmp_path: Path, srt: str) -> Path:
    """A project repository with its own policy and its generated Claude Code project file."""
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    (root / "policy").mkdir()
    (root / "policy/srt.json").write_text(json.dumps(PROJECT_POLICY, indent=2))
    (root / "policy/bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    (root / "twsrt.toml").write_text(CONFIG)
    run = run_cli(("generate", "-w"), cwd=root, env=env(tmp_path, srt))
    assert run.returncode == 0, run.stderr
    return root


def twsrt_test(root: Path, tmp_path: Path, srt: str) -> tuple[int, dict[str, str]]:
    run = run_cli(("test", "--engine", "claude", "--json"), cwd=root, env=env(tmp_path, srt))
    assert run.stdout, run.stderr
    document = json.loads(run.stdout)
    verdicts = {r["name"]: r["verdict"] for r in document["results"]}
    return run.returncode, verdicts


def pem(verdicts: dict[str, str]) -> dict[str, str]:
    return {name: v for name, v in verdicts.items() if name.startswith("deny-read **/*.pem")}


def test_twsrt_test_probes_the_project_and_fails_when_the_deny_is_dropped(
    tmp_path: Path, srt: str
) -> None:
    root = project(tmp_path, srt)
    code, verdicts = twsrt_test(root, tmp_path, srt)
    assert code == 0, verdicts
    covered = pem(verdicts)
    # the glob's own probe and the project root (top) and three levels down (deep), and the
    # attacks on each depth (read, symlink-read, proc-read)
    assert {"deny-read **/*.pem", "deny-read **/*.pem [top]", "deny-read **/*.pem [deep]"} <= set(
        covered
    )
    assert any("deep symlink-read" in name for name in covered), covered
    assert set(covered.values()) == {"PASS"}, covered
    # the generated project file without the deny: the sandbox entry and the Read rule gone
    path = root / SETTINGS
    settings = json.loads(path.read_text())
    settings["sandbox"]["filesystem"]["denyRead"].remove("**/*.pem")
    settings["permissions"]["deny"] = [
        rule for rule in settings["permissions"]["deny"] if "*.pem" not in rule
    ]
    path.write_text(json.dumps(settings, indent=2))
    code, verdicts = twsrt_test(root, tmp_path, srt)
    assert code == 1, verdicts
    dropped = pem(verdicts)
    assert dropped.keys() == covered.keys()
    assert set(dropped.values()) == {"FAIL"}, dropped
    assert verdicts["deny-read secrets"] == "PASS"  # the rest of the file still holds


def test_claude_model_of_a_project_file_agrees_with_real_claude(tmp_path: Path, srt: str) -> None:
    """Every filesystem probe of the project plan (``**/*.pem`` at three depths, the relative
    ``secrets`` and ``locked``, the project root writable) gets the same answer from the
    engine's model and from Claude's Bash tool started in the project with its project file."""
    from twsrt.invocation import context, find_config
    from twsrt.sources import load_policy

    root = project(tmp_path, srt)
    config = find_config(str(root / "twsrt.toml"))
    ctx = context(config, load_policy(config), False, None)
    plan = plan_for_mode(ctx.written or ctx.policy, ctx.sandbox_mode, depths=True)
    modelled, claude = model_and_claude(ctx, plan, srt, {}, project_file=root / SETTINGS)
    assert {"deny-read **/*.pem [top]", "deny-read **/*.pem [deep]"} <= set(claude)
    assert None not in claude.values(), claude
    assert modelled == claude
    assert claude["deny-read **/*.pem [top]"] is Outcome.DENIED
    assert claude["deny-read **/*.pem [deep]"] is Outcome.DENIED
    assert Outcome.ALLOWED in claude.values()


def test_twsrt_test_project_option_from_a_dotfiles_repository(tmp_path: Path, srt: str) -> None:
    """``twsrt test --project DIR --engine claude`` from a dotfiles repository probes DIR's
    project file (written by ``generate -w --project DIR``), its **/ deny at every depth."""
    dots = tmp_path / "home" / "dots"
    (dots / ".git").mkdir(parents=True)
    (dots / "policy").mkdir()
    (dots / "policy/srt.json").write_text(json.dumps(PROJECT_POLICY, indent=2))
    (dots / "policy/bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    (dots / "twsrt.toml").write_text(CONFIG.replace('[project]\nagents = ["claude"]\n', ""))
    app = tmp_path / "app"
    app.mkdir()
    generated = run_cli(("generate", "-w", "--project", str(app)), cwd=dots, env=env(tmp_path, srt))
    assert generated.returncode == 0, generated.stderr
    assert (app / SETTINGS).is_file()
    argv = ("test", "--project", str(app), "--engine", "claude", "--json")
    run = run_cli(argv, cwd=dots, env=env(tmp_path, srt))
    results = json.loads(run.stdout)["results"]
    # the project compiles for every agent with a project file: a planted DeepCode layer is
    # open (test_twsrt_test_launches.py); everything else passes
    failing = {r["name"] for r in results if r["failing"]}
    assert all(across_launches(r) for r in results if r["failing"]), failing
    assert run.returncode == (1 if failing else 0), run.stdout + run.stderr
    verdicts = {r["name"]: r["verdict"] for r in results}
    covered = pem(verdicts)
    assert {"deny-read **/*.pem [top]", "deny-read **/*.pem [deep]"} <= set(covered)
    assert set(covered.values()) == {"PASS"}, covered


CODEX_CONFIG = CONFIG.replace('agents = ["claude"]', 'agents = ["codex"]')


def test_a_codex_project_s_layer_is_probed(tmp_path: Path, srt: str, codex: str) -> None:
    """A Codex-only project repository: ``twsrt test`` runs srt and codex, the codex engine on
    the project's own layer (before: skipped with "names no codex file", while the claude engine
    probed a .claude/settings.json twsrt never wrote and failed every deny). Codex 0.171.0,
    started in the trusted checkout, refuses the project's ``**/*.pem`` at every depth; once the
    layer on disk drops that deny, those probes fail."""
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    (root / "policy").mkdir()
    (root / "policy/srt.json").write_text(json.dumps(PROJECT_POLICY, indent=2))
    (root / "policy/bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    (root / "twsrt.toml").write_text(CODEX_CONFIG)
    environ = {**env(tmp_path, srt), "TWSRT_CODEX_BIN": codex}
    assert run_cli(("generate", "-w"), cwd=root, env=environ).returncode == 0
    run = run_cli(("test", "--json", "-k", "*.pem"), cwd=root, env=environ)
    assert run.returncode == 0, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert document["summary"]["engines"] == ["srt", "codex"]
    assert document["skipped"] == []
    assert document["inputs"]["codex"] == [".codex/config.toml", ".codex/rules/twsrt.rules"]
    codex_pem = {r["name"]: r["verdict"] for r in document["results"] if r["engine"] == "codex"}
    assert {"deny-read **/*.pem [top]", "deny-read **/*.pem [deep]"} <= set(codex_pem)
    assert set(codex_pem.values()) == {"PASS"}, codex_pem
    layer = root / ".codex/config.toml"
    layer.write_text(layer.read_text().replace('"**/*.pem" = "deny"\n', ""))
    argv = ("test", "--json", "-k", "*.pem", "--engine", "codex", "--engine", "srt")
    run = run_cli(argv, cwd=root, env=environ)
    assert run.returncode == 1, run.stdout + run.stderr
    document = json.loads(run.stdout)
    assert document["summary"]["engines"] == ["srt", "codex"]  # --engine twice: both ran
    by = {(r["engine"], r["name"]): r["verdict"] for r in document["results"]}
    assert by[("codex", "deny-read **/*.pem [top]")] == "FAIL"
    assert by[("codex", "deny-read **/*.pem [deep]")] == "FAIL"
    assert by[("srt", "deny-read **/*.pem [deep]")] == "PASS"
