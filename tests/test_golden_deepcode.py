"""Golden files for the DeepCode target: the settings merge in every sandbox and approval mode.

The case layout and ``UPDATE_GOLDEN=1`` are those of every agent (``support/golden.py``); the
existing file is the user's settings (existing.json), config-extra.toml adds lines to the
config's [targets] table, and the config pins home = "/home/user". A case holds, for each
sandbox mode, the full and yolo files (expected.full.json, expected.yolo.json) and the findings
``generate -w -v`` prints (stderr.full.txt).
"""

from __future__ import annotations

import copy
import json
import stat
import tomllib
from functools import cache
from pathlib import Path

import pytest
from support.golden import GOLDEN_ROOT, GoldenCase, case_names, golden_name, pinned_config
from support.sandbox import Sandbox, unmanaged_members

from twsrt.config import SANDBOX_MODES
from twsrt.jsonpos import parse_json

GOLDEN = GOLDEN_ROOT / "deepcode"
CASES = case_names("deepcode")
SCHEMA = Path(__file__).parent / "fixtures" / "deepcode" / "settings.schema.json"
SETTINGS = "home/.deepcode/settings.json"
MANAGED = {"permissions", "sandbox"}

CONFIG = pinned_config(deepcode_settings=SETTINGS)


@cache
def validator():
    from jsonschema import Draft7Validator

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    # The published schema (last updated 2026-06-08) lacks `sandbox.mode`, which DeepCode reads
    # and prefers over `enabled` (agents-formats §5.1, config/types.ts SandboxMode); `sandbox`
    # has additionalProperties: false, so it is added here to validate real output.
    schema = copy.deepcopy(schema)
    schema["properties"]["sandbox"]["properties"]["mode"] = {
        "type": "string",
        "enum": list(SANDBOX_MODES),
    }
    return Draft7Validator(schema)


def schema_errors(text: str) -> list[str]:
    return [e.message for e in validator().iter_errors(json.loads(text))]


def yolo_relative(case: GoldenCase) -> str:
    targets = tomllib.loads(case.config(CONFIG))["targets"]
    return targets.get("deepcode_settings_yolo", "home/.deepcode/settings.yolo.json")


def read(sandbox: Sandbox, relative: str) -> str:
    return (sandbox.repo / relative).read_text(encoding="utf-8")


def assert_preview_is_managed_content(preview: str, written_text: str, mode: str) -> None:
    """`generate deepcode` prints exactly the managed members that --write merges in."""
    fragment = json.loads(preview)
    assert preview == json.dumps(fragment, indent=2, ensure_ascii=False) + "\n"
    written = json.loads(written_text)
    for key in ("deny", "ask"):
        assert written["permissions"][key] == fragment["permissions"][key]
    section = written["sandbox"]
    assert section["mode"] == fragment["sandbox"]["mode"] == mode
    assert section["network"] == fragment["sandbox"]["network"]
    assert section.get("filesystem", {}) == fragment["sandbox"].get("filesystem", {})


@pytest.mark.parametrize("mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_deepcode_golden(sandbox: Sandbox, name: str, mode: str) -> None:
    case = GoldenCase("deepcode", name)
    case.install(sandbox, CONFIG, SETTINGS)
    yolo_file = yolo_relative(case)
    preview = sandbox.run("generate", "deepcode", "--sandbox", mode)
    assert preview.returncode == 0, preview.stderr

    full = sandbox.run("generate", "deepcode", "-w", "-v", "--sandbox", mode)
    assert full.returncode == 0, full.stderr
    case.expect(sandbox, mode, "expected.full.json", read(sandbox, SETTINGS))
    case.expect(sandbox, mode, "stderr.full.txt", full.stderr)

    yolo = sandbox.run("generate", "deepcode", "-w", "-v", "--yolo", "--sandbox", mode)
    assert yolo.returncode == 0, yolo.stderr
    case.expect(sandbox, mode, "expected.yolo.json", read(sandbox, yolo_file))

    assert_preview_is_managed_content(preview.stdout, read(sandbox, SETTINGS), mode)
    for relative in (SETTINGS, yolo_file):
        text = read(sandbox, relative)
        assert schema_errors(text) == [], (relative, schema_errors(text))
        assert json.loads(text)["sandbox"]["mode"] == mode
    new_mode = stat.S_IMODE((sandbox.repo / yolo_file).stat().st_mode)
    assert new_mode == 0o600
    settings_mode = stat.S_IMODE((sandbox.repo / SETTINGS).stat().st_mode)
    assert settings_mode == (0o644 if case.existing() else 0o600)

    # generate -w then diff: no drift in either approval mode; a second write changes nothing
    for args in (("diff", "deepcode"), ("diff", "deepcode", "--yolo")):
        result = sandbox.run(*args, "--sandbox", mode)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "no drift" in result.stdout
    before = {p: read(sandbox, p) for p in (SETTINGS, yolo_file)}
    for extra in ((), ("--yolo",)):
        again = sandbox.run("generate", "deepcode", "-w", "--sandbox", mode, *extra)
        assert again.returncode == 0, again.stderr
        assert "twsrt: wrote" not in again.stderr
    assert {p: read(sandbox, p) for p in before} == before


EXISTING = [n for n in CASES if GoldenCase("deepcode", n).existing()]


@pytest.mark.parametrize("name", EXISTING)
def test_user_members_survive_byte_for_byte(sandbox: Sandbox, name: str) -> None:
    case = GoldenCase("deepcode", name)
    case.install(sandbox, CONFIG, SETTINGS)
    existing = case.read("existing.json")
    assert sandbox.run("generate", "deepcode", "-w").returncode == 0
    written = read(sandbox, SETTINGS)
    assert unmanaged_members(written, MANAGED) == unmanaged_members(existing, MANAGED)
    # in the same order, before and after the managed members (a new one comes last)
    old_keys, new_keys = list(parse_json(existing).value), list(parse_json(written).value)
    assert [k for k in new_keys if k in old_keys] == old_keys
    assert set(new_keys) - set(old_keys) <= MANAGED


def test_merge_preserve_keeps_user_keys_and_drops_stale_ones() -> None:
    case = GOLDEN / "merge-preserve"
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
    for path in sorted(GOLDEN.glob("*/read-only.expected.*.json")):
        fs = json.loads(path.read_text(encoding="utf-8"))["sandbox"].get("filesystem", {})
        assert "allowWrite" not in fs, path


def test_yolo_goldens_switch_ask_rules_off() -> None:
    for path in sorted(GOLDEN.glob("*/*expected.yolo.json")):
        assert json.loads(path.read_text(encoding="utf-8"))["permissions"]["ask"] == [], path


GOLDEN_FILES = sorted(GOLDEN.glob("*/*expected.*.json"))


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_outputs_validate_against_the_deepcode_schema(path: Path) -> None:
    assert schema_errors(path.read_text(encoding="utf-8")) == []


def test_schema_check_can_fail() -> None:
    """The validation above has teeth: wrong shapes and unknown sandbox keys are rejected."""
    assert schema_errors('{"sandbox": {"network": {"allowUnixSockets": ["/tmp/a.sock"]}}}')
    assert schema_errors('{"sandbox": {"mode": "yolo"}}')
    assert schema_errors('{"sandbox": {"filesystem": {"disabled": true}}}')
    # and the published schema alone rejects sandbox.mode, hence the extension
    from jsonschema import Draft7Validator

    raw = Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert list(raw.iter_errors({"sandbox": {"mode": "read-only"}}))
