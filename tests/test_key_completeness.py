"""Every canonical key is compiled or reported, for every agent: a test generated from the shipped
srt schema.

For every key pointer of ``schemas/srt-settings.schema.json``, every agent in the registry and
every sandbox mode where the key applies, a policy that sets the key (a realistic value derived
from the schema) must either change what the agent generates (preview and files) compared with
the same policy without the key, or yield a finding whose message names the key. A key added to
the schema later fails here until an agent compiles or reports it, and until ``SRT_KEYS``
classifies it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from copy import deepcopy
from pathlib import Path
from typing import Any

import pytest

from twsrt.agents import AGENTS
from twsrt.agents.srtkeys import IGNORED, SRT_KEYS, dotted, set_keys, unhandled_key_findings
from twsrt.config import SANDBOX_MODES
from twsrt.configload import load_config
from twsrt.findings import Finding, Level, TwsrtError
from twsrt.protection import protected_context
from twsrt.schemas import load_schema
from twsrt.sources import load_policy
from twsrt.writes import FileWrite

CONFIG = """\
home = "/home/user"

[sources]
srt = "srt.json"
bash_rules = "bash.json"

[targets]
claude_settings = "home/.claude/settings.full.json"
codex_config = "home/.codex/config.toml"
codex_rules = "home/.codex/rules/twsrt.rules"
copilot_output = "home/.config/twsrt/copilot-flags.txt"
copilot_settings = "home/.copilot/settings.json"
deepcode_settings = "home/.deepcode/settings.json"
"""

BASE: dict[str, Any] = {
    "network": {"allowedDomains": ["github.com"], "deniedDomains": []},
    "filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."], "denyWrite": []},
}
BASH = {"deny": ["sudo"], "ask": [], "allow": []}

# String values by key name where the name says what a realistic value looks like.
STRINGS = {
    "deniedResolvedAddresses": "10.0.0.0/8",
    "stripResponseHeaders": "set-cookie",
    "allowMachLookup": "com.example.*",
    "args": "--hidden",
    "argv0": "rg",
    "name": "API_TOKEN",
    "accessKeyIdVar": "AWS_ACCESS_KEY_ID",
    "secretAccessKeyVar": "AWS_SECRET_ACCESS_KEY",
    "sessionTokenVar": "AWS_SESSION_TOKEN",
    "extract": "token=(\\S+)",
    "sandboxUser": "srt-sandbox",
    "noProxy": "localhost",
    "maskClaims": "sub",
}
PATHLIKE = ("path", "Path", "Paths", "command", "Sockets", "safeDirectories", "deny", "allow")
DOMAINLIKE = ("Domains", "domains", "Hosts")

# Keys that mean nothing in a mode: read-only grants no write, whatever allowWrite says, and
# danger-full-access runs without a sandbox, whatever enabled says.
NOT_APPLICABLE = {("read-only", "/filesystem/allowWrite"), ("danger-full-access", "/enabled")}


def schema_keys(node: dict[str, Any], base: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every key pointer of the schema (objects and leaves; list items and maps are values)."""
    for name, sub in node.get("properties", {}).items():
        pointer = f"{base}/{name}"
        yield pointer, sub
        yield from schema_keys(sub, pointer)


SCHEMA = load_schema("srt")
KEYS = dict(schema_keys(SCHEMA))


def sample_string(name: str, schema: dict[str, Any]) -> str:
    """A string for the key ``name``: by format, a known value, else a domain or a path."""
    formats = {"uri": "http://proxy.a.example:3128", "uuid": "123e4567-e89b-12d3-a456-426614174000"}
    if schema.get("format") in formats:
        return formats[schema["format"]]
    if name in STRINGS:
        return STRINGS[name]
    if any(part in name for part in DOMAINLIKE):
        return "a.example"
    return "~/x" if any(part in name for part in PATHLIKE) else "a.example"


def sample_object(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """An object with its required keys (else its first one), or a map with one entry."""
    properties = schema.get("properties")
    if properties is None:  # a map
        key = "*" if name == "ignoreViolations" else "a.example"
        return {key: sample(name, schema["additionalProperties"])}
    chosen = schema.get("required") or [next(iter(properties))]
    return {key: sample(key, properties[key]) for key in chosen}


def sample(name: str, schema: dict[str, Any]) -> Any:
    """A realistic value for the key ``name`` with ``schema``, valid against it."""
    if "anyOf" in schema:
        return sample(name, schema["anyOf"][0])
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "boolean":
        return True
    if kind == "integer":
        return max(schema.get("minimum", 1), min(schema.get("maximum", 65535), 8080))
    if kind == "string":
        return sample_string(name, schema)
    if kind == "array":
        if "prefixItems" in schema:
            return [60080, 60089]
        return [sample(name, schema.get("items", {"type": "string"}))]
    if kind == "object":
        return sample_object(name, schema)
    raise AssertionError(f"no sample for {name}: {schema}")


SAMPLES: dict[str, Any] = {"/enabled": False}  # true is the default and asks for nothing


def with_key(pointer: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The base policy with the key set (inside parents holding what they require), and the
    same policy without it (nor a parent that requires it)."""
    parts = pointer.strip("/").split("/")
    with_it = deepcopy(BASE)
    node = with_it
    for depth, part in enumerate(parts[:-1]):
        parent = KEYS["/" + "/".join(parts[: depth + 1])]
        required = {k: sample(k, parent["properties"][k]) for k in parent.get("required", [])}
        node = node.setdefault(part, required)
    node[parts[-1]] = SAMPLES.get(pointer, sample(parts[-1], KEYS[pointer]))
    without = deepcopy(with_it)
    drop = len(parts)
    while drop > 1:  # a key its parent requires goes with the parent
        parent = KEYS["/" + "/".join(parts[: drop - 1])]
        if parts[drop - 1] not in parent.get("required", []):
            break
        drop -= 1
    node = without
    for part in parts[: drop - 1]:
        node = node[part]
    del node[parts[drop - 1]]
    return with_it, without


def compile_all(tmp: Path, srt: dict[str, Any]) -> dict[tuple[str, str], tuple[str, list[Finding]]]:
    """Every agent in every sandbox mode: (generated text, findings) for one policy."""
    (tmp / "srt.json").write_text(json.dumps(srt, indent=2) + "\n")
    (tmp / "bash.json").write_text(json.dumps(BASH) + "\n")
    (tmp / "twsrt.toml").write_text(CONFIG)
    config = load_config(tmp / "twsrt.toml", tmp / "home", tmp)
    policy = load_policy(config)
    out: dict[tuple[str, str], tuple[str, list[Finding]]] = {}
    for mode in SANDBOX_MODES:
        ctx = protected_context(config, policy, sandbox_mode=mode)
        for name, agent in AGENTS.items():
            try:
                result = agent.compile(ctx)
            except TwsrtError as exc:
                out[name, mode] = ("", exc.findings)
                continue
            files = [c.text for c in result.changes if isinstance(c, FileWrite)]
            out[name, mode] = ("\0".join([result.preview, *files]), result.findings)
    return out


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cache: dict[str, Any] = {}
    root = tmp_path_factory.mktemp("keys")
    for index, pointer in enumerate(KEYS):
        if pointer in IGNORED:
            continue
        directory = root / str(index)  # one directory: previews name the files they write
        directory.mkdir()
        cache[pointer] = tuple(compile_all(directory, srt) for srt in with_key(pointer))
    return cache


def test_table_classifies_every_schema_key() -> None:
    assert sorted(SRT_KEYS) == sorted(KEYS)


def test_an_object_restricts_when_a_member_does() -> None:
    """A finding about a whole object takes the object's level, so it must not be milder."""
    for pointer, info in SRT_KEYS.items():
        parent = pointer.rsplit("/", 1)[0]
        if parent and info.effect == "restricts":
            assert SRT_KEYS[parent].effect == "restricts", pointer


def test_samples_set_the_key(tmp_path: Path) -> None:
    """Each sample sets the key (or leaves below it) and nothing outside its top-level key (the
    ``compiled`` fixture loads every sample through the schema, so they are valid too)."""
    for pointer in KEYS:
        if pointer in IGNORED:
            continue
        with_it, without = with_key(pointer)
        keys = set(set_keys(with_it)) - set(set_keys(without))
        assert any(k == pointer or k.startswith(pointer + "/") for k in keys), pointer
        top = "/" + pointer.strip("/").split("/")[0]
        assert all(k.startswith(top) for k in keys), pointer


CASES = [
    pytest.param(pointer, agent, mode, id=f"{agent}-{mode}-{dotted(pointer)}")
    for pointer in KEYS
    if pointer not in IGNORED
    for agent in AGENTS
    for mode in SANDBOX_MODES
    if (mode, pointer) not in NOT_APPLICABLE
]


@pytest.mark.parametrize(("pointer", "agent", "mode"), CASES)
def test_key_is_compiled_or_reported(
    compiled: dict[str, Any], pointer: str, agent: str, mode: str
) -> None:
    with_it, without = compiled[pointer]
    text, findings = with_it[agent, mode]
    if text != without[agent, mode][0]:
        return  # the key changes what the agent gets
    key = dotted(pointer)
    named = [f for f in findings if f"'{key}" in f.message or f"{key} " in f.message]
    assert named, f"{key} is neither compiled nor reported for {agent} in {mode}"


def test_unhandled_key_levels(tmp_path: Path) -> None:
    """A restricting key the agent drops is a warning, a granting or runtime key a note, a key
    set to false or empty is quiet, and a handled pointer covers its subtree."""
    srt = {
        "$schema": "x",
        "network": {
            "allowedDomains": [],
            "deniedDomains": [],
            "requireHostMatch": True,
            "allowLocalBinding": True,
            "refuseOpaqueTunnels": False,
            "tlsTerminate": {"maxTunnels": 4, "excludeDomains": []},
        },
        "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []},
        "bwrapPath": "/usr/bin/bwrap",
    }
    (tmp_path / "srt.json").write_text(json.dumps(srt, indent=1))
    (tmp_path / "bash.json").write_text("{}")
    (tmp_path / "twsrt.toml").write_text(CONFIG)
    policy = load_policy(load_config(tmp_path / "twsrt.toml", tmp_path, tmp_path))
    found = unhandled_key_findings(policy, "someagent", ("/network/allowedDomains",))
    got = [(f.location.pointer, f.level, f.rule_id, f.location.line) for f in found]
    assert got == [
        ("/network/requireHostMatch", Level.WARNING, "TWS405", 6),
        ("/network/allowLocalBinding", Level.NOTE, "TWS414", 7),
        ("/network/tlsTerminate/maxTunnels", Level.NOTE, "TWS414", 10),
        ("/bwrapPath", Level.NOTE, "TWS414", 19),
    ]
    assert all(f.agent == "someagent" for f in found)
    assert "'network.requireHostMatch' is not compiled for someagent" in found[0].message
    covered = unhandled_key_findings(policy, "x", ("/network", "/bwrapPath"))
    assert covered == []
    reasons = {"/network/tlsTerminate": "x has no TLS proxy"}
    mine = unhandled_key_findings(policy, "x", ("/network/requireHostMatch",), reasons)
    assert [f.message.split(": ")[1].split(";")[0] for f in mine] == [
        "srt lets commands bind and reach local ports (macOS)",
        "x has no TLS proxy",
        "srt runs this program on the host as bubblewrap, the sandbox itself",
    ]
