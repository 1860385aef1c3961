"""Load the canonical sources (srt settings and bash rules) into a located Policy."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twsrt.config import Config
from twsrt.findings import Finding, Level, TwsrtError, finding, quoted
from twsrt.jsonpos import JsonSyntaxError, PositionedJson, parse_jsonc, walk
from twsrt.locations import Location, located, pointer_join
from twsrt.policy import Entry, PathRule, Policy, normalize_path
from twsrt.records import record
from twsrt.rules import DUPLICATE_JSON_KEY, SCHEMA_VIOLATION, SOURCE_MISSING, SOURCE_UNPARSABLE
from twsrt.safeio import FileProblem, problem_finding, read_text
from twsrt.schemas import validate


def read_json_source(
    path: Path, display: str, schema: str, config: Config, *, srt_reads: bool | None = None
) -> tuple[PositionedJson, list[Finding]]:
    """Parse and schema-check one JSON source (read within ``config``'s confinement); return
    it with every finding about it. Comments (JSONC) are fine, except in a file srt itself
    reads (``srt_reads``; default: the srt source of a config without fragments), as srt
    refuses anything but plain JSON."""

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
        parsed = parse_jsonc(text)
    except JsonSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise TwsrtError(
            finding(SOURCE_UNPARSABLE, f"invalid JSON: {exc.message}", location)
        ) from None

    found = []
    if parsed.comments and (schema == "srt" if srt_reads is None else srt_reads):
        found.append(_srt_comment(parsed, display))
    found += validate(schema, parsed.value, display, parsed)
    found += control_characters(parsed, display)
    for pointer in parsed.duplicate_keys:
        key = quoted(pointer.rsplit("/", 1)[1])
        found.append(
            finding(
                DUPLICATE_JSON_KEY,
                f"key '{key}' appears more than once; only the last counts",
                located(display, parsed, pointer, key=True),
            )
        )
    return parsed, found


def _srt_comment(parsed: PositionedJson, display: str) -> Finding:
    """srt reads the srt source itself (``~/.srt-settings.json``, or the scaffold's link to
    it) and refuses a comment, falling back to its defaults without ``--settings``: an error at
    the first comment."""
    line, col = parsed.index.line_col(parsed.comments[0][0])
    more = len(parsed.comments) - 1
    others = f" (and {more} more)" if more else ""
    message = (
        f"comment{others} in the srt settings: srt reads this file and accepts plain JSON only; "
        "remove it (comments are fine in the bash rules and in fragments)"
    )
    return finding(SOURCE_UNPARSABLE, message, Location(display, line, col))


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")  # a tab is quoted by every agent
# json.loads (strict) refuses a raw character below U+0020 in a string: a decoded string holds
# one of _CONTROL's only through an escape or as a raw DEL or C1 character
_RAW_DEL_C1 = re.compile("[\x7f-\x9f]")


def control_characters(parsed: PositionedJson, display: str) -> list[Finding]:
    """Paths, domains and commands never hold control characters; one (DEL, ESC, a newline)
    would reach every agent's file and every report, where it breaks TOML or starts a
    terminal or CI command."""
    found: list[Finding] = []
    if "\\" not in parsed.text and not _RAW_DEL_C1.search(parsed.text):
        return found  # the common case, at C speed: no string can hold one
    for pointer, is_key, node in walk(parsed.value):
        match = _CONTROL.search(node) if isinstance(node, str) else None
        if match:
            code = f"U+{ord(match[0]):04X}"
            message = f"contains the control character {code}; remove it"
            where = located(display, parsed, pointer, key=is_key)
            found.append(finding(SCHEMA_VIOLATION, message, where))
    return found


@record(frozen=False)
class SourcesRead:
    """The policy's files as read for one run: the policy (None when a file could not be read
    or holds an error), every finding about the files, and each file's display name."""

    policy: Policy | None
    findings: list[Finding]
    displays: list[str]


def read_sources(config: Config) -> SourcesRead:
    """Read, check and build the policy: the two [sources] files, or the selected profile's
    fragments composed (see ``compose``)."""
    if config.fragments:
        return _read_fragments(config)
    srt_display = config.display_path(config.srt)
    bash_display = config.display_path(config.bash_rules)
    findings: list[Finding] = []
    parsed: dict[str, PositionedJson] = {}
    for path, display, schema in (
        (config.srt, srt_display, "srt"),
        (config.bash_rules, bash_display, "bash"),
    ):
        try:
            parsed[schema], found = read_json_source(path, display, schema, config)
        except TwsrtError as exc:
            findings.extend(exc.findings)
            continue
        findings.extend(found)
    policy = None
    if len(parsed) == 2 and not any(f.level is Level.ERROR for f in findings):
        policy = build_policy(parsed["srt"], srt_display, parsed["bash"], bash_display)
    return SourcesRead(policy, findings, [srt_display, bash_display])


def load_policy(config: Config) -> Policy:
    """The run's policy, one file pair or a composed profile; any finding about the files
    stops the run."""
    read = read_sources(config)
    if read.findings or read.policy is None:
        raise TwsrtError(read.findings)
    return read.policy


def _read_fragments(config: Config) -> SourcesRead:
    from twsrt.compose import ComposedSource, Part  # only a profile composes: start-up

    findings: list[Finding] = []
    parts: dict[str, list[Part]] = {"srt": [], "bash_rules": []}
    displays = []
    for fragment in config.fragments:
        for kind, path in fragment.files():
            display = config.display_path(path)
            displays.append(display)
            schema = "srt" if kind == "srt" else "bash"
            try:
                # srt never reads a fragment (it gets the composed settings): JSONC is fine
                parsed, found = read_json_source(path, display, schema, config, srt_reads=False)
            except TwsrtError as exc:
                findings += [_at_entry(item, config, fragment.name, kind) for item in exc.findings]
                continue
            findings += found
            parts[kind].append(Part(fragment.name, display, parsed))
    srt, bash = ComposedSource(parts["srt"]), ComposedSource(parts["bash_rules"])
    findings += srt.conflicts + bash.conflicts
    policy = None
    if not any(f.level is Level.ERROR for f in findings):
        policy = Policy(srt.display, bash.display, srt.value, parts["srt"][0].parsed)
        policy.srt_locator, policy.bash_locator = srt, bash
        policy.fragments = {**srt.fragments, **bash.fragments}
        _fill(policy, srt.value, srt.item_locations, bash.value, bash.item_locations)
    return SourcesRead(policy, findings, list(dict.fromkeys(displays)))


def _at_entry(item: Finding, config: Config, fragment: str, kind: str) -> Finding:
    """A fragment file that does not exist is reported at the config entry naming it."""
    if item.rule_id != SOURCE_MISSING.id:
        return item
    where = config.location(pointer_join(pointer_join("/fragments", fragment), kind))
    message = f"fragment '{quoted(fragment)}': {item.message} ({item.location.path})"
    return finding(SOURCE_MISSING, message, where)


def build_policy(
    srt: PositionedJson, srt_display: str, bash: PositionedJson, bash_display: str
) -> Policy:
    """A Policy from already-validated sources."""
    policy = Policy(srt_display, bash_display, srt.value, srt, bash_positions=bash)
    _fill(policy, srt.value, _items(srt, srt_display), bash.value, _items(bash, bash_display))
    return policy


def _items(parsed: PositionedJson, display: str) -> Items:
    """The location of each item of an array of one file, by its pointer."""

    def locations(pointer: str) -> list[Location]:
        extents = parsed.item_extents(pointer)
        return [
            Location(display, line, column, f"{pointer}/{index}", end_line, end_column)
            for index, (line, column, end_line, end_column) in enumerate(extents)
        ]

    return locations


Items = Callable[[str], list[Location]]


def _fill(
    policy: Policy, data: dict[str, Any], srt_items: Items, bash: Any, bash_items: Items
) -> None:
    """The policy's rule lists, each rule at the location ``*_items`` gives its list index."""
    filesystem = data.get("filesystem", {})
    for key, target in (
        ("denyRead", policy.deny_read),
        ("allowRead", policy.allow_read),
        ("allowWrite", policy.allow_write),
        ("denyWrite", policy.deny_write),
    ):
        items = filesystem.get(key, [])
        locations = srt_items(pointer_join("/filesystem", key)) if items else []
        for item, location in zip(items, locations, strict=True):
            if isinstance(item, dict):
                target.append(PathRule(normalize_path(item["path"]), location, literal=True))
            else:
                target.append(PathRule(normalize_path(item), location))
    network = data.get("network", {})
    for key, entries in (
        ("allowedDomains", policy.allowed_domains),
        ("deniedDomains", policy.denied_domains),
    ):
        domains = network.get(key, [])
        locations = srt_items(pointer_join("/network", key)) if domains else []
        entries.extend(map(Entry, domains, locations))
    for key, entries in (
        ("allow", policy.bash_allow),
        ("deny", policy.bash_deny),
        ("ask", policy.bash_ask),
    ):
        commands = bash.get(key, [])
        locations = bash_items(f"/{key}") if commands else []
        entries.extend(map(Entry, commands, locations))
