"""Gemini CLI's managed and project scopes: what the admin policy file leaves out (a ``~``
path), what the workspace file keeps (the project's own tool exclusions), and this machine's
system layer in a check (each wider system key, the settings variable). The bytes are the
golden cases' (tests/golden/gemini-managed, gemini-project); the agent's behaviour is
tests/real/test_gemini_scopes.py's."""

from __future__ import annotations

import json
import tomllib

import pytest
from support.sandbox import Sandbox

from twsrt.agents.gemini.declaration import ALLOW_PRIORITY, ASK_PRIORITY, DENY_PRIORITY

MANAGED = """\
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[managed]
root = "out"
agents = ["gemini"]
"""
POLICY = "out/linux/etc/gemini-cli/policies/twsrt.toml"
SRT = {"enabled": True, "filesystem": {"denyRead": ["~/.ssh", "/srv/keys"], "allowWrite": ["."]}}


def test_no_twsrt_priority_is_one_gemini_drops() -> None:
    """Under security.disableAlwaysAllow Gemini skips every rule whose priority ends in 950
    (observed: row 18 of docs/agents/gemini-observed.md)."""
    assert 950 not in (DENY_PRIORITY, ASK_PRIORITY, ALLOW_PRIORITY)


def test_the_admin_file_holds_the_absolute_denies_and_no_home_path(sandbox: Sandbox) -> None:
    sandbox.write("twsrt.toml", MANAGED)
    sandbox.write(".srt-settings.json", SRT)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    rules = tomllib.loads((sandbox.repo / POLICY).read_text(encoding="utf-8"))["rule"]
    patterns = [rule.get("argsPattern", "") for rule in rules]
    assert any("/srv/keys" in pattern for pattern in patterns)
    assert not any("~" in pattern or ".ssh" in pattern for pattern in patterns)
    assert "warning[TWS488] denyRead '~/.ssh': under ~" in run.stderr


def test_the_project_file_keeps_its_own_exclusions_and_adds_the_write_tools_read_only(
    sandbox: Sandbox,
) -> None:
    sandbox.write("twsrt.toml", MANAGED.replace('[managed]\nroot = "out"\n', "[project]\n"))
    own = {"tools": {"exclude": ["save_memory", "web_fetch"]}, "ui": {"theme": "x"}}
    sandbox.write(".gemini/settings.json", own)
    run = sandbox.run("generate", "-w", "--sandbox", "read-only")
    assert run.returncode == 0, run.stderr
    written = json.loads((sandbox.repo / ".gemini/settings.json").read_text(encoding="utf-8"))
    assert written["tools"]["exclude"] == [
        "save_memory",
        "web_fetch",
        "google_web_search",
        "write_file",
        "replace",
    ]
    assert written["ui"] == {"theme": "x"}
    assert written["security"]["toolSandboxing"] is True
    assert sandbox.run("diff", "--sandbox", "read-only").returncode == 0


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [
        ("security", "toolSandboxing", False),
        ("security", "disableAlwaysAllow", False),
        ("security", "enablePermanentToolApproval", True),
        ("tools", "sandboxNetworkAccess", True),
        ("tools", "sandboxAllowedPaths", ["/srv"]),
    ],
)
def test_a_wider_system_key_is_an_error_at_its_key(
    sandbox: Sandbox, section: str, key: str, value: object
) -> None:
    system = sandbox.home.parent / "host-root" / "etc" / "gemini-cli" / "settings.json"
    system.parent.mkdir(parents=True, exist_ok=True)
    system.write_text(json.dumps({section: {key: value}}), encoding="utf-8")
    sandbox.write(
        "twsrt.toml",
        'home = "/home/user"\n[sources]\nsrt = ".srt-settings.json"\n'
        'bash_rules = "bash-rules.json"\n[targets]\n'
        'gemini_settings = "home/.gemini/settings.json"\n'
        'gemini_policy = "home/.gemini/policies/twsrt.toml"\n',
    )
    check = sandbox.run("check", "--agent", "gemini")
    assert f"error[TWS635] the system settings set {section}.{key}" in check.stdout
    system.write_text(json.dumps({"security": {"toolSandboxing": True}}), encoding="utf-8")
    assert "TWS635" not in sandbox.run("check", "--agent", "gemini").stdout


def test_the_settings_variable_names_the_file_checked(sandbox: Sandbox) -> None:
    """In user scope the variable is no finding of its own, but the file it names is the
    system settings Gemini reads; in managed scope it is an error (TWS634)."""
    moved = sandbox.home / "system.json"
    moved.write_text('{"tools": {"sandboxNetworkAccess": true}}', encoding="utf-8")
    sandbox.write(
        "twsrt.toml",
        'home = "/home/user"\n[sources]\nsrt = ".srt-settings.json"\n'
        'bash_rules = "bash-rules.json"\n[targets]\n'
        'gemini_settings = "home/.gemini/settings.json"\n',
    )
    user = sandbox.run("check", "--agent", "gemini", GEMINI_CLI_SYSTEM_SETTINGS_PATH=str(moved))
    assert "error[TWS635]" in user.stdout and "TWS634" not in user.stdout
    sandbox.write("twsrt.toml", MANAGED)
    managed = sandbox.run("check", GEMINI_CLI_SYSTEM_SETTINGS_PATH=str(moved))
    assert "error[TWS634] $GEMINI_CLI_SYSTEM_SETTINGS_PATH is set" in managed.stdout
