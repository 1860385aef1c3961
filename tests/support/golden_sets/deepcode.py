"""DeepCode's settings merge in every sandbox and approval mode: the existing file is the user's
settings (existing.json), config-extra.toml adds lines to the config's [targets] table, and the
config pins home = "/home/user". A case holds, for each sandbox mode, the full and yolo files
(expected.full.json, expected.yolo.json) and the findings ``generate -w -v`` prints
(stderr.full.txt); every file validates against DeepCode's published schema."""

from __future__ import annotations

import copy
import json
import stat
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from support.golden import GoldenCase, pinned_config
from support.sandbox import Sandbox
from twsrt.config import SANDBOX_MODES

MODES = SANDBOX_MODES
SCHEMA = Path(__file__).parents[2] / "fixtures" / "deepcode" / "settings.schema.json"
SETTINGS = "home/.deepcode/settings.json"
MANAGED = {"permissions", "sandbox"}
CONFIG = pinned_config(deepcode_settings=SETTINGS)


@cache
def validator() -> Any:
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


def check(case: GoldenCase, mode: str, sandbox: Sandbox, _tmp_path: Path) -> None:
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
