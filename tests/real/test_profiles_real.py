"""Composed profiles against the real tools: `twsrt test --engine srt` runs srt with the
profile's composed settings (a deny written in a later fragment is enforced; each probe names the
fragment line behind it); Codex loads each profile's files under --strict-config and enforces
the selected profile in `codex sandbox`; `claude doctor` accepts each profile's settings.

Needs srt 0.0.83 on bubblewrap, Codex 0.171.0 and Claude Code (.ci/install-*.sh); skips
without them, fails under TWSRT_REQUIRE_REAL_TOOLS=1.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.cli import run_cli
from support.sandbox import REPO_ROOT
from support.tools import locate_tool, require_tool

from .claude_doctor import DEFAULT_BIN as CLAUDE_DEFAULT
from .claude_doctor import claude_accepts_settings
from .codex_client import codex_bin, config_loads, sandbox_run

pytestmark = pytest.mark.real

SRT_DEFAULT = "/opt/twsrt-tools/srt/bin/srt"


@pytest.fixture(scope="session")
def srt() -> str:
    return require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", SRT_DEFAULT))


def probe(repo: Path, srt: str, profile: str, keyword: str) -> dict:
    env = {"TWSRT_SRT_BIN": srt, "HOME": str(repo.parent / "home"), "NO_COLOR": "1"}
    (repo.parent / "home").mkdir(exist_ok=True)
    args = ["test", "--engine", "srt", "--profile", profile, "-k", keyword, "--json"]
    result = run_cli(args, cwd=repo, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    if not result.stdout:  # no probe matched: a usage error, said on stderr
        return {"exit": result.returncode, "stderr": result.stderr, "results": []}
    return json.loads(result.stdout) | {"exit": result.returncode}


def test_a_later_fragments_deny_is_enforced_by_srt(tmp_path: Path, srt: str) -> None:
    """work extends base, python, corp-network: srt denies ~/.kube (corp-network's only deny)
    on every read attack, the unsandboxed control reads it, and each probe stands at the
    corp-network fragment's line."""
    repo = tmp_path / "profiles"
    shutil.copytree(REPO_ROOT / "examples" / "profiles", repo, symlinks=True)
    (repo / ".git").mkdir()
    report = probe(repo, srt, "work", "kube")
    assert report["exit"] == 0
    assert report["profile"]["name"] == "work"
    assert report["inputs"]["srt"] == ["policy/base.srt.json", "policy/corp-network.srt.json"]
    results = report["results"]
    assert len(results) >= 4
    for result in results:
        assert result["verdict"] == "PASS", result
        assert result["control"]["outcome"] == "allowed"  # the probe discriminates
        assert result["sandboxed"]["outcome"] == "denied"
        where = result["location"]
        assert (where["path"], where["line"], where["column"]) == (
            "policy/corp-network.srt.json",
            4,
            18,
        )
    # base's own deny is still enforced in the same composed run
    base = probe(repo, srt, "work", "deny-read ~/.ssh")
    assert base["exit"] == 0 and base["results"]
    assert {r["location"]["path"] for r in base["results"]} == {"policy/base.srt.json"}
    # home composes base only: nothing about ~/.kube is probed (nor denied)
    home = probe(repo, srt, "home", "kube")
    assert (home["exit"], home["results"]) == (2, [])
    assert "no probe matches -k 'kube'" in home["stderr"]


# ------------------------------------------------------------------ the agents load each profile

EXAMPLE = REPO_ROOT / "examples" / "profiles"


@pytest.fixture(scope="session")
def codex() -> str:
    return codex_bin()


@pytest.mark.parametrize("profile", ["work", "home"])
def test_each_profiles_committed_files_load(profile: str, codex: str) -> None:
    """Codex loads each profile's committed config.toml and rules under --strict-config, and
    `claude doctor` reports no settings problem in its Claude Code settings."""
    codex_dir = EXAMPLE / profile / ".codex"
    ok, output = config_loads(
        codex,
        (codex_dir / "config.toml").read_text(encoding="utf-8"),
        (codex_dir / "rules" / "twsrt.rules").read_text(encoding="utf-8"),
    )
    assert ok, output
    claude = require_tool("claude", locate_tool("claude", "TWSRT_CLAUDE_BIN", CLAUDE_DEFAULT))
    ok, output = claude_accepts_settings(claude, EXAMPLE / profile / ".claude/settings.full.json")
    assert ok, output


def test_codex_enforces_the_selected_profile(tmp_path: Path, codex: str) -> None:
    """Generated for this machine's home: under the work profile's Codex config a command
    cannot read ~/.kube (denied by the corp-network fragment only), under the home profile's
    it can; ~/.ssh (base) is unreadable under both."""
    home, work = tmp_path / "home", tmp_path / "work"
    for name in (".kube", ".ssh"):
        (home / name).mkdir(parents=True)
        (home / name / "config").write_text(f"twsrt-secret{name}\n", encoding="utf-8")
    # every home has ~/.config; this one lies below the /tmp write root, where Codex 0.171.0
    # cannot start while two protected entries (~/.config/gh, a target's copy) share a
    # missing parent ("Can't bind mount ... No such file or directory")
    (home / ".config").mkdir()
    work.mkdir()
    repo = tmp_path / "profiles"
    shutil.copytree(EXAMPLE, repo, symlinks=True)
    (repo / ".git").mkdir()
    config = repo / "twsrt.toml"
    text = config.read_text(encoding="utf-8").replace('"/home/user"', json.dumps(str(home)))
    config.write_text(text, encoding="utf-8")
    env = {"HOME": str(home), "NO_COLOR": "1"}
    for profile in ("work", "home"):
        result = run_cli(["generate", "codex", "-w", "--profile", profile], cwd=repo, env=env)
        assert result.returncode == 0, result.stderr
    outcomes = {}
    for profile in ("work", "home"):
        codex_config = (repo / profile / ".codex" / "config.toml").read_text(encoding="utf-8")
        for name in (".kube", ".ssh"):
            rc, out = sandbox_run(codex, codex_config, f"cat ~/{name}/config", work, home)
            outcomes[profile, name] = rc == 0 and f"twsrt-secret{name}" in out
    assert outcomes == {
        ("work", ".kube"): False,
        ("work", ".ssh"): False,
        ("home", ".kube"): True,  # the control: readable where the policy allows it
        ("home", ".ssh"): False,
    }
