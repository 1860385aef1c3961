"""Load the canonical sources (srt settings and bash rules) into a located Policy."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from twsrt.config import Config
from twsrt.findings import Finding, TwsrtError, finding, quoted
from twsrt.jsonpos import JsonSyntaxError, PositionedJson, parse_json, walk
from twsrt.locations import Location, pointer_join
from twsrt.policy import Entry, PathRule, Policy, normalize_path
from twsrt.rules import DUPLICATE_JSON_KEY, SCHEMA_VIOLATION, SOURCE_MISSING, SOURCE_UNPARSABLE


def read_json_source(
    path: Path, display: str, schema: str, config: Config
) -> tuple[PositionedJson, list[Finding]]:
    """Parse and schema-check one JSON source (read within ``config``'s confinement); return
    it with every finding about it."""
    from twsrt.safeio import FileProblem, problem_finding, read_text

    try:
        text = read_text(path, confine=config.confine_root)
    except FileProblem as exc:
        where = Location(display)
        missing = {
            "missing": "source file does not exist",
            "dangling": f"source file does not exist: {exc.reason}",
            "directory": "source path is a directory",
        }
        if exc.kind in missing:
            raise TwsrtError(finding(SOURCE_MISSING, missing[exc.kind], where)) from None
        raise TwsrtError(
            problem_finding(exc, SOURCE_UNPARSABLE, where, "cannot read source: ")
        ) from None
    try:
        parsed = parse_json(text)
    except JsonSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise TwsrtError(
            finding(SOURCE_UNPARSABLE, f"invalid JSON: {exc.message}", location)
        ) from None
    from twsrt.schemas import validate

    found = validate(schema, parsed.value, display, parsed)
    found += control_characters(parsed, display)
    for pointer in parsed.duplicate_keys:
        line, col = parsed.position(pointer, key=True)
        key = quoted(pointer.rsplit("/", 1)[1])
        found.append(
            finding(
                DUPLICATE_JSON_KEY,
                f"key '{key}' appears more than once; only the last counts",
                Location(display, line, col, pointer),
            )
        )
    return parsed, found


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")  # a tab is quoted by every agent


def control_characters(parsed: PositionedJson, display: str) -> list[Finding]:
    """Paths, domains and commands never hold control characters; one (DEL, ESC, a newline)
    would reach every agent's file and every report, where it breaks TOML or starts a
    terminal or CI command."""
    found = []
    for pointer, is_key, node in walk(parsed.value):
        match = _CONTROL.search(node) if isinstance(node, str) else None
        if match:
            line, col = parsed.position(pointer, key=is_key)
            code = f"U+{ord(match[0]):04X}"
            message = f"contains the control character {code}; remove it"
            found.append(finding(SCHEMA_VIOLATION, message, Location(display, line, col, pointer)))
    return found


def load_policy(config: Config) -> Policy:
    srt_display = config.display_path(config.srt)
    bash_display = config.display_path(config.bash_rules)
    errors: list[Finding] = []
    srt = bash = None
    for path, display, schema in (
        (config.srt, srt_display, "srt"),
        (config.bash_rules, bash_display, "bash"),
    ):
        try:
            parsed, found = read_json_source(path, display, schema, config)
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
        parent = pointer_join("/filesystem", key)
        positions = srt.item_positions(parent)
        for index, item in enumerate(filesystem.get(key, [])):
            pointer = f"{parent}/{index}"
            location = Location(srt_display, *positions[index], pointer)
            if isinstance(item, dict):
                target.append(PathRule(normalize_path(item["path"]), location, literal=True))
            else:
                target.append(PathRule(normalize_path(item), location))
    network = data.get("network", {})
    for key, target in (
        ("allowedDomains", policy.allowed_domains),
        ("deniedDomains", policy.denied_domains),
    ):
        parent = pointer_join("/network", key)
        positions = srt.item_positions(parent)
        for index, domain in enumerate(network.get(key, [])):
            pointer = f"{parent}/{index}"
            target.append(Entry(domain, Location(srt_display, *positions[index], pointer)))
    for key, target in (
        ("allow", policy.bash_allow),
        ("deny", policy.bash_deny),
        ("ask", policy.bash_ask),
    ):
        positions = bash.item_positions(f"/{key}")
        for index, command in enumerate(bash.value.get(key, [])):
            pointer = f"/{key}/{index}"
            target.append(Entry(command, Location(bash_display, *positions[index], pointer)))
    return policy
