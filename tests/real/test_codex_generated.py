"""The real Codex CLI on what twsrt generates: it loads, and it enforces the policy.

(a) every golden config.toml (+ rules) loads under --strict-config; (b) every bash deny rule is
`forbidden` for execpolicy and an unrelated command is not; (c)/(d) a policy compiled by the
installed `twsrt` command runs in `codex sandbox`: a denyRead directory is unreadable while the
workspace is writable, and the proxy refuses a host outside the allowlist while it lets an
allowed one through.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .codex_client import (
    FETCH_SCRIPT,
    NO_MATCH,
    codex_bin,
    config_loads,
    execpolicy_decision,
    sandbox_run,
)

pytestmark = pytest.mark.real

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "codex"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="session")
def codex() -> str:
    return codex_bin()


CONFIGS = sorted(GOLDEN.glob("*/*expected.config.toml"))  # every sandbox mode's goldens


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: "/".join(p.parts[-2:]))
def test_golden_config_loads(codex: str, config: Path) -> None:
    rules = config.parent / "expected.twsrt.rules"
    ok, output = config_loads(
        codex, config.read_text(), rules.read_text() if rules.exists() else None
    )
    assert ok, output


@pytest.mark.parametrize(
    "name", [n for n in CASES if (GOLDEN / n / "expected.twsrt.rules").exists()]
)
def test_golden_rules_forbid_every_deny(codex: str, name: str) -> None:
    case = GOLDEN / name
    rules = (case / "expected.twsrt.rules").read_text()
    for command in json.loads((case / "bash.json").read_text()).get("deny", []):
        argv = [*shlex.split(command), "--extra-arg"]
        assert execpolicy_decision(codex, rules, argv) == "forbidden", command
    assert execpolicy_decision(codex, rules, ["ls", "-la"]) == NO_MATCH


def _generate(tmp: Path, srt: dict, bash: dict, *extra: str) -> tuple[Path, Path, str]:
    home, work = tmp / "home", tmp / "work"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("twsrt-secret\n")
    work.mkdir()
    config_dir = tmp / "dotfiles"
    config_dir.mkdir()
    (config_dir / "srt.json").write_text(json.dumps(srt))
    (config_dir / "bash.json").write_text(json.dumps(bash))
    (config_dir / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        '[targets]\ncodex_config = "codex/config.toml"\n'
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "twsrt",
            "-c",
            str(config_dir / "twsrt.toml"),
            "generate",
            "codex",
            "-w",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    return home, work, (config_dir / "codex" / "config.toml").read_text()


def test_generated_profile_denies_reads_and_allows_workspace_writes(
    codex: str, tmp_path: Path
) -> None:
    srt = {"filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."]}}
    home, work, config = _generate(tmp_path, srt, {})
    control = subprocess.run(["cat", str(home / ".aws" / "credentials")], capture_output=True)
    assert control.returncode == 0  # the control run reads it
    rc, out = sandbox_run(codex, config, "cat ~/.aws/credentials", work, home)
    assert rc != 0 and "twsrt-secret" not in out, out
    rc, out = sandbox_run(codex, config, "echo ok > made.txt && cat made.txt", work, home)
    assert rc == 0 and "ok" in out, out
    assert (work / "made.txt").read_text() == "ok\n"


def test_read_only_profile_denies_workspace_writes_and_keeps_denies(
    codex: str, tmp_path: Path
) -> None:
    """--sandbox read-only: the generated profile (extends :read-only) lets commands read the
    workspace but write nowhere, not even into an allowWrite root, and the deny still holds."""
    srt = {"filesystem": {"denyRead": ["~/.aws"], "allowWrite": [".", "~/cache"]}}
    home, work, config = _generate(tmp_path, srt, {}, "--sandbox", "read-only")
    (home / "cache").mkdir()
    (work / "in.txt").write_text("readable\n")
    rc, out = sandbox_run(codex, config, "cat in.txt", work, home)
    assert rc == 0 and "readable" in out, out
    for target in ("made.txt", "~/cache/made.txt", "/tmp/twsrt-ro-made.txt"):
        rc, out = sandbox_run(codex, config, f"echo no > {target}", work, home)
        assert rc != 0, (target, out)
    assert not (work / "made.txt").exists() and not (home / "cache" / "made.txt").exists()
    assert not Path("/tmp/twsrt-ro-made.txt").exists()
    rc, out = sandbox_run(codex, config, "cat ~/.aws/credentials", work, home)
    assert rc != 0 and "twsrt-secret" not in out, out


def test_danger_full_access_runs_unsandboxed(codex: str, tmp_path: Path) -> None:
    """--sandbox danger-full-access really is Codex's built-in full access: the policy's deny
    is not enforced by Codex any more (which is why twsrt warns on every run)."""
    srt = {"filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."]}}
    home, work, config = _generate(tmp_path, srt, {}, "--sandbox", "danger-full-access")
    assert 'default_permissions = ":danger-full-access"' in config
    rc, out = sandbox_run(codex, config, "cat ~/.aws/credentials", work, home)
    assert rc == 0 and "twsrt-secret" in out, out


def _fetch(codex: str, config: str, url: str, work: Path, home: Path) -> dict:
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-c", FETCH_SCRIPT, url, "proxy"])
    rc, out = sandbox_run(codex, config, command, work, home)
    lines = [line for line in out.splitlines() if line.startswith("FETCH ")]
    assert rc == 0 and lines, out
    return json.loads(lines[-1][len("FETCH ") :])


def test_generated_allowlist_is_enforced_by_the_proxy(
    codex: str,
    tmp_path: Path,
    upstream: int,
) -> None:
    srt = {"network": {"allowedDomains": ["127.0.0.1", "github.com"], "deniedDomains": []}}
    home, work, config = _generate(tmp_path, srt, {})
    assert "network_proxy = true" in config
    refused = _fetch(codex, config, "http://example.org/", work, home)
    assert refused["status"] == 403 and refused["xpe"] == "blocked-by-allowlist", refused
    allowed = _fetch(codex, config, f"http://127.0.0.1:{upstream}/", work, home)
    assert allowed["status"] == 200, allowed


def test_example_dotfiles_codex_config_loads(codex: str) -> None:
    codex_dir = ROOT / "examples" / "dotfiles" / "home" / ".codex"
    ok, output = config_loads(
        codex,
        (codex_dir / "config.toml").read_text(),
        (codex_dir / "rules" / "twsrt.rules").read_text(),
    )
    assert ok, output
