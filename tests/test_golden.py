"""The golden files of every registered agent (``tests/golden/<set>/<case>/``, the layout of
``support/golden.py``; ``UPDATE_GOLDEN=1`` rewrites them): one test over every case of every
set, found by directory, each checked in the sandbox modes its set's check takes
(``support/golden_sets/``: a set's own check, else the agent's user files from its
declaration), so a new agent's golden cases are checked with no edit here. Below it, what
some sets check beyond their cases."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from support.golden import GOLDEN_ROOT, GoldenCase, case_names, golden_name, pinned_config
from support.golden_sets import (
    agent_sets,
    claude_managed,
    codex_managed,
    copilot,
    deepcode,
    harness,
    managed_tree,
)
from support.golden_sets import claude as claude_set
from support.sandbox import DEFAULT_CONFIG, Sandbox, unmanaged_members

from twsrt.agents.claude.declaration import TREE_PATHS
from twsrt.config import SANDBOX_MODES
from twsrt.jsonpos import parse_json


def _golden_cases() -> list[Any]:
    return [
        pytest.param(
            golden_set, name, mode, id=f"{golden_set}/{name}" + (f"-{mode}" if mode else "")
        )
        for golden_set in agent_sets()
        for name in case_names(golden_set)
        for mode in harness(golden_set).MODES
    ]


@pytest.mark.parametrize(("golden_set", "name", "sandbox_mode"), _golden_cases())
def test_golden(
    sandbox: Sandbox, tmp_path: Path, golden_set: str, name: str, sandbox_mode: str | None
) -> None:
    harness(golden_set).check(GoldenCase(golden_set, name), sandbox_mode, sandbox, tmp_path)


# ---------------------------------------------------------------- Claude Code


@pytest.mark.parametrize("name", case_names("claude"))
def test_claude_preview_matches_fragment(sandbox: Sandbox, name: str) -> None:
    """`generate claude` prints exactly the managed sections that --write merges in."""
    GoldenCase("claude", name).install(sandbox, DEFAULT_CONFIG, claude_set.TARGET)
    preview = sandbox.run("generate", "claude")
    assert preview.returncode == 0, preview.stderr
    fragment = json.loads(preview.stdout)
    sandbox.run("generate", "claude", "-w")
    written = json.loads((sandbox.repo / claude_set.TARGET).read_text(encoding="utf-8"))
    assert written["permissions"]["deny"] == fragment["permissions"]["deny"]
    assert written["permissions"]["ask"] == fragment["permissions"]["ask"]
    webfetch = [r for r in written["permissions"].get("allow", []) if r.startswith("WebFetch(")]
    assert webfetch == fragment["permissions"]["allow"]


MANAGED_TREE = managed_tree.TREE
LINUX = f"{MANAGED_TREE}/{TREE_PATHS['linux']}"


def test_the_managed_option_writes_the_same_tree(sandbox: Sandbox) -> None:
    """``generate --managed DIR`` from a user config writes what a ``[managed]`` config does."""
    case = GoldenCase("claude-managed", "example")
    case.install(sandbox, claude_managed.MANAGED_CONFIG, LINUX)
    assert sandbox.run("generate", "-w").returncode == 0
    expected = (sandbox.repo / LINUX).read_bytes()
    user_config = claude_managed.MANAGED_CONFIG.replace(
        '[managed]\nroot = "managed"\nagents = ["claude"]\n', ""
    )
    sandbox.write("twsrt.toml", user_config)
    run = sandbox.run("generate", "claude", "--managed", "out", "-w")
    assert run.returncode == 0, run.stderr
    for path in TREE_PATHS.values():
        assert (sandbox.repo / "out" / path).read_bytes() == expected
    drifted = sandbox.run("diff", "claude", "--managed", "out")
    assert drifted.returncode == 0, drifted.stdout


def test_a_hand_edit_of_a_binding_key_is_drift(sandbox: Sandbox) -> None:
    case = GoldenCase("claude-managed", "example")
    case.install(sandbox, claude_managed.MANAGED_CONFIG, LINUX)
    assert sandbox.run("generate", "-w").returncode == 0
    macos = sandbox.repo / MANAGED_TREE / TREE_PATHS["macos"]
    document = json.loads(macos.read_text(encoding="utf-8"))
    document["sandbox"]["network"]["allowManagedDomainsOnly"] = False
    macos.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    run = sandbox.run("diff")
    assert run.returncode == 1
    assert f"{MANAGED_TREE}/{TREE_PATHS['macos']}: drift detected" in run.stdout, run.stdout
    assert "+ sandbox.network.allowManagedDomainsOnly: true" in run.stdout, run.stdout
    assert "- sandbox.network.allowManagedDomainsOnly: false" in run.stdout, run.stdout


def test_the_administrators_keys_in_the_tree_are_checked(sandbox: Sandbox) -> None:
    """The merge keeps the administrator's own keys in the managed file; check reports those
    that grant more than the policy (TWS611) at their lines, and nothing of twsrt's own."""
    box = sandbox
    box.write("twsrt.toml", claude_managed.MANAGED_CONFIG)
    assert box.run("generate", "-w").returncode == 0
    clean = box.run("check", "--format", "json", "-v")
    assert clean.returncode == 0, clean.stdout
    assert not [f for f in json.loads(clean.stdout)["findings"] if f["rule_id"] == "TWS611"]
    document = json.loads((box.repo / LINUX).read_text())
    document["permissions"]["allow"].insert(0, "Edit(//opt/**)")
    document["sandbox"]["excludedCommands"] = ["docker *"]
    document["model"] = "claude-opus-4"
    (box.repo / LINUX).write_text(json.dumps(document, indent=2) + "\n")
    assert box.run("diff").returncode == 0  # none of them is twsrt's: no drift
    result = box.run("check", "--format", "json", "-v")
    assert result.returncode == 1
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "TWS611"]
    text = (box.repo / LINUX).read_text().splitlines()
    lines = {
        n for n, line in enumerate(text, 1) if '"Edit(//opt/**)"' in line or "docker *" in line
    }
    assert len(lines) == 2
    assert {(f["location"]["path"], f["location"]["line"]) for f in found} == {
        (LINUX, line) for line in lines
    }
    # the organisation's own rules belong in a drop-in beside the file: checked the same way
    drop_in = f"{MANAGED_TREE}/linux/etc/claude-code/managed-settings.d/50-org.json"
    box.write(drop_in, {"permissions": {"deny": ["Bash(nc *)"], "allow": ["Edit(//srv/**)"]}})
    result = box.run("check", "--format", "json", "-v")
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "TWS611"]
    text = (box.repo / drop_in).read_text().splitlines()
    line = next(n for n, entry in enumerate(text, 1) if "Edit(//srv/**)" in entry)
    assert (drop_in, line) in {(f["location"]["path"], f["location"]["line"]) for f in found}


# ---------------------------------------------------------------- Codex


def test_generate_managed_writes_the_golden_tree(sandbox: Sandbox) -> None:
    """The command line: ``generate --managed DIR -w`` writes the four files of the tree with the
    golden bytes, ``diff`` then finds no drift, a changed file is drift, ``--yolo`` is refused."""
    case = GOLDEN_ROOT / "codex-managed" / "seed-example"
    sandbox.write(".srt-settings.json", (case / "srt.json").read_text())
    sandbox.write("bash-rules.json", (case / "bash.json").read_text())
    sandbox.write("twsrt.toml", pinned_config())
    result = sandbox.run("generate", "codex", "--managed", "out", "-w")
    assert result.returncode == 0, result.stderr
    for key, path in codex_managed.KEYS.items():
        file = path.rsplit("/", 1)[1]
        written = (sandbox.repo / "out" / path).read_text(encoding="utf-8")
        # every user's Codex reads it: a new file is world-readable, not private
        assert stat.S_IMODE((sandbox.repo / "out" / path).stat().st_mode) == 0o644, key
        assert written == (case / file).read_text(encoding="utf-8"), key
    assert sandbox.run("diff", "codex", "--managed", "out").returncode == 0
    changed = sandbox.repo / "out" / codex_managed.KEYS["codex_requirements_macos"]
    changed.write_text(changed.read_text().replace('"never"', '"untrusted"'))
    drift = sandbox.run("diff", "codex", "--managed", "out")
    assert drift.returncode == 1
    assert "out/macos/etc/codex/requirements.toml" in drift.stdout + drift.stderr
    assert sandbox.run("generate", "codex", "--managed", "out", "--yolo").returncode == 2


# ---------------------------------------------------------------- Copilot CLI and DeepCode


def _with_existing(golden_set: str) -> list[str]:
    return [n for n in case_names(golden_set) if GoldenCase(golden_set, n).existing()]


@pytest.mark.parametrize("name", _with_existing("copilot"))
def test_copilot_user_members_survive_byte_for_byte(sandbox: Sandbox, name: str) -> None:
    case = GoldenCase("copilot", name)
    case.install(sandbox, copilot.CONFIG, copilot.SETTINGS)
    existing = case.read("existing.json")
    assert sandbox.run("generate", "copilot", "-w").returncode == 0
    written = copilot.read(sandbox, copilot.SETTINGS)
    kept = unmanaged_members(existing, copilot.MANAGED)
    assert kept and unmanaged_members(written, copilot.MANAGED) == kept
    # and in the same order, before and after the managed members
    assert list(parse_json(written).value) == list(parse_json(existing).value)


@pytest.mark.parametrize("name", _with_existing("deepcode"))
def test_deepcode_user_members_survive_byte_for_byte(sandbox: Sandbox, name: str) -> None:
    case = GoldenCase("deepcode", name)
    case.install(sandbox, deepcode.CONFIG, deepcode.SETTINGS)
    existing = case.read("existing.json")
    assert sandbox.run("generate", "deepcode", "-w").returncode == 0
    written = deepcode.read(sandbox, deepcode.SETTINGS)
    managed = deepcode.MANAGED
    assert unmanaged_members(written, managed) == unmanaged_members(existing, managed)
    # in the same order, before and after the managed members (a new one comes last)
    old_keys, new_keys = list(parse_json(existing).value), list(parse_json(written).value)
    assert [k for k in new_keys if k in old_keys] == old_keys
    assert set(new_keys) - set(old_keys) <= managed


DEEPCODE = GOLDEN_ROOT / "deepcode"


def test_merge_preserve_keeps_user_keys_and_drops_stale_ones() -> None:
    case = DEEPCODE / "merge-preserve"
    before = json.loads((case / "existing.json").read_text(encoding="utf-8"))
    for mode in SANDBOX_MODES:
        after = json.loads(
            (case / golden_name(mode, "expected.full.json")).read_text(encoding="utf-8")
        )
        text = (case / golden_name(mode, "expected.full.json")).read_text(encoding="utf-8")
        for key in ("model", "hooks", "mcpServers", "effortLevel"):
            assert after[key] == before[key]
        assert "audit-hook --tag 'grüße'" in text  # non-ASCII kept as written
        user_permissions = ("defaultMode", "allow", "additionalDirectories")
        for key in user_permissions:
            assert after["permissions"][key] == before["permissions"][key]
        assert after["sandbox"]["excludedCommands"] == ["git", "docker"]
        # stale managed content is gone: the legacy switch, the old deny, old keys and values
        assert "enabled" not in after["sandbox"]
        assert after["sandbox"]["mode"] == mode
        assert "Bash(curl *)" not in after["permissions"]["deny"]
        assert "allowRead" not in after["sandbox"]["filesystem"]
        assert "/home/user/old-root" not in after["sandbox"]["filesystem"].get("allowWrite", [])
        assert "allowUnixSockets" not in after["sandbox"]["network"]
        assert after["sandbox"]["network"]["allowedDomains"] == ["github.com"]
        # the file keeps its own four-space indentation
        assert '\n    "permissions": {\n        "defaultMode"' in text


def test_read_only_goldens_carry_no_write_grant() -> None:
    for path in sorted(DEEPCODE.glob("*/read-only.expected.*.json")):
        fs = json.loads(path.read_text(encoding="utf-8"))["sandbox"].get("filesystem", {})
        assert "allowWrite" not in fs, path


def test_yolo_goldens_switch_ask_rules_off() -> None:
    for path in sorted(DEEPCODE.glob("*/*expected.yolo.json")):
        assert json.loads(path.read_text(encoding="utf-8"))["permissions"]["ask"] == [], path


DEEPCODE_FILES = sorted(DEEPCODE.glob("*/*expected.*.json"))


@pytest.mark.parametrize("path", DEEPCODE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_outputs_validate_against_the_deepcode_schema(path: Path) -> None:
    assert deepcode.schema_errors(path.read_text(encoding="utf-8")) == []


def test_schema_check_can_fail() -> None:
    """The validation above has teeth: wrong shapes and unknown sandbox keys are rejected."""
    errors = deepcode.schema_errors
    assert errors('{"sandbox": {"network": {"allowUnixSockets": ["/tmp/a.sock"]}}}')
    assert errors('{"sandbox": {"mode": "yolo"}}')
    assert errors('{"sandbox": {"filesystem": {"disabled": true}}}')
    # and the published schema alone rejects sandbox.mode, hence the extension
    from jsonschema import Draft7Validator

    raw = Draft7Validator(json.loads(deepcode.SCHEMA.read_text(encoding="utf-8")))
    assert list(raw.iter_errors({"sandbox": {"mode": "read-only"}}))
