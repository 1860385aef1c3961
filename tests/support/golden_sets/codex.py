"""Codex's profile, rules, merge and findings: the existing file is the user's config.toml
(existing.toml). A case holds the preview (preview.txt), the written config
(expected.config.toml), the findings ``generate -w -v`` prints (stderr.txt) and, when its config
names ``codex_rules``, the exec-policy rules (expected.twsrt.rules, the same in every sandbox
mode)."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

from support.golden import GoldenCase, pinned_config
from support.sandbox import Sandbox
from twsrt.config import SANDBOX_MODES

MODES = SANDBOX_MODES
CONFIG_FILE = "home/.codex/config.toml"
RULES_FILE = "home/.codex/rules/twsrt.rules"
SECRETS = ("ghp_SECRET_DO_NOT_PRINT", "SECRET_HEADER_VALUE", "SECRET_ENV_VALUE")
CONFIG = pinned_config(codex_config=CONFIG_FILE, codex_rules=RULES_FILE)


def check(case: GoldenCase, sandbox_mode: str, sandbox: Sandbox, _tmp_path: Path) -> None:
    config = case.install(sandbox, CONFIG, CONFIG_FILE)
    rules = sandbox.repo / RULES_FILE
    flag = ["--sandbox", sandbox_mode]
    preview = sandbox.run("generate", "codex", *flag)
    assert preview.returncode == 0, preview.stderr
    case.expect(sandbox, sandbox_mode, "preview.txt", preview.stdout)
    result = sandbox.run("generate", "codex", "-w", "-v", *flag)
    assert result.returncode == 0, result.stderr
    case.expect(sandbox, sandbox_mode, "expected.config.toml", config.read_text(encoding="utf-8"))
    case.expect(sandbox, sandbox_mode, "stderr.txt", result.stderr)
    if "codex_rules" in tomllib.loads(case.config(CONFIG))["targets"]:
        # the exec-policy rules are the same in every sandbox mode
        case.expect(sandbox, None, "expected.twsrt.rules", rules.read_text(encoding="utf-8"))
        assert stat.S_IMODE(rules.stat().st_mode) == 0o600
    else:
        assert not rules.exists()
    if case.existing() is None:
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
