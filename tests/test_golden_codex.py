"""Golden files for the Codex target: profile, rules, merge, findings.

Each directory under tests/golden/codex holds srt.json, bash.json, an optional existing
config.toml (existing.toml) and expected outputs. A case with config-extra.toml runs without
``codex_rules``. Regenerate with ``UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from support.golden import assert_golden, golden_name
from support.sandbox import Sandbox

from twsrt.config import SANDBOX_MODES

GOLDEN = Path(__file__).parent / "golden" / "codex"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
SECRETS = ("ghp_SECRET_DO_NOT_PRINT", "SECRET_HEADER_VALUE", "SECRET_ENV_VALUE")


def config_text(with_rules: bool) -> str:
    # the home is pinned so that findings which expand ~ (TWS418) read the same everywhere
    text = (
        'home = "/home/user"\n\n'
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


@pytest.mark.parametrize("sandbox_mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_codex_golden(sandbox: Sandbox, name: str, sandbox_mode: str) -> None:
    case = GOLDEN / name
    config, rules = setup_case(sandbox, case)
    flag = ["--sandbox", sandbox_mode]
    preview = sandbox.run("generate", "codex", *flag)
    assert preview.returncode == 0, preview.stderr
    assert_golden(case / golden_name(sandbox_mode, "preview.txt"), preview.stdout)
    result = sandbox.run("generate", "codex", "-w", "-v", *flag)
    assert result.returncode == 0, result.stderr
    assert_golden(
        case / golden_name(sandbox_mode, "expected.config.toml"), config.read_text(encoding="utf-8")
    )
    assert_golden(case / golden_name(sandbox_mode, "stderr.txt"), result.stderr)
    if (case / "config-extra.toml").exists():
        assert not rules.exists()
    else:
        # the exec-policy rules are the same in every sandbox mode
        assert_golden(case / "expected.twsrt.rules", rules.read_text(encoding="utf-8"))
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
