"""The effective configuration: user keys and other config layers that undo the policy (TWS6xx).

The fixture (tests/fixtures/effective) plants widening and narrowing user keys in every agent's
files; `generate -w` merges the managed keys in and keeps them, and `check` must then report
each widening key at its own line and column, with the policy rule it undoes, and nothing else.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.sandbox import Sandbox

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "effective"
RULES = {f"TWS60{n}" for n in range(1, 10)} | {"TWS214", "TWS202"}
CLAUDE = "home/.claude/settings.full.json"
LOCAL = "home/.claude/settings.local.json"
DEEPCODE = "home/.deepcode/settings.json"
SRT = "policy/srt-settings.json"
BASH = "policy/bash-rules.json"


@pytest.fixture
def planted(sandbox: Sandbox) -> Sandbox:
    shutil.rmtree(sandbox.repo)
    shutil.copytree(FIXTURE, sandbox.repo)
    (sandbox.repo / ".git").mkdir()
    assert sandbox.run("generate", "-w").returncode == 0
    return sandbox


def effective(box: Sandbox, *args: str) -> tuple[int, list[dict]]:
    result = box.run("check", "--format", "json", "-v", *args)
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    return result.returncode, [f for f in report["findings"] if f["rule_id"] in RULES]


def at(box: Sandbox, path: str, token: str, nth: int = 1) -> tuple[int, int]:
    """1-based line and column of the ``nth`` occurrence of ``token`` in a repo file."""
    text = (box.repo / path).read_text()
    offset = -1
    for _ in range(nth):
        offset = text.index(token, offset + 1)
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


def located(box: Sandbox, items: list[dict]) -> set[tuple]:
    return {
        (
            f["rule_id"],
            f["agent"],
            f["location"]["path"],
            f["location"]["line"],
            f["location"]["column"],
            tuple((r["path"], r["line"], r["column"]) for r in f.get("related", [])),
        )
        for f in items
    }


def test_every_planted_widening_key_is_reported_at_its_line(planted: Sandbox) -> None:
    box = planted
    code, found = effective(box)
    assert code == 1
    deny_curl = (BASH, *at(box, BASH, '"curl"'))
    deny_ssh = (SRT, *at(box, SRT, '"~/.ssh"'))
    enabled = (SRT, *at(box, SRT, '"enabled"'))
    allow_write = (SRT, *at(box, SRT, '"allowWrite"'))
    allowed = (SRT, *at(box, SRT, '"allowedDomains"'))
    denied = (SRT, *at(box, SRT, '"evil.example"'))
    ask_push = (BASH, *at(box, BASH, '"git push"'))
    expected = {
        ("TWS609", "claude", CLAUDE, *at(box, CLAUDE, '"Bash(curl *)"'), (deny_curl,)),
        ("TWS609", "claude", CLAUDE, *at(box, CLAUDE, '"Read(~/.ssh/**)"'), (deny_ssh,)),
        ("TWS604", "claude", CLAUDE, *at(box, CLAUDE, '"Edit(~/elsewhere/**)"'), (allow_write,)),
        ("TWS603", "claude", CLAUDE, *at(box, CLAUDE, '"defaultMode"'), (ask_push,)),
        ("TWS604", "claude", CLAUDE, *at(box, CLAUDE, '"/opt/data"'), (allow_write,)),
        ("TWS601", "claude", CLAUDE, *at(box, CLAUDE, '"docker"'), (enabled,)),
        ("TWS601", "claude", CLAUDE, *at(box, CLAUDE, '"allowUnsandboxedCommands"'), (enabled,)),
        ("TWS214", "claude", CLAUDE, *at(box, CLAUDE, '"enabledPlatforms"'), (enabled,)),
        ("TWS605", "claude", LOCAL, *at(box, LOCAL, '"WebFetch(domain:pastebin.com)"'), (allowed,)),
        ("TWS609", "claude", LOCAL, *at(box, LOCAL, '"WebFetch(domain:evil.example)"'), (denied,)),
        ("TWS214", "claude", LOCAL, *at(box, LOCAL, '"enabled"'), (enabled,)),
        ("TWS605", "claude", LOCAL, *at(box, LOCAL, '"registry.npmjs.org"'), (allowed,)),
        ("TWS606", "claude", LOCAL, *at(box, LOCAL, '"allowLocalBinding"'), ()),
        ("TWS604", "claude", LOCAL, *at(box, LOCAL, '"/etc"'), (allow_write,)),
        ("TWS602", "claude", LOCAL, *at(box, LOCAL, '"~/.ssh/config"'), (deny_ssh,)),
        ("TWS609", "deepcode", DEEPCODE, *at(box, DEEPCODE, '"Bash(curl:*)"'), (deny_curl,)),
        ("TWS603", "deepcode", DEEPCODE, *at(box, DEEPCODE, '"defaultMode"'), (deny_curl,)),
        ("TWS604", "deepcode", DEEPCODE, *at(box, DEEPCODE, '"/srv"'), (allow_write,)),
        ("TWS601", "deepcode", DEEPCODE, *at(box, DEEPCODE, '"docker"'), (enabled,)),
    }
    wide, legacy = "home/.codex/wide.config.toml", "home/.codex/legacy.config.toml"
    selected = (wide, *at(box, wide, "default_permissions"))
    expected |= {
        ("TWS607", "codex", wide, *at(box, wide, "default_permissions"), (enabled,)),
        ("TWS603", "codex", wide, *at(box, wide, "approval_policy"), (selected,)),
        ("TWS603", "codex", wide, *at(box, wide, "approvals_reviewer"), ()),
        ("TWS202", "codex", legacy, 1, 1, (enabled,)),
    }
    copilot = "home/.copilot/settings.json"
    expected.add(("TWS606", "copilot", copilot, *at(box, copilot, '"keychainAccess"'), ()))
    assert located(box, found) == expected
    assert len(found) == len(expected)  # each key once, though check compiles every mode


def test_narrowing_and_managed_keys_stay_quiet(planted: Sandbox) -> None:
    box = planted.accept_planted_layers()  # no user key of its own (test_claude_layers.py)
    for path in (LOCAL, "home/.codex/wide.config.toml", "home/.codex/legacy.config.toml"):
        (box.repo / path).unlink()
    box.write(
        LOCAL,
        {
            "permissions": {
                "deny": ["Bash(rm *)"],
                "defaultMode": "plan",
                "allow": ["Read", "Bash", "WebFetch(domain:api.github.com)", "Edit(./src/**)"],
            },
            "sandbox": {
                "allowUnsandboxedCommands": False,
                "enabledPlatforms": ["linux", "macos"],
                "filesystem": {"allowWrite": ["~/work/tmp"], "denyRead": ["~/private"]},
                "network": {"allowedDomains": ["github.com", "api.github.com"]},
            },
        },
    )
    for name in ("claude", "deepcode", "copilot"):
        path = {"claude": CLAUDE, "deepcode": DEEPCODE, "copilot": "home/.copilot/settings.json"}
        document = json.loads((box.repo / path[name]).read_text())
        permissions = document.get("permissions", {})
        for key in ("defaultMode", "additionalDirectories"):
            permissions.pop(key, None)
        if "allow" in permissions:  # the WebFetch(domain:) allows are twsrt's
            permissions["allow"] = [
                r for r in permissions["allow"] if r.startswith("WebFetch(domain:")
            ]
        sandbox = document.get("sandbox", {})
        for key in ("excludedCommands", "allowUnsandboxedCommands", "enabledPlatforms"):
            sandbox.pop(key, None)
        sandbox.get("userPolicy", {}).pop("seatbelt", None)
        box.write(path[name], document)
    code, found = effective(box)
    assert found == []
    assert code == 0


def test_suppressed_with_a_reason(planted: Sandbox) -> None:
    box = planted
    config = (box.repo / "twsrt.toml").read_text()
    box.write(
        "twsrt.toml",
        config + '\n[[check.ignore]]\nrule = "user-write-root"\npath = "home/.claude/*"\n'
        'reason = "the build writes there"\n',
    )
    _, found = effective(box)
    assert not [f for f in found if f["rule_id"] == "TWS604" and f["agent"] == "claude"]
    report = json.loads(box.run("check", "--format", "json").stdout)
    # TWS465: the fixture accepts Codex's nested protections at its write roots
    suppressed = [f["rule_id"] for f in report["suppressed"]]
    assert set(suppressed) == {"TWS604", "TWS465"} and suppressed.count("TWS604") == 3


def test_unreadable_layer_is_an_error(planted: Sandbox) -> None:
    box = planted
    box.write(LOCAL, '{\n  "sandbox": {\n    "enabled": false,\n  }\n}\n')
    box.write("home/.codex/wide.config.toml", "default_permissions = \n")
    _, found = effective(box)
    unreadable = {
        (f["location"]["path"], f["location"]["line"], f["location"]["column"])
        for f in found
        if f["rule_id"] == "TWS608"
    }
    assert unreadable == {(LOCAL, 4, 3), ("home/.codex/wide.config.toml", 1, 23)}


def test_danger_full_access_keeps_only_the_approval_findings(planted: Sandbox) -> None:
    box = planted
    assert box.run("generate", "-w", "--sandbox", "danger-full-access").returncode == 0
    _, found = effective(box, "--sandbox", "danger-full-access")
    rules = {(f["rule_id"], f["agent"]) for f in found}
    assert rules == {
        ("TWS603", "claude"),
        ("TWS603", "deepcode"),
        ("TWS603", "codex"),  # approvals_reviewer still hands approvals to a model
        ("TWS609", "claude"),
        ("TWS609", "deepcode"),
        ("TWS605", "claude"),  # a WebFetch allow still skips the question
    }


def test_yolo_file_may_bypass_claude_permissions(planted: Sandbox) -> None:
    box = planted
    config = (box.repo / "twsrt.toml").read_text()
    box.write(
        "twsrt.toml",
        config.replace(
            "[targets]", '[targets]\nclaude_settings_yolo = "home/.claude/settings.yolo.json"'
        ),
    )
    box.write(
        "home/.claude/settings.yolo.json", {"permissions": {"defaultMode": "bypassPermissions"}}
    )
    assert box.run("generate", "-w", "--yolo").returncode == 0
    _, found = effective(box)
    bypass = {f["location"]["path"] for f in found if f["rule_id"] == "TWS603"}
    assert "home/.claude/settings.yolo.json" not in bypass
    assert CLAUDE in bypass


def test_diff_prints_them_and_keeps_its_exit_code(planted: Sandbox) -> None:
    result = planted.run("diff")
    assert result.returncode == 0  # no drift: generate -w just ran
    assert "error[TWS601] sandbox.excludedCommands runs 'docker'" in result.stderr
    assert "TWS609" not in result.stderr  # notes stay out of diff, as everywhere without -v
