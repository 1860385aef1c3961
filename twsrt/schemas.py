"""The JSON Schemas twsrt ships, and validation that reports findings at file:line:col."""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from twsrt import __version__
from twsrt.agents import REGISTRY
from twsrt.domains import refusal, refused_entries
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import located, pointer_join
from twsrt.positions import PositionedDocument
from twsrt.rules import REFUSED_DOMAIN, SCHEMA_UNKNOWN_KEY, SCHEMA_VIOLATION

SCHEMA_FILES = {
    "srt": "srt-settings.schema.json",
    "bash": "bash-rules.schema.json",
    "config": "config.schema.json",
}

_PATTERN_HINTS = {
    r"^(?!~[^/])(?!\s*$)": "a path must be absolute, start with ~/ or be relative "
    "(~user/ forms are not supported, and blank paths protect nothing)",
    r"^\S(.*\S)?$": "a command must be non-empty, without leading or trailing whitespace",
    r"^\S+$": "a domain must be non-empty and contain no whitespace",
    r"^(?=[\s\S]*\w\W+\w)\s*\S[\s\S]{8,}\S\s*$": "a reason must say why the finding is "
    "acceptable: at least 10 characters and two words",
}


def schema_text(name: str) -> str:
    """The text of a shipped schema; from the installed package, else the source tree."""
    filename = SCHEMA_FILES[name]
    here = Path(__file__).resolve().parent
    for path in (here / "schemas" / filename, here.parent / "schemas" / filename):
        if path.is_file():  # importlib.resources costs ~8 ms to import: only a zip needs it
            return path.read_text(encoding="utf-8")
    from importlib import resources

    return (resources.files("twsrt") / "schemas" / filename).read_text(encoding="utf-8")


def _registry_state(name: str) -> tuple[tuple[str, str], ...]:
    """What the config schema's ``targets`` derive from (the agent registry); a cache key."""

    return tuple(REGISTRY.items()) if name == "config" else ()


def load_schema(name: str) -> dict[str, Any]:
    """A shipped schema as validation uses it: the config's ``targets`` come from the agent
    registry (the shipped file is generated from it and kept equal by a test)."""
    return _load_schema(name, _registry_state(name))


@cache
def _load_schema(name: str, _registry: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_text(name))
    if name == "config":
        from twsrt.registry import apply_to_schema  # only when built: a cached check skips it

        apply_to_schema(schema)
    return schema


@cache
def _validator(name: str, _registry: tuple[tuple[str, str], ...]) -> Any:
    from jsonschema import Draft202012Validator  # heavy: only when validating

    return Draft202012Validator(load_schema(name))


def _cache_marker(name: str, instance: Any) -> Path | None:
    """Where a "this instance is valid" marker lives; None when caching is off.

    jsonschema costs ~150 ms to import, most of a pre-commit hook's run. The sources rarely
    change between commits, so a valid result is remembered by the hash of the schema and the
    parsed instance. Only validity is cached: findings are always computed afresh.
    """
    if os.environ.get("TWSRT_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    digest = hashlib.sha256()
    registry = repr(_registry_state(name))  # the config's targets come from the registry
    instance_text = json.dumps(instance, sort_keys=True)
    for part in (__version__, name, schema_text(name), registry, instance_text):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return Path(base) / "twsrt" / "valid" / digest.hexdigest()


def validate(name: str, instance: Any, path: str, positions: PositionedDocument) -> list[Finding]:
    """Schema findings for ``instance``, each at the exact key or value that is wrong."""
    refused = _refused_domains(instance, path, positions) if name == "srt" else []
    marker = _cache_marker(name, instance)
    if marker is not None and marker.exists():
        return refused
    out = _validate(name, instance, path, positions)
    if not out and marker is not None:
        _PENDING_MARKERS.append(marker)
    reported = {item.location.pointer for item in out}
    return out + [item for item in refused if item.location.pointer not in reported]


def _refused_domains(instance: Any, path: str, positions: PositionedDocument) -> list[Finding]:
    """TWS215 for every network entry srt itself refuses (outside the cache: a rule of srt's
    that JSON Schema cannot state, so it must never be skipped)."""

    out = []
    for key, index, entry in refused_entries(instance):
        pointer = pointer_join(pointer_join("/network", key), index)
        why = refusal(entry, denied=key == "deniedDomains")
        message = f"srt refuses '{quoted(entry)}' in network.{key}: {why}"
        out.append(finding(REFUSED_DOMAIN, message, located(path, positions, pointer)))
    return out


_PENDING_MARKERS: list[Path] = []


def remember_valid() -> None:
    """Record this run's valid inputs; called only when the whole command succeeded."""
    while _PENDING_MARKERS:
        marker = _PENDING_MARKERS.pop()
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass  # a read-only cache only costs speed


def _validate(name: str, instance: Any, path: str, positions: PositionedDocument) -> list[Finding]:
    out: list[Finding] = []
    validator = _validator(name, _registry_state(name))
    checked = _without_valid_lists(load_schema(name), instance, load_schema(name))
    errors = sorted(validator.iter_errors(checked), key=lambda e: [str(p) for p in e.absolute_path])
    for error in errors:
        out.extend(_to_findings(error, path, positions))
    return sorted(out, key=lambda f: (f.location.line, f.location.column, f.message))


# Schema keywords that only describe: they never produce an error.
_ANNOTATIONS = frozenset({"description", "examples", "default", "title", "$comment"})
_OBJECT_KEYS = _ANNOTATIONS | {"type", "properties", "additionalProperties", "required"}
_ROOT_KEYS = _OBJECT_KEYS | {"$id", "$schema", "$defs"}
_ARRAY_KEYS = _ANNOTATIONS | {"type", "items"}
_STRING_KEYS = _ANNOTATIONS | {"type", "minLength", "maxLength", "pattern"}


def _without_valid_lists(schema: dict[str, Any], instance: Any, root: dict[str, Any]) -> Any:
    """``instance`` with every list emptied whose items all pass a plain string schema, so
    jsonschema (~20 us per item) sees only what can hold an error; the errors are the same.

    Only lists reached through plain objects (``properties``, no keyword that quotes the
    instance in its message) are emptied, and only when the list itself has no keyword
    beyond ``type`` and ``items``: an emptied list then makes no error and hides none.
    """
    schema = _resolved(schema, root)
    keys = _ROOT_KEYS if schema is root else _OBJECT_KEYS
    if isinstance(instance, dict) and schema.get("type") == "object" and set(schema) <= keys:
        properties = schema.get("properties", {})
        return {
            key: _without_valid_lists(properties[key], item, root) if key in properties else item
            for key, item in instance.items()
        }
    if isinstance(instance, list) and schema.get("type") == "array" and set(schema) <= _ARRAY_KEYS:
        passes = _string_check(schema.get("items"), root)
        if passes is not None and all(passes(item) for item in instance):
            return []
    return instance


def _resolved(schema: Any, root: dict[str, Any]) -> Any:
    """A ``{"$ref": "#/$defs/NAME"}`` schema (annotations aside) as the schema it names."""
    while (
        isinstance(schema, dict)
        and isinstance(schema.get("$ref"), str)
        and schema["$ref"].startswith("#/$defs/")
        and set(schema) <= _ANNOTATIONS | {"$ref"}
    ):
        schema = root.get("$defs", {}).get(schema["$ref"].removeprefix("#/$defs/"))
    return schema


def _string_check(schema: Any, root: dict[str, Any]) -> Any:
    """A function telling whether a value passes ``schema`` for sure, when ``schema`` is a
    plain string schema or an ``anyOf`` whose first branch is one; else None."""
    schema = _resolved(schema, root)
    if isinstance(schema, dict) and set(schema) <= _ANNOTATIONS | {"anyOf"} and schema.get("anyOf"):
        schema = _resolved(schema["anyOf"][0], root)  # passing one branch passes anyOf
    if not isinstance(schema, dict) or schema.get("type") != "string":
        return None
    if not set(schema) <= _STRING_KEYS:
        return None
    shortest, longest = schema.get("minLength", 0), schema.get("maxLength")
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None

    def passes(value: Any) -> bool:
        return (
            isinstance(value, str)
            and len(value) >= shortest
            and (longest is None or len(value) <= longest)
            and (pattern is None or pattern.search(value) is not None)
        )

    return passes


def _pointer(parts: Any) -> str:
    pointer = ""
    for part in parts:
        pointer = pointer_join(pointer, part)
    return pointer


def _to_findings(error: Any, path: str, positions: PositionedDocument) -> list[Finding]:
    pointer = _pointer(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list(error.schema.get("properties", {}))
        out = []
        for key in error.instance:
            if key in known:
                continue
            child = pointer_join(pointer, key)
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known keys: {', '.join(known)}"
            where = f"'{quoted(pointer)}'" if pointer else "the top level"
            message = f"unknown key '{quoted(key)}' in {where}{hint}"
            out.append(
                finding(SCHEMA_UNKNOWN_KEY, message, located(path, positions, child, key=True))
            )
        return out
    if error.validator in ("anyOf", "oneOf") and error.context:
        if all(sub.validator == "type" and not sub.relative_path for sub in error.context):
            kinds = " or ".join(_article(sub.validator_value) for sub in error.context)
            got = _json_type(error.instance)
            message = f"expected {kinds}, got {got} {quoted(json.dumps(error.instance))}"
            return [finding(SCHEMA_VIOLATION, message, located(path, positions, pointer))]
        # report the branch that matches the value's JSON type, e.g. the string form of a path
        same_type = [
            sub for sub in error.context if sub.validator not in ("type",) and not sub.relative_path
        ] or [sub for sub in error.context if sub.relative_path]
        if same_type:
            best = same_type[0]
            return _to_findings(best, path, positions)
    return [finding(SCHEMA_VIOLATION, _message(error), located(path, positions, pointer))]


def _message(error: Any) -> str:
    value = json.dumps(error.instance, ensure_ascii=False)
    if len(value) > 60:
        value = value[:57] + "..."
    if error.validator == "type":
        expected = error.validator_value
        if isinstance(expected, list):
            expected = " or ".join(expected)
        got = _json_type(error.instance)
        return f"expected {_article(expected)}, got " + (got if got == "null" else f"{got} {value}")
    if error.validator == "pattern":
        hint = _PATTERN_HINTS.get(error.validator_value, f"must match {error.validator_value}")
        return f"invalid value {value}: {hint}"
    if error.validator == "minLength":
        return f"invalid value {value}: must not be empty"
    if error.validator == "required":
        return error.message
    if error.validator == "enum":
        allowed = ", ".join(json.dumps(v) for v in error.validator_value)
        return f"invalid value {value}: expected one of {allowed}"
    if error.validator in ("minimum", "maximum"):
        return f"invalid value {value}: {error.message}"
    if error.validator == "const":
        return f"invalid value {value}: must be {json.dumps(error.validator_value)}"
    return error.message


def _article(name: str) -> str:
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


# Stable public URLs of the shipped schemas: each schema's "$id", and what scaffolded sources
# name in "$schema" / "#:schema" (SchemaStore's catalog maps file names to the same URLs).
SCHEMA_BASE_URL = "https://twsrt.dev/schemas/"


def schema_url(name: str) -> str:
    return SCHEMA_BASE_URL + SCHEMA_FILES[name]
