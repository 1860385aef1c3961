"""The real Codex CLI on the profile files the effective-configuration check reads (TWS607).

A policy denies writes to ``~/proj/secrets``; twsrt generates the Codex config. Codex 0.171
loads ``NAME.config.toml`` beside config.toml for ``codex --profile NAME``: a
``default_permissions`` or ``sandbox_mode`` there replaces the twsrt profile, so a create inside
the denied directory succeeds — exactly what `twsrt check` must report as an error at that line.
A ``[sandbox_workspace_write]`` table alone changes nothing, and check stays quiet about it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .codex_client import codex_bin, sandbox_run

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parent.parent.parent
WRITE = "echo x > ~/proj/secrets/new && echo WROTE"
WIDE = {
    "wide": 'default_permissions = ":danger-full-access"\n',
    "legacy": 'sandbox_mode = "danger-full-access"\n',
}
QUIET = '[sandbox_workspace_write]\nwritable_roots = ["~/proj/secrets"]\n'


@pytest.fixture(scope="session")
def codex() -> str:
    return codex_bin()


def _twsrt(config: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twsrt", "-c", str(config), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        check=False,
    )


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, Path, str]:
    home = tmp_path / "home"
    (home / "proj" / "secrets").mkdir(parents=True)
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    srt = {"filesystem": {"allowWrite": ["~/proj"], "denyWrite": ["~/proj/secrets"]}}
    (dotfiles / "srt.json").write_text(json.dumps(srt))
    (dotfiles / "bash.json").write_text("{}")
    config = dotfiles / "twsrt.toml"
    config.write_text(
        f'home = "{home}"\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        '[targets]\ncodex_config = "codex/config.toml"\n'
    )
    assert _twsrt(config, home, "generate", "codex", "-w").returncode == 0
    return home, config, dotfiles / "codex", (dotfiles / "codex" / "config.toml").read_text()


@pytest.mark.parametrize("name", sorted(WIDE))
def test_profile_file_that_replaces_the_profile_widens_and_is_reported(
    codex: str, layout: tuple[Path, Path, Path, str], name: str
) -> None:
    home, config, codex_dir, generated = layout
    files = {f"{name}.config.toml": WIDE[name]}
    rc, out = sandbox_run(codex, generated, WRITE, home / "proj", home)
    assert rc != 0 and "WROTE" not in out, out  # the twsrt profile denies the create
    rc, out = sandbox_run(
        codex, generated, WRITE, home / "proj", home, profile=name, extra_files=files
    )
    assert rc == 0 and "WROTE" in out, out  # the profile file undoes the policy
    (codex_dir / f"{name}.config.toml").write_text(WIDE[name])
    result = _twsrt(config, home, "check", "--agent", "codex", "--format", "json")
    found = json.loads(result.stdout)["findings"]
    rule = {"wide": "TWS607", "legacy": "TWS202"}[name]
    hits = [f for f in found if f["location"]["path"].endswith(f"{name}.config.toml")]
    assert [(f["rule_id"], f["level"], f["location"]["line"]) for f in hits] == [(rule, "error", 1)]
    assert result.returncode == 1


def test_workspace_write_table_alone_changes_nothing_and_stays_quiet(
    codex: str, layout: tuple[Path, Path, Path, str]
) -> None:
    home, config, codex_dir, generated = layout
    files = {"quiet.config.toml": QUIET}
    rc, out = sandbox_run(
        codex, generated, WRITE, home / "proj", home, profile="quiet", extra_files=files
    )
    assert rc != 0 and "WROTE" not in out, out
    (codex_dir / "quiet.config.toml").write_text(QUIET)
    result = _twsrt(config, home, "check", "--agent", "codex", "--format", "json")
    found = json.loads(result.stdout)["findings"]
    assert not [f for f in found if f["location"]["path"].endswith("quiet.config.toml")]
