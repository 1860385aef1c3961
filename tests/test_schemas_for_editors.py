"""The shipped schemas serve editors: an https ``$id``, a description on every property, defaults
and examples, a SchemaStore catalog entry (valid by SchemaStore's own catalog schema), sources
carrying ``$schema`` stay valid, and a scaffold's references load offline: each source's
``$schema`` resolves to a file of the repository that check-jsonschema validates it with, and
``taplo check`` (the real TOML checker, npm @taplo/cli) loads the config's ``#:schema``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

import pytest
from support.cli import run_cli
from support.sandbox import ACCEPT_PLANTED_LAYERS, REPO_ROOT, Sandbox
from support.tools import locate_tool, require_tool

from twsrt.schemas import SCHEMA_FILES, load_schema, schema_url

CATALOG = REPO_ROOT / "schemas" / "schemastore-catalog-entry.json"
CATALOG_SCHEMA = REPO_ROOT / "tests" / "fixtures" / "schemastore" / "schema-catalog.schema.json"
TAPLO_DEFAULT = "/opt/twsrt-tools/taplo/bin/taplo"


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


# where SchemaStore fetches each schema: the repository's own file, which is served (the $id,
# https://twsrt.dev/schemas/..., names the schema but serves nothing)
RAW = "https://raw.githubusercontent.com/twsrt/twsrt/main/schemas/"


def test_schemastore_catalog_entry_names_every_schema_with_file_patterns() -> None:
    from jsonschema import Draft4Validator

    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    schema = json.loads(CATALOG_SCHEMA.read_text(encoding="utf-8"))
    assert [e.message for e in Draft4Validator(schema).iter_errors(catalog)] == []
    entries = {entry["url"]: entry for entry in catalog["schemas"]}
    assert set(entries) == {RAW + filename for filename in SCHEMA_FILES.values()}
    assert all((REPO_ROOT / "schemas" / url.removeprefix(RAW)).is_file() for url in entries)
    for entry in catalog["schemas"]:
        assert set(entry) == {"name", "description", "fileMatch", "url"}
        assert entry["fileMatch"] and all(isinstance(p, str) and p for p in entry["fileMatch"])
    by_file = {p: e["url"].removeprefix(RAW) for e in catalog["schemas"] for p in e["fileMatch"]}
    # the names config discovery and the scaffold use
    assert by_file["twsrt.toml"] == by_file[".twsrt.toml"] == SCHEMA_FILES["config"]
    assert by_file["srt-settings.json"] == by_file[".srt-settings.json"] == SCHEMA_FILES["srt"]
    assert by_file["bash-rules.json"] == SCHEMA_FILES["bash"]


def resolved(document: Path, reference: str) -> Path | None:
    """The file an editor loads for ``reference`` in ``document``: VS Code's JSON language
    service and taplo resolve it as a URI against the document's own (RFC 3986); None when it
    is no local file (a URL: offline, "Unable to load schema")."""
    url = urljoin(document.resolve().as_uri(), reference)
    parsed = urlparse(url)
    return Path(url2pathname(parsed.path)) if parsed.scheme == "file" else None


def scaffold(sandbox: Sandbox) -> Path:
    repo = sandbox.home / "dots"
    result = sandbox.run("init", "--repo", str(repo), "--agents", "claude")
    assert result.returncode == 0, result.stderr
    return repo


def test_scaffold_sources_name_schemas_that_load_offline(sandbox: Sandbox) -> None:
    """Today: "$schema" is https://twsrt.dev/..., which serves nothing."""
    repo = scaffold(sandbox)
    for relative, name in (("policy/srt-settings.json", "srt"), ("policy/bash-rules.json", "bash")):
        document = repo / relative
        reference = json.loads(document.read_text("utf-8"))["$schema"]
        assert not urlparse(reference).scheme, reference  # relative: no host to reach
        schema = resolved(document, reference)
        assert schema is not None and schema.parent == repo / "schemas"
        assert schema.read_text("utf-8") == sandbox.run("schema", name).stdout
    first = (repo / "twsrt.toml").read_text("utf-8").splitlines()[0]
    assert first == "#:schema ./schemas/config.schema.json"
    config = resolved(repo / "twsrt.toml", first.removeprefix("#:schema "))
    assert config is not None
    assert config.read_text("utf-8") == sandbox.run("schema", "config").stdout


@pytest.mark.parametrize("where", ["default", "dir", "outside-home"])
def test_init_starter_files_name_schemas_that_load_offline(
    sandbox: Sandbox, tmp_path: Path, where: str
) -> None:
    """Plain `init` and `init --dir` too: each starter file names its schema by a relative
    path to the copy init puts in schemas/ beside the config, even the srt file in ~ (today:
    https://twsrt.dev/..., "Unable to load schema")."""
    base = {
        "default": sandbox.home / ".config" / "twsrt",
        "dir": sandbox.home / "dots",
        "outside-home": tmp_path / "elsewhere",
    }[where]
    args = ("init",) if where == "default" else ("init", "--dir", str(base))
    result = sandbox.run(*args)
    assert result.returncode == 0, result.stderr
    documents = {
        base / "bash-rules.json": "bash",
        sandbox.home / ".srt-settings.json": "srt",
    }
    for document, name in documents.items():
        reference = json.loads(document.read_text("utf-8"))["$schema"]
        assert not urlparse(reference).scheme, reference
        schema = resolved(document, reference)
        assert schema is not None and schema.parent == base / "schemas", reference
        assert schema.read_text("utf-8") == sandbox.run("schema", name).stdout
        proc = check_jsonschema(schema, document)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    first = (base / "config.toml").read_text("utf-8").splitlines()[0]
    assert first == "#:schema ./schemas/config.schema.json"
    config = resolved(base / "config.toml", first.removeprefix("#:schema "))
    assert (
        config is not None and config.read_text("utf-8") == sandbox.run("schema", "config").stdout
    )


def check_jsonschema(schema: Path, instance: Path) -> subprocess.CompletedProcess[str]:
    beside = Path(sys.executable).parent / "check-jsonschema"
    command = [str(beside)] if beside.exists() else [sys.executable, "-m", "check_jsonschema"]
    return subprocess.run(
        [*command, "--schemafile", str(schema), str(instance)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_jsonschema_validates_each_source_by_the_schema_it_names(sandbox: Sandbox) -> None:
    repo = scaffold(sandbox)
    for relative in ("policy/srt-settings.json", "policy/bash-rules.json"):
        document = repo / relative
        schema = resolved(document, json.loads(document.read_text("utf-8"))["$schema"])
        assert schema is not None
        proc = check_jsonschema(schema, document)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        broken = sandbox.home / f"broken-{document.name}"
        broken.write_text(document.read_text("utf-8").replace('"$schema"', '"bogus": 1, "$schema"'))
        proc = check_jsonschema(schema, broken)
        assert proc.returncode == 1 and "bogus" in proc.stdout, proc.stdout + proc.stderr


def taplo_check(
    taplo: str, repo: Path, name: str = "twsrt.toml"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "RUST_LOG": "error"}
    return subprocess.run(
        [taplo, "check", name],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.tool
def test_taplo_checks_a_fresh_config_by_its_schema_directive(sandbox: Sandbox) -> None:
    """Today: taplo fails to fetch https://twsrt.dev/schemas/config.schema.json."""
    taplo = require_tool("taplo", locate_tool("taplo", "TWSRT_TAPLO_BIN", TAPLO_DEFAULT))
    repo = scaffold(sandbox)
    proc = taplo_check(taplo, repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the schema was loaded: a key it does not know is reported at its line
    config = repo / "twsrt.toml"
    config.write_text(config.read_text("utf-8") + "\n[sandbox]\nmood = 1\n", "utf-8")
    proc = taplo_check(taplo, repo)
    assert proc.returncode == 1
    assert "'mood' was unexpected" in proc.stdout + proc.stderr


@pytest.mark.tool
def test_taplo_checks_the_config_plain_init_writes(sandbox: Sandbox) -> None:
    taplo = require_tool("taplo", locate_tool("taplo", "TWSRT_TAPLO_BIN", TAPLO_DEFAULT))
    assert sandbox.run("init").returncode == 0
    base = sandbox.home / ".config" / "twsrt"
    proc = taplo_check(taplo, base, "config.toml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = base / "config.toml"
    config.write_text(config.read_text("utf-8") + "\n[sandbox]\nmood = 1\n", "utf-8")
    proc = taplo_check(taplo, base, "config.toml")
    assert proc.returncode == 1
    assert "'mood' was unexpected" in proc.stdout + proc.stderr


def test_schema_write_puts_every_schema_into_a_directory(sandbox: Sandbox) -> None:
    target = sandbox.home / "here" / "schemas"
    result = sandbox.run("schema", "--write", str(target))
    assert result.returncode == 0, result.stderr
    for name, filename in SCHEMA_FILES.items():
        assert (target / filename).read_text("utf-8") == sandbox.run("schema", name).stdout
        assert f"twsrt: wrote {target / filename}" in result.stderr.replace("~", str(sandbox.home))
    again = sandbox.run("schema", "--write", str(target))
    assert again.returncode == 0 and again.stderr.count("up to date:") == len(SCHEMA_FILES)
    refused = sandbox.run("schema", "srt", "--write", str(target))
    assert refused.returncode == 2 and "give no NAME" in refused.stderr
    metadata = sandbox.run("schema", "--write", str(sandbox.repo / ".git" / "schemas"))
    assert metadata.returncode == 2 and "error[TWS019]" in metadata.stderr
    assert not (sandbox.repo / ".git" / "schemas").exists()


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
