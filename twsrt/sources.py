"""Load the canonical sources (srt settings and bash rules) into a located Policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twsrt.config import Config, display_path
from twsrt.findings import Finding, TwsrtError, finding
from twsrt.jsonpos import JsonSyntaxError, PositionedJson, parse_json
from twsrt.locations import Location, pointer_join
from twsrt.policy import Entry, PathRule, Policy, normalize_path


def read_json_source(path: Path, display: str, schema: str) -> tuple[PositionedJson, list[Finding]]:
    """Parse and schema-check one JSON source; return it with every finding about it."""
    if not path.exists():
        raise TwsrtError(finding("source-missing", "source file does not exist", Location(display)))
    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise TwsrtError(
            finding("source-missing", "source path is a directory", Location(display))
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not valid UTF-8"
        raise TwsrtError(
            finding("source-unparsable", f"cannot read source: {reason}", Location(display))
        ) from None
    try:
        parsed = parse_json(text)
    except JsonSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise TwsrtError(
            finding("source-unparsable", f"invalid JSON: {exc.message}", location)
        ) from None
    from twsrt.schemas import validate

    found = validate(schema, parsed.value, display, parsed)
    for pointer in parsed.duplicate_keys:
        line, col = parsed.position(pointer, key=True)
        found.append(
            finding(
                "duplicate-json-key",
                f"key '{pointer.rsplit('/', 1)[1]}' appears more than once; only the last counts",
                Location(display, line, col, pointer),
            )
        )
    return parsed, found


def load_policy(config: Config) -> Policy:
    srt_display = display_path(config.srt)
    bash_display = display_path(config.bash_rules)
    errors: list[Finding] = []
    srt = bash = None
    for path, display, schema in (
        (config.srt, srt_display, "srt"),
        (config.bash_rules, bash_display, "bash"),
    ):
        try:
            parsed, found = read_json_source(path, display, schema)
        except TwsrtError as exc:
            errors.extend(exc.findings)
            continue
        errors.extend(found)
        if schema == "srt":
            srt = parsed
        else:
            bash = parsed
    if errors or srt is None or bash is None:
        raise TwsrtError(errors)
    return build_policy(srt, srt_display, bash, bash_display)


def build_policy(
    srt: PositionedJson, srt_display: str, bash: PositionedJson, bash_display: str
) -> Policy:
    """A Policy from already-validated sources."""
    data: dict[str, Any] = srt.value
    policy = Policy(srt_display, bash_display, data, srt)
    filesystem = data.get("filesystem", {})
    for key, target in (
        ("denyRead", policy.deny_read),
        ("allowRead", policy.allow_read),
        ("allowWrite", policy.allow_write),
        ("denyWrite", policy.deny_write),
    ):
        for index, item in enumerate(filesystem.get(key, [])):
            pointer = pointer_join(pointer_join("/filesystem", key), index)
            location = policy.srt_location(pointer)
            if isinstance(item, dict):
                target.append(PathRule(normalize_path(item["path"]), location, literal=True))
            else:
                target.append(PathRule(normalize_path(item), location))
    network = data.get("network", {})
    for key, target in (
        ("allowedDomains", policy.allowed_domains),
        ("deniedDomains", policy.denied_domains),
    ):
        for index, domain in enumerate(network.get(key, [])):
            pointer = pointer_join(pointer_join("/network", key), index)
            target.append(Entry(domain, policy.srt_location(pointer)))
    for key, target in (
        ("allow", policy.bash_allow),
        ("deny", policy.bash_deny),
        ("ask", policy.bash_ask),
    ):
        for index, command in enumerate(bash.value.get(key, [])):
            pointer = pointer_join(f"/{key}", index)
            line, col = bash.position(pointer)
            target.append(Entry(command, Location(bash_display, line, col, pointer)))
    return policy
