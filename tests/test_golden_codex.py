"""Golden files for the Codex target: profile, rules, merge, findings.

Each directory under tests/golden/codex holds srt.json, bash.json, an optional existing
config.toml (existing.toml) and expected outputs. A case with config-extra.toml runs without
``codex_rules``. Regenerate with ``UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from conftest import Sandbox

GOLDEN = Path(__file__).parent / "golden" / "codex"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
SECRETS = ("ghp_SECRET_DO_NOT_PRINT", "SECRET_HEADER_VALUE", "SECRET_ENV_VALUE")


def config_text(with_rules: bool) -> str:
    text = (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[targets]\ncodex_config = "home/.codex/config.toml"\n'
    )
    if with_rules:
        text += 'codex_rules = "home/.codex/rules/twsrt.rules"\n'
    return text


def setup_case(sandbox: Sandbox, case: Path) -> tuple[Path, Path]:
    shutil.copy(case / "srt.json", sandbox.repo / ".srt-settings.json")
    shutil.copy(case / "bash.json", sandbox.repo / "bash-rules.json")
    sandbox.write("twsrt.toml", config_text(not (case / "config-extra.toml").exists()))
    config = sandbox.repo / "home" / ".codex" / "config.toml"
    if (case / "existing.toml").exists():
        config.parent.mkdir(parents=True)
        shutil.copy(case / "existing.toml", config)
    return config, config.parent / "rules" / "twsrt.rules"


def check(expected: Path, actual: str) -> None:
    if UPDATE:
        expected.write_text(actual, encoding="utf-8")
    assert expected.exists(), f"missing golden file {expected}; run with UPDATE_GOLDEN=1"
    assert actual == expected.read_text(encoding="utf-8")


SANDBOX_MODES = ("workspace-write", "read-only", "danger-full-access")


@pytest.mark.parametrize("sandbox_mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_codex_golden(sandbox: Sandbox, name: str, sandbox_mode: str) -> None:
    case = GOLDEN / name
    config, rules = setup_case(sandbox, case)
    # the default mode keeps the plain golden names, the others are prefixed
    prefix = "" if sandbox_mode == "workspace-write" else f"{sandbox_mode}."
    flag = ["--sandbox", sandbox_mode]
    preview = sandbox.run("generate", "codex", *flag)
    assert preview.returncode == 0, preview.stderr
    check(case / f"{prefix}preview.txt", preview.stdout)
    result = sandbox.run("generate", "codex", "-w", "-v", *flag)
    assert result.returncode == 0, result.stderr
    check(case / f"{prefix}expected.config.toml", config.read_text(encoding="utf-8"))
    check(case / f"{prefix}stderr.txt", result.stderr)
    if (case / "config-extra.toml").exists():
        assert not rules.exists()
    else:
        # the exec-policy rules are the same in every sandbox mode
        check(case / "expected.twsrt.rules", rules.read_text(encoding="utf-8"))
        assert stat.S_IMODE(rules.stat().st_mode) == 0o600
    if not (case / "existing.toml").exists():
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
    for output in (preview.stdout, preview.stderr, result.stdout, result.stderr):
        assert not any(secret in output for secret in SECRETS)
    # yolo output is identical, a second write changes nothing, and diff agrees
    before = config.read_bytes()
    again = sandbox.run("generate", "codex", "-w", "--yolo", *flag)
    assert again.returncode == 0
    assert config.read_bytes() == before
    assert "twsrt: unchanged home/.codex/config.toml" in again.stderr
    diff = sandbox.run("diff", "codex", *flag)
    assert diff.returncode == 0, diff.stdout
    assert not any(secret in diff.stdout + diff.stderr for secret in SECRETS)
