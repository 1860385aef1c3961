"""Claude target files on disk: merge bytes, symlink, migration, yolo seeding, schema validity."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from support.sandbox import Sandbox, tree_snapshot

SCHEMASTORE = (
    Path(__file__).parent / "fixtures" / "schemastore" / "claude-code-settings.schema.json"
)
GOLDEN = Path(__file__).parent / "golden" / "claude"

USER_FILE = """{
    "model": "opus",
    "permissions": {
        "allow": ["Read", "Bash(npm test:*)", "WebFetch(domain:old.example.com)", "mcp__x"],
        "deny": ["Bash(old)"],
        "defaultMode": "acceptEdits"
    },
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "h"}]}]},
    "statusLine": {"type": "command", "command": "echo ✓ — ünïcode"},
    "enabledPlugins": {"a@b": true},
    "sandbox": {"excludedCommands": ["docker"], "network": {"allowLocalBinding": true, "x": 1}}
}
"""


def target(sandbox: Sandbox, name: str = "settings.full.json") -> Path:
    return sandbox.repo / "home" / ".claude" / name


def put_user_file(
    sandbox: Sandbox, name: str = "settings.full.json", text: str = USER_FILE
) -> Path:
    path = target(sandbox, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_user_content_survives_byte_for_byte(sandbox: Sandbox) -> None:
    path = put_user_file(sandbox)
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    text = path.read_text(encoding="utf-8")
    # unmanaged members keep their exact bytes, including inline formatting and non-ASCII
    for line in (
        '    "model": "opus",',
        '    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
        '"command": "h"}]}]},',
        '    "statusLine": {"type": "command", "command": "echo ✓ — ünïcode"},',
        '    "enabledPlugins": {"a@b": true},',
    ):
        assert line + "\n" in text
    assert "\\u" not in text
    data = json.loads(text)
    assert list(data) == [
        "model",
        "permissions",
        "hooks",
        "statusLine",
        "enabledPlugins",
        "sandbox",
    ]
    perms = data["permissions"]
    assert list(perms) == ["allow", "deny", "defaultMode", "ask"]
    assert perms["allow"] == [
        "Read",
        "Bash(npm test:*)",
        "mcp__x",
        "WebFetch(domain:github.com)",
        "WebFetch(domain:*.github.com)",
    ]
    assert "Bash(old)" not in perms["deny"] and "Bash(rm)" in perms["deny"]
    assert perms["defaultMode"] == "acceptEdits"
    assert data["sandbox"]["excludedCommands"] == ["docker"]
    # managed pass-through key that is not in the policy leaves; unknown sub-keys stay
    assert "allowLocalBinding" not in data["sandbox"]["network"]
    assert data["sandbox"]["network"]["x"] == 1
    # the file's 4-space indentation is kept for the rewritten members
    assert '\n    "permissions": {\n        "allow": [\n            "Read",' in text


def test_second_write_changes_nothing(sandbox: Sandbox) -> None:
    path = put_user_file(sandbox)
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    first = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    again = sandbox.run("generate", "claude", "-w")
    assert again.returncode == 0
    assert "unchanged home/.claude/settings.full.json" in again.stderr
    assert path.read_bytes() == first
    assert path.stat().st_mtime_ns == mtime
    assert sandbox.run("diff", "claude").returncode == 0


def test_symlink_points_at_mode_file(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    link = target(sandbox, "settings.json")
    assert link.is_symlink() and os.readlink(link) == "settings.full.json"
    assert sandbox.run("generate", "claude", "-w", "--yolo").returncode == 0
    assert os.readlink(link) == "settings.yolo.json"
    yolo = json.loads(target(sandbox, "settings.yolo.json").read_text())
    assert "ask" not in yolo["permissions"]
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert os.readlink(link) == "settings.full.json"


def test_first_run_migrates_regular_settings_json(sandbox: Sandbox) -> None:
    regular = put_user_file(sandbox, "settings.json")
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 0, result.stderr
    assert regular.is_symlink() and os.readlink(regular) == "settings.full.json"
    migrated = json.loads(target(sandbox).read_text())
    assert migrated["model"] == "opus"
    assert migrated["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "h"
    assert "Bash(rm)" in migrated["permissions"]["deny"]


def test_regular_settings_json_and_target_both_present_is_refused(sandbox: Sandbox) -> None:
    put_user_file(sandbox, "settings.json")
    put_user_file(sandbox, "settings.full.json", '{"model": "sonnet"}\n')
    before = tree_snapshot(sandbox.home)
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 2
    assert "home/.claude/settings.json: error[TWS004]" in result.stderr
    assert "Traceback" not in result.stderr
    assert tree_snapshot(sandbox.home) == before


def test_missing_yolo_target_is_seeded_from_full(sandbox: Sandbox) -> None:
    put_user_file(sandbox)
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert sandbox.run("generate", "claude", "-w", "--yolo").returncode == 0
    yolo = json.loads(target(sandbox, "settings.yolo.json").read_text())
    assert yolo["model"] == "opus"
    assert yolo["hooks"]["PreToolUse"][0]["matcher"] == "Bash"
    assert yolo["enabledPlugins"] == {"a@b": True}
    assert "mcp__x" in yolo["permissions"]["allow"]
    assert "ask" not in yolo["permissions"]


def test_target_symlink_is_written_through(sandbox: Sandbox) -> None:
    real = sandbox.repo / "stow" / "settings.full.json"
    real.parent.mkdir()
    real.write_text('{"model": "opus"}\n')
    link = target(sandbox)
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert link.is_symlink() and link.resolve() == real.resolve()
    data = json.loads(real.read_text())
    assert data["model"] == "opus" and "Bash(rm)" in data["permissions"]["deny"]


def test_file_mode_is_kept(sandbox: Sandbox) -> None:
    path = put_user_file(sandbox)
    path.chmod(0o600)
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not list(path.parent.glob(".*.tmp"))


def test_failing_run_writes_nothing_even_for_other_files(sandbox: Sandbox) -> None:
    """yolo target blocked by a directory: neither the file nor the symlink moves."""
    put_user_file(sandbox, "settings.json")
    sandbox.write(
        "twsrt.toml",
        (sandbox.repo / "twsrt.toml").read_text()
        + 'claude_settings_yolo = "home/.claude/blocked/settings.yolo.json"\n',
    )
    (sandbox.repo / "home" / ".claude" / "blocked").mkdir()
    (sandbox.repo / "home" / ".claude" / "blocked" / "settings.yolo.json").mkdir()
    before = tree_snapshot(sandbox.home)
    result = sandbox.run("generate", "-w", "--yolo")
    assert result.returncode == 2
    assert "is a directory" in result.stderr
    assert tree_snapshot(sandbox.home) == before


def test_drift_lists_missing_and_extra(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    path = target(sandbox)
    data = json.loads(path.read_text())
    data["permissions"]["deny"].append("Bash(out-of-band)")
    data["permissions"]["deny"].remove("Bash(sudo *)")
    path.write_text(json.dumps(data, indent=2))
    result = sandbox.run("diff", "claude")
    assert result.returncode == 1
    assert result.stdout == (
        "claude: home/.claude/settings.full.json: drift detected\n"
        "  missing (in the policy, not on disk):\n"
        "    + permissions.deny: Bash(sudo *)\n"
        "  extra (on disk, not in the policy):\n"
        "    - permissions.deny: Bash(out-of-band)\n"
    )


def _validator():  # noqa: ANN202
    from jsonschema import Draft7Validator

    return Draft7Validator(json.loads(SCHEMASTORE.read_text()))


GOLDEN_FILES = sorted(GOLDEN.glob("*/expected.*.json"))
# Sandbox keys Claude Code 2.1.332 takes in a shape newer than the SchemaStore copy (2.1.220):
# credentials `mask` entries with their options, allowNestedUserNamespaces. The real
# `claude doctor` test (tests/real/test_claude_client.py) checks every golden with them.
NEWER_THAN_SCHEMASTORE = ("credentials", "allowNestedUserNamespaces")


def _schemastore_view(document: dict) -> dict:
    sandbox = document.get("sandbox")
    if isinstance(sandbox, dict):
        for key in NEWER_THAN_SCHEMASTORE:
            sandbox.pop(key, None)
    return document


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_outputs_validate_against_schemastore(path: Path) -> None:
    document = _schemastore_view(json.loads(path.read_text()))
    errors = list(_validator().iter_errors(document))
    assert errors == [], [e.message for e in errors]


def test_schemastore_validator_rejects_a_bad_rule() -> None:
    """The schema check above can fail: a rule Claude does not know is rejected."""
    bad = {"permissions": {"deny": ["Frobnicate(x)"]}}
    assert list(_validator().iter_errors(bad))


def test_example_outputs_validate_against_schemastore() -> None:
    claude = Path(__file__).parent.parent / "examples" / "dotfiles" / "home" / ".claude"
    for name in ("settings.full.json", "settings.yolo.json"):
        errors = list(_validator().iter_errors(json.loads((claude / name).read_text())))
        assert errors == [], (name, [e.message for e in errors])


def test_write_also_refreshes_a_configured_yolo_target(sandbox: Sandbox) -> None:
    """One `generate -w` leaves no configured target stale; the symlink follows the mode."""
    config = (sandbox.repo / "twsrt.toml").read_text()
    sandbox.write(
        "twsrt.toml", config + 'claude_settings_yolo = "home/.claude/settings.yolo.json"\n'
    )
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    yolo = target(sandbox, "settings.yolo.json")
    assert "ask" not in json.loads(yolo.read_text())["permissions"]
    assert os.readlink(target(sandbox, "settings.json")) == "settings.full.json"
    sandbox.write("bash-rules.json", {"deny": ["curl"]})
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert "Bash(curl)" in json.loads(yolo.read_text())["permissions"]["deny"]
    assert sandbox.run("diff", "claude", "--yolo").returncode == 0
    assert sandbox.accept_planted_layers().run("check").returncode == 0


# ---------------------------------------------------------------- the sandbox switch


def test_sandbox_is_on_when_the_policy_does_not_say(sandbox: Sandbox) -> None:
    """Claude Code treats a missing sandbox.enabled as false; srt is the sandbox, so the
    generated file says true, also over a user's false (issue 12, item 1)."""
    put_user_file(sandbox, text='{"sandbox": {"enabled": false, "excludedCommands": ["x"]}}\n')
    assert "enabled" not in json.loads((sandbox.repo / ".srt-settings.json").read_text())
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert sandbox.run("generate", "claude", "-w", "--yolo").returncode == 0
    for name in ("settings.full.json", "settings.yolo.json"):
        data = json.loads(target(sandbox, name).read_text())
        assert data["sandbox"]["enabled"] is True, name
    assert sandbox.run("diff", "claude").returncode == 0


def test_policy_enabled_false_stays_off(sandbox: Sandbox) -> None:
    srt = json.loads((sandbox.repo / ".srt-settings.json").read_text())
    sandbox.write(".srt-settings.json", {"enabled": False, **srt})
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 0
    assert json.loads(target(sandbox).read_text())["sandbox"]["enabled"] is False
    assert "TWS214" not in result.stderr


def _findings(sandbox: Sandbox, *args: str) -> list[dict]:
    result = sandbox.run("check", "--format", "json", *args)
    return [f for f in json.loads(result.stdout)["findings"] if f["agent"] == "claude"]


@pytest.mark.parametrize("mode", ["full", "yolo"])
def test_override_switching_the_sandbox_off_is_an_error(sandbox: Sandbox, mode: str) -> None:
    config = (sandbox.repo / "twsrt.toml").read_text()
    sandbox.write("twsrt.toml", config + f"\n[sandbox_overrides.{mode}]\nenabled = false\n")
    line = len((config + "\n").splitlines()) + 2
    yolo = ["--yolo"] if mode == "yolo" else []
    assert sandbox.run("generate", "claude", "-w", *yolo).returncode == 0
    data = json.loads(target(sandbox, f"settings.{mode}.json").read_text())
    assert data["sandbox"]["enabled"] is False  # the override is honoured, and reported
    found = [f for f in _findings(sandbox, *yolo) if f["rule_id"] == "TWS214"]
    assert len(found) == 1, found
    assert found[0]["level"] == "error"
    assert found[0]["location"]["path"] == "twsrt.toml"
    assert found[0]["location"]["line"] == line
    other = ["--yolo"] if mode == "full" else []
    assert not [f for f in _findings(sandbox, *other) if f["rule_id"] == "TWS214"]


def test_override_off_is_quiet_where_the_sandbox_is_off_anyway(sandbox: Sandbox) -> None:
    """danger-full-access already reports TWS212; a policy that is off has nothing to undo."""
    config = (sandbox.repo / "twsrt.toml").read_text()
    sandbox.write("twsrt.toml", config + "\n[sandbox_overrides.full]\nenabled = false\n")
    rules = [f["rule_id"] for f in _findings(sandbox, "--sandbox", "danger-full-access")]
    assert "TWS212" in rules and "TWS214" not in rules
    srt = json.loads((sandbox.repo / ".srt-settings.json").read_text())
    sandbox.write(".srt-settings.json", {"enabled": False, **srt})
    assert "TWS214" not in [f["rule_id"] for f in _findings(sandbox)]


def test_yolo_file_closes_the_escape_hatch(sandbox: Sandbox) -> None:
    """Yolo runs without prompts, so an unsandboxed retry would be approved by nobody
    (tests/real/test_claude_escape_hatch.py shows the read it allows); full mode asks first."""
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert sandbox.run("generate", "claude", "-w", "--yolo").returncode == 0
    full = json.loads(target(sandbox, "settings.full.json").read_text())
    yolo = json.loads(target(sandbox, "settings.yolo.json").read_text())
    assert "allowUnsandboxedCommands" not in full["sandbox"]
    assert yolo["sandbox"]["allowUnsandboxedCommands"] is False
    off = sandbox.run("generate", "claude", "--yolo", "--sandbox", "danger-full-access")
    assert "allowUnsandboxedCommands" not in off.stdout  # no sandbox, nothing to escape


def test_yolo_override_opening_the_escape_hatch_is_set_aside(sandbox: Sandbox) -> None:
    config = (sandbox.repo / "twsrt.toml").read_text()
    sandbox.write(
        "twsrt.toml", config + "\n[sandbox_overrides.yolo]\nallowUnsandboxedCommands = true\n"
    )
    line = len((config + "\n").splitlines()) + 2
    assert sandbox.run("generate", "claude", "-w", "--yolo").returncode == 0
    yolo = json.loads(target(sandbox, "settings.yolo.json").read_text())
    assert yolo["sandbox"]["allowUnsandboxedCommands"] is False
    found = [f for f in _findings(sandbox, "--yolo") if "set aside" in f["message"]]
    assert [(f["rule_id"], f["location"]["line"], f["level"]) for f in found] == [
        ("TWS405", line, "warning")
    ]
    assert not [f for f in _findings(sandbox) if "set aside" in f["message"]]
