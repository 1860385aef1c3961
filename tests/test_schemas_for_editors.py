"""The shipped schemas serve editors: an https ``$id``, a description on every property, defaults
and examples, a SchemaStore catalog entry, and sources carrying ``$schema`` stay valid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.sandbox import ACCEPT_PLANTED_LAYERS, REPO_ROOT

from twsrt.schemas import SCHEMA_FILES, load_schema, schema_url

CATALOG = REPO_ROOT / "schemas" / "schemastore-catalog.json"


def properties(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every property schema, at any depth (items, anyOf, $defs and values included)."""
    if isinstance(node, list):
        for item in node:
            yield from properties(item, pointer)
        return
    if not isinstance(node, dict):
        return
    for name, child in node.get("properties", {}).items():
        yield f"{pointer}/{name}", child
        yield from properties(child, f"{pointer}/{name}")
    for key, value in node.items():
        if key != "properties":
            yield from properties(value, pointer)


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_every_property_has_a_description(name: str) -> None:
    found = list(properties(load_schema(name)))
    assert len(found) > 3
    missing = [pointer for pointer, schema in found if not schema.get("description", "").strip()]
    assert missing == []


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_every_schema_has_its_https_id(name: str) -> None:
    schema = load_schema(name)
    assert schema["$id"] == schema_url(name) == f"https://twsrt.dev/schemas/{SCHEMA_FILES[name]}"
    assert schema["description"] and schema["title"]


def test_defaults_and_examples_are_valid_values() -> None:
    """A default or example that its own schema refuses would mislead an editor's completion."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    counts = {"default": 0, "examples": 0}
    for name in SCHEMA_FILES:
        root = load_schema(name)
        registry = Registry().with_resource(root["$id"], Resource.from_contents(root))
        for pointer, schema in properties(root):
            values = [schema["default"]] if "default" in schema else []
            counts["default"] += len(values)
            counts["examples"] += len(schema.get("examples", []))
            check = {k: v for k, v in schema.items() if k not in ("default", "examples")}
            check["$defs"] = root.get("$defs", {})
            validator = Draft202012Validator(check, registry=registry)
            for value in [*values, *schema.get("examples", [])]:
                errors = [e.message for e in validator.iter_errors(value)]
                assert errors == [], (name, pointer, value)
    assert counts["default"] >= 20 and counts["examples"] >= 15, counts


def test_srt_descriptions_name_the_release_that_added_the_key() -> None:
    srt = dict(properties(load_schema("srt")))
    assert srt["/network/deniedResolvedAddresses"]["description"].endswith("Since srt 0.0.76.")
    assert srt["/credentials/files/mode"]["description"].endswith("Since srt 0.0.56.")
    # keys srt had from the first release in the history carry no note
    assert "Since" not in srt["/network/allowedDomains"]["description"]
    assert "Since" not in srt["/filesystem/denyRead"]["description"]


def test_srt_schema_is_what_the_generator_makes() -> None:
    # the generator's inputs, vendored as fixtures so the check runs on every checkout
    reference = REPO_ROOT / "tests" / "fixtures" / "srt-reference"
    upstream = reference / "srt-settings-0.0.83.schema.json"
    history = reference / "srt-settings-key-history.md"
    made = subprocess.run(
        [sys.executable, str(REPO_ROOT / "tools" / "make_srt_schema.py"), upstream, history],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert made == (REPO_ROOT / "schemas" / "srt-settings.schema.json").read_text("utf-8")


def test_schemastore_catalog_entry_names_every_schema_with_file_patterns() -> None:
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    entries = {entry["url"]: entry for entry in catalog["schemas"]}
    assert set(entries) == {schema_url(name) for name in SCHEMA_FILES}
    for entry in catalog["schemas"]:
        assert set(entry) == {"name", "description", "fileMatch", "url"}
        assert entry["fileMatch"] and all(isinstance(p, str) and p for p in entry["fileMatch"])
    by_file = {p: e["url"] for e in catalog["schemas"] for p in e["fileMatch"]}
    # the names config discovery and the scaffold use
    assert by_file["twsrt.toml"] == by_file[".twsrt.toml"] == schema_url("config")
    assert by_file["srt-settings.json"] == by_file[".srt-settings.json"] == schema_url("srt")
    assert by_file["bash-rules.json"] == schema_url("bash")


def test_sources_with_schema_keys_check_clean(tmp_path: Path) -> None:
    """twsrt's own validation accepts the "$schema" key the scaffold writes into each source."""
    (tmp_path / ".git").mkdir()
    srt = {"$schema": schema_url("srt"), "filesystem": {"denyRead": ["~/.aws"]}}
    bash = {"$schema": schema_url("bash"), "deny": ["sudo"]}
    (tmp_path / "srt.json").write_text(json.dumps(srt))
    (tmp_path / "bash.json").write_text(json.dumps(bash))
    (tmp_path / "twsrt.toml").write_text(
        f'#:schema {schema_url("config")}\ncheckout = "~/dotfiles"\n'
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        '[targets]\nclaude_settings = "home/.claude/settings.full.json"\n' + ACCEPT_PLANTED_LAYERS
    )
    config = str(tmp_path / "twsrt.toml")
    env = {**os.environ, "HOME": str(tmp_path)}
    generated = run_cli(["generate", "-w", "-c", config], cwd=Path.cwd(), env=env)
    assert generated.returncode == 0, generated.stderr
    result = run_cli(["check", "-c", config, "--format", "json"], cwd=Path.cwd(), env=env)
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [f for f in findings if "$schema" in json.dumps(f)] == []
    assert not [f for f in findings if f["rule_id"].startswith("TWS1")]
