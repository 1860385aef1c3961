"""``twsrt test`` never starts a program the checkout names on the host, outside a sandbox.

srt 0.0.83 starts ``ripgrep.command`` (its mandatory-deny scan), ``bwrapPath`` and
``socatPath`` itself, outside its sandbox, as the user running it: the control below runs srt
on the policy and each canary program writes its mark on the host (as root, in CI). ``twsrt
test`` on the same policy (srt engine), and on a Claude settings file naming them in
``sandbox`` (claude engine), writes no mark and reports each key as UNMODELLED (TWS506); in
Claude's file ``ripgrep`` is a key twsrt manages, added by hand, so that run also fails there. Codex
0.171.0's ``codex sandbox`` starts none of the programs its config names (``notify``, an MCP
server, a model provider's auth command): no mark either way; the codex engine leaves them out
of its copy regardless.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support.sandbox import twsrt_command

from .codex_client import sandbox_run

pytestmark = pytest.mark.real

POLICY = {
    "filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."], "denyWrite": []},
    "network": {"allowedDomains": [], "deniedDomains": []},
}


def canary(tmp_path: Path, tool: str) -> tuple[Path, Path]:
    """A program that writes its mark on the host, then runs the real ``tool``."""
    mark = tmp_path / f"MARK-{tool}"
    program = tmp_path / "bin" / f"fake-{tool}"
    program.parent.mkdir(exist_ok=True)
    real = shutil.which(tool)
    assert real, tool
    program.write_text(f'#!/bin/sh\nid -u >> "{mark}"\nexec "{real}" "$@"\n')
    program.chmod(0o755)
    return program, mark


def marks(tmp_path: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in tmp_path.glob("MARK-*")}


ACCEPT = """
[[check.ignore]]
rule = "claude-planted-layers"
reason = "these tests are about the programs srt starts, not about planted layers"
"""


def repo_with(tmp_path: Path, policy: dict, targets: str = "") -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "srt.json").write_text(json.dumps(policy, indent=2))
    (repo / "bash.json").write_text('{"allow": [], "deny": [], "ask": []}')
    (repo / "twsrt.toml").write_text(
        f'[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n{targets}{ACCEPT}'
    )
    return repo


def twsrt(repo: Path, tmp_path: Path, srt: str, codex: str, *args: str, code: int = 0) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    env.update(HOME=str(tmp_path / "home"), TWSRT_SRT_BIN=srt, TWSRT_CODEX_BIN=codex)
    proc = subprocess.run(
        [*twsrt_command(), "test", "--json", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == code, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_srt_s_programs_named_by_the_policy_never_run(tmp_path: Path, srt: str, codex: str) -> None:
    programs = {tool: canary(tmp_path, tool) for tool in ("rg", "bwrap", "socat")}
    policy = {
        **POLICY,
        "ripgrep": {"command": str(programs["rg"][0])},
        "bwrapPath": str(programs["bwrap"][0]),
        "socatPath": str(programs["socat"][0]),
    }
    # control: srt itself starts every one of them on the host
    settings = tmp_path / "control.json"
    settings.write_text(json.dumps(policy))
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    subprocess.run([srt, "--settings", str(settings), "-c", "true"], cwd=work, env=env, timeout=120)
    assert set(marks(tmp_path)) == {"MARK-rg", "MARK-bwrap", "MARK-socat"}, marks(tmp_path)
    for _, mark in programs.values():
        mark.unlink()

    report = twsrt(repo_with(tmp_path, policy), tmp_path, srt, codex, "--engine", "srt")
    assert marks(tmp_path) == {}
    results = {r["name"]: r for r in report["results"]}
    for key in ("ripgrep", "bwrapPath", "socatPath"):
        result = results[f"host-program {key}"]
        assert (result["verdict"], result["gap"]["rule_id"]) == ("UNMODELLED", "TWS506")
    # the probes still ran, with the host's own rg, bwrap and socat
    assert results["deny-read ~/.aws"]["verdict"] == "PASS"


def test_a_claude_file_s_programs_never_run(tmp_path: Path, srt: str, codex: str) -> None:
    programs = {tool: canary(tmp_path, tool) for tool in ("rg", "bwrap")}
    repo = repo_with(
        tmp_path, POLICY, '[targets]\nclaude_settings = "home/.claude/settings.json"\n'
    )
    subprocess.run(
        [*twsrt_command(), "generate", "claude", "-w"],
        cwd=repo,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        check=True,
        capture_output=True,
    )
    target = repo / "home/.claude/settings.json"
    settings = json.loads(target.read_text())
    settings["sandbox"]["ripgrep"] = {"command": str(programs["rg"][0])}
    settings["sandbox"]["bwrapPath"] = str(programs["bwrap"][0])
    target.write_text(json.dumps(settings, indent=2) + "\n")
    report = twsrt(repo, tmp_path, srt, codex, "--engine", "claude", code=1)
    assert marks(tmp_path) == {}
    found = {r["name"]: r["verdict"] for r in report["results"] if r["kind"] == "host-program"}
    assert found == {"host-program ripgrep": "UNMODELLED", "host-program bwrapPath": "UNMODELLED"}
    # ripgrep is a key of the sandbox section twsrt manages, added by hand: the run fails there
    failing = {r["name"].split(" = ")[0] for r in report["results"] if r["verdict"] == "FAIL"}
    assert failing == {"hand-added sandbox.ripgrep"}


def test_codex_starts_no_program_its_config_names(tmp_path: Path, srt: str, codex: str) -> None:
    repo = repo_with(tmp_path, POLICY, '[targets]\ncodex_config = "home/.codex/config.toml"\n')
    subprocess.run(
        [*twsrt_command(), "generate", "codex", "-w"],
        cwd=repo,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        check=True,
        capture_output=True,
    )
    # every real home has one; without it Codex fails closed (TWS618)
    (tmp_path / "home" / ".config").mkdir(parents=True, exist_ok=True)
    mark = tmp_path / "MARK-codex"
    touch = f'["sh", "-c", "id -u >> {mark}"]'
    config = repo / "home/.codex/config.toml"
    tables = (
        f'\n[mcp_servers.canary]\ncommand = "sh"\nargs = ["-c", "id -u >> {mark}"]\n'
        f'[model_providers.canary]\nname = "c"\nbase_url = "http://127.0.0.1:9"\n'
        f'[model_providers.canary.auth]\ncommand = "sh"\nargs = ["-c", "id -u >> {mark}"]\n'
    )
    config.write_text(f"notify = {touch}\n" + config.read_text() + tables)
    # control: Codex itself, on the config as it is, starts none of them for `codex sandbox`
    code, out = sandbox_run(codex, config.read_text(), "echo ran", tmp_path, tmp_path / "home")
    assert (code, out.strip().splitlines()[-1]) == (0, "ran"), out  # it loaded the config
    assert not mark.exists()
    twsrt(repo, tmp_path, srt, codex, "--engine", "codex", "-k", "deny-read ~/.aws")
    assert not mark.exists()
