"""Codex's files: the owned keys merged into the user's config.toml, and the members drift
compares and reports show (config and rules).

The merge is tomlkit's, which keeps comments and layout; where its result is known without it
(a file in sync, no file, a stale profile of twsrt's own lines) it is rendered as text, so
that tomlkit never parses the thousands of keys of a large profile. ``tests/test_codex_oracle``
compares the bytes with the whole-file tomlkit merge."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from typing import Any

from twsrt.agents.base import DriftItem
from twsrt.agents.codex.declaration import LEGACY_KEYS, NAME, OWNED_TOP, PROFILE, Compiled
from twsrt.agents.codex.rules import CODEX_LEGACY_SANDBOX
from twsrt.agents.targets import Members, project
from twsrt.diffs import toml_key
from twsrt.documents import Documents
from twsrt.findings import Finding, fail, finding, quoted
from twsrt.locations import Location, located
from twsrt.rules import TARGET_UNUSABLE

# top-level keys of config.toml that twsrt reads or merges into as tables
TABLE_KEYS = ("features", "permissions", "profiles")


def parsed_config(text: str, display: str, documents: Documents | None = None) -> Any:
    """The one positioned parse of config.toml per run (``tomllib`` values, lazy positions;
    ``documents``: the run's parse-once store); invalid TOML or a merge table of another type
    is a located error."""
    from twsrt.tomlpos import TomlSyntaxError

    try:
        parsed = (documents or Documents()).toml(text)
    except TomlSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise fail(TARGET_UNUSABLE, f"invalid TOML: {exc.message}", location) from None
    for key in TABLE_KEYS:  # twsrt merges into these: any other type cannot be merged
        if key in parsed.value and not isinstance(parsed.value[key], dict):
            where = located(display, parsed, f"/{key}")
            raise fail(TARGET_UNUSABLE, f"'{quoted(key)}' must be a table", where)
    return parsed


def _legacy_locations(parsed: Any, display: str) -> list[Finding]:
    found = []
    tables: list[tuple[str, dict[str, Any]]] = [("", parsed.value)]
    for section in ("profiles", "permissions"):
        for name, profile in parsed.value.get(section, {}).items():
            if isinstance(profile, dict):
                tables.append((f"/{section}/{name}", profile))
    for prefix, table in tables:
        for key in LEGACY_KEYS:
            if key in table:
                pointer = f"{prefix}/{key}"
                found.append(
                    finding(
                        CODEX_LEGACY_SANDBOX,
                        f"legacy '{quoted(key)}' makes Codex ignore default_permissions and the "
                        "twsrt profile; remove it",
                        located(display, parsed, pointer, key=True),
                        agent=NAME,
                    )
                )
    return found


def _toml_text(values: dict[str, Any], header: str) -> list[str]:
    """TOML lines for a table: plain values first, then sub-tables (TOML needs that order).

    Rendered as text and parsed once: inserting thousands of keys one by one into a tomlkit
    table is quadratic."""
    lines = [f"[{header}]"]
    for key, value in values.items():
        if isinstance(value, str) and _PLAIN_STRING.fullmatch(value):
            lines.append(f'{_key(key)} = "{value}"')
        elif not isinstance(value, dict):
            rendered = json.dumps(value, ensure_ascii=False)  # str, bool, int: JSON == TOML
            lines.append(f"{_key(key)} = {rendered}")
    for key, value in values.items():
        if isinstance(value, dict):
            lines += ["", *_toml_text(value, f"{header}.{_key(key)}")]
    return lines


# What json.dumps (ensure_ascii=False) only puts in quotes: no control character, quote or
# backslash. Tens of thousands of keys and values: the shortcut halves the rendering.
_PLAIN_STRING = re.compile(r'[^\x00-\x1f"\\]*')
_PLAIN_QUOTED_KEY = re.compile(r'[^\x00-\x1f"\\]*[^A-Za-z0-9_\x00-\x1f"\\-][^\x00-\x1f"\\]*')


def _key(key: str) -> str:
    """``toml_key``: a key that is not bare, in quotes (json.dumps only where it escapes)."""
    return f'"{key}"' if _PLAIN_QUOTED_KEY.fullmatch(key) else toml_key(key)


def _table(values: dict[str, Any], name: str) -> Any:
    import tomlkit

    return tomlkit.parse(_profile_text(values, name))["permissions"][name]


def _profile_text(values: dict[str, Any], name: str = PROFILE) -> str:
    return "\n".join(_toml_text(values, f"permissions.{name}")) + "\n"


# Deeper documents go to tomlkit, which refuses more than 100 levels (tomllib does not): the
# fast paths must not accept what the merge would refuse.
_SAFE_DEPTH = 64


_KEY_PART_TEXT = r"[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*'"
_KEY_PART = re.compile(_KEY_PART_TEXT)
_KEY = rf"(?:{_KEY_PART_TEXT})(?:\s*\.\s*(?:{_KEY_PART_TEXT}))*"


# Characters json.dumps leaves raw that TOML forbids in a string: such output goes to tomlkit.
_NOT_TOML = re.compile("[\x7f\ud800-\udfff]")


def _depth(value: Any) -> int:
    """Nesting depth of a parsed TOML value, iteratively (no recursion limit to hit). A
    container's scalars only count as one level below it: only containers are stacked (a
    50k-rule profile has ~100,000 strings)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if level <= _SAFE_DEPTH and isinstance(item, (dict, list)) and item:
            children = item.values() if isinstance(item, dict) else item
            deepest = max(deepest, level + 1)
            stack += [(child, level + 1) for child in children if isinstance(child, (dict, list))]
    return deepest


def _same(old: Any, new: Any) -> bool:
    """Equal values of the same types (``1 == True`` and ``1 == 1.0`` do not count)."""
    if type(old) is not type(new):
        return False
    if isinstance(new, dict):
        if old.keys() != new.keys():
            return False
        if {*map(type, old.values()), *map(type, new.values())} <= {str}:  # path -> access
            return bool(old == new)
        return all(_same(old[k], v) for k, v in new.items())
    if isinstance(new, list):
        if len(old) != len(new):
            return False
        if {*map(type, old), *map(type, new)} <= {str}:  # the lists of paths: at C speed
            return bool(old == new)
        return all(map(_same, old, new))
    return bool(old == new)


def _in_sync(value: dict[str, Any], compiled: Compiled) -> bool:
    """Whether the parsed config.toml already holds exactly the owned keys: the merge would
    change no value, so it returns the text as it is."""
    if not all(_same(value.get(k), v) for k, v in compiled.top.items()):
        return False
    features = value.get("features", {})
    permissions = value.get("permissions", {})
    if not (isinstance(features, dict) and isinstance(permissions, dict)):
        return False
    if compiled.network_proxy != _same(features.get("network_proxy"), True):
        return False
    if not compiled.network_proxy and "network_proxy" in features:
        return False
    if compiled.profile:
        return _same(permissions.get(compiled.name), compiled.profile)
    return compiled.name not in permissions


_HEADER_LINE = re.compile(r"^[ \t]*\[(.*)$", re.M)
_HEADER = re.compile(r"\[\s*(" + _KEY + r")\s*\]\s*(?:#.*)?\r?")
_DOTTED_KEY = re.compile(r"^[ \t]*(?:[A-Za-z0-9_-]+|\"[^\"\\\\]*\"|'[^']*')[ \t]*\.", re.M)


def _plain_layout(text: str) -> bool:
    """No layout tomlkit rewrites on its own: every table is one run of headers (none comes
    back after another table, no parent after its child), no dotted keys, no arrays of
    tables, no escapes in a quoted header key. Lines that only look like headers or dotted
    keys (inside a multi-line value) count too: that only sends more files to tomlkit."""
    if _DOTTED_KEY.search(text):
        return False
    closed: set[tuple[str, ...]] = set()
    created: set[tuple[str, ...]] = set()
    previous: tuple[str, ...] = ()
    for line in _HEADER_LINE.finditer(text):
        header = _HEADER.fullmatch(line[0].strip(" \t"))
        if header is None or "\\" in header[1]:
            return False
        path = tuple(_KEY_PART.findall(header[1]))
        path = tuple(part[1:-1] if part[0] in "\"'" else part for part in path)
        prefixes = [path[:n] for n in range(1, len(path) + 1)]
        if path in created or any(prefix in closed for prefix in prefixes):
            return False  # defined again, a parent after its child, or out of order
        closed.update(previous[:n] for n in range(1, len(previous) + 1))
        closed.difference_update(prefixes)
        created.update(prefixes)
        previous = path
    return True


def _top_line(key: str, value: Any) -> str | None:
    """``key = value`` as tomlkit writes a plain string or boolean; None for anything else."""
    if isinstance(value, bool):
        return f"{toml_key(key)} = {'true' if value else 'false'}"
    plain = isinstance(value, str) and value.isascii() and value.isprintable()
    if plain and '"' not in value and "\\" not in value:
        return f'{toml_key(key)} = "{value}"'
    return None


def _fresh_text(compiled: Compiled) -> str | None:
    """The merge into an empty config.toml, as text (what tomlkit writes for it); None when a
    value is not one this rendering knows."""
    top = [_top_line(key, value) for key, value in compiled.top.items()]
    if None in top:
        return None
    sections = ["".join(f"{line}\n" for line in top)] if top else []
    if compiled.network_proxy:
        sections.append("[features]\nnetwork_proxy = true\n")
    if compiled.profile:
        sections.append(_profile_text(compiled.profile, compiled.name))
    text = "\n".join(sections)
    return None if _NOT_TOML.search(text) else text


def merged_config(base_text: str | None, compiled: Compiled, base_value: Any = None) -> str:
    """The user's config.toml with only the owned keys and the twsrt profile replaced.

    tomlkit only where the text changes: a config.toml already in sync is returned as it is
    (``base_value``: its ``tomllib`` values, when the caller parsed it already), and the merge
    into no file is rendered as text."""
    if base_text is None:
        fresh = _fresh_text(compiled)
        if fresh is not None:
            return fresh
    else:
        if base_value is None:
            try:
                base_value = tomllib.loads(base_text)
            except tomllib.TOMLDecodeError:
                base_value = {}  # tomlkit decides, and reports
        if base_value and _depth(base_value) <= _SAFE_DEPTH and _plain_layout(base_text):
            if _in_sync(base_value, compiled):
                return base_text
            spliced = _spliced(base_text, compiled, base_value)
            if spliced is not None:
                return spliced
    return _merged_with_tomlkit(base_text, compiled)


# Stands in for the generated profile while tomlkit merges the rest of the file (never a key
# Codex or a user would write); the stub's value differs between the file and the merge, so
# the merge never finds the stubbed file unchanged.
_STUB_KEY = "__twsrt_profile_stub__"


# A line of a profile as twsrt writes it (NAME: the profile's name): a header below it, a
# plain key = value, or blank.
_PROFILE_LINE = (
    r'(?:\[permissions\.NAME(?:\.(?:[A-Za-z0-9_-]+|"[^"\\]*"))*\]'
    r'|(?:[A-Za-z0-9_-]+|"[^"\\]*") = (?:"[^"\\]*"|true|false|-?[0-9]+)|)\r?'
)
_PROFILE_LINES = {PROFILE: re.compile(_PROFILE_LINE.replace("NAME", re.escape(PROFILE)))}


def _profile_line(name: str) -> re.Pattern[str]:
    if name not in _PROFILE_LINES:
        _PROFILE_LINES[name] = re.compile(_PROFILE_LINE.replace("NAME", re.escape(name)))
    return _PROFILE_LINES[name]


def _profile_region(text: str, name: str = PROFILE) -> tuple[int, int, str] | None:
    """Where the ``[permissions.NAME]`` tables are in a file of plain layout (one run of
    headers), and the blank lines that end them; None without them, or when a line in them is
    not one twsrt writes (a comment, a multi-line value)."""
    start = text.find(f"[permissions.{name}]")
    if start == -1 or (start and text[start - 1] != "\n"):
        return None
    end = start
    for line in _HEADER_LINE.finditer(text, start + 1):
        header = line[0]
        if not header.startswith((f"[permissions.{name}]", f"[permissions.{name}.")):
            # plain layout: the run has ended
            end = line.start()
            break
    else:
        end = len(text)
    region = text[start:end]
    lines = region.split("\n")
    profile_line = _profile_line(name)
    if lines[-1] != "" or not all(profile_line.fullmatch(line) for line in lines):
        return None
    body = region.rstrip("\r\n")
    after = region[len(body) :]  # the last line's end, then the blank lines
    return start, end, after[2:] if after.startswith("\r\n") else after[1:]


def _spliced(base_text: str, compiled: Compiled, base_value: dict[str, Any]) -> str | None:
    """The tomlkit merge with the profile spliced in as text: tomlkit merges the file with a
    one-key stub in place of the old and the new profile (so it never parses thousands of
    generated keys), and the new profile's text replaces the stub. None where that cannot be
    shown to give the full merge's bytes."""
    permissions = base_value.get("permissions", {})
    name = compiled.name
    old = permissions.get(name) if isinstance(permissions, dict) else None
    if _STUB_KEY in base_text or (compiled.profile and old == compiled.profile):
        return None  # the merge may find the file unchanged: only tomlkit knows
    region = _profile_region(base_text, name)
    if (region is None) != (old is None):
        return None
    stubbed = base_text
    if region is not None:
        start, end, blank = region
        eol = "\r\n" if base_text.startswith(f"[permissions.{name}]\r\n", start) else "\n"
        stub = f"[permissions.{name}]{eol}{_STUB_KEY} = 0{eol}"
        if base_text.count(f"[permissions.{name}.", start, end):  # whose the blank lines are
            stub += f"{eol}[permissions.{name}.__twsrt_stub_table__]{eol}{_STUB_KEY} = 0{eol}"
        stub += blank
        stubbed = base_text[:start] + stub + base_text[end:]
    profile = {_STUB_KEY: 1} if compiled.profile else {}
    merged = _merged_with_tomlkit(stubbed, replace(compiled, profile=profile))
    if not compiled.profile:
        return None if _STUB_KEY in merged else merged
    stub_text = _profile_text(profile, name)
    if merged.count(_STUB_KEY) != 1 or merged.count(stub_text) != 1:
        return None
    return merged.replace(stub_text, _profile_text(compiled.profile, name))


def _merged_with_tomlkit(base_text: str | None, compiled: Compiled) -> str:
    import tomlkit

    doc = tomlkit.parse(base_text or "")
    for key, value in compiled.top.items():
        doc[key] = value
    features = doc.get("features")
    if compiled.network_proxy:
        if features is None:
            features = tomlkit.table()
            doc["features"] = features
        features["network_proxy"] = True
    elif features is not None and "network_proxy" in features:
        del features["network_proxy"]
        if not features:
            del doc["features"]  # twsrt made it; an empty table would stay behind
    permissions = doc.get("permissions")
    if compiled.profile:
        if permissions is None:
            permissions = tomlkit.table(is_super_table=True)
            doc["permissions"] = permissions
        permissions[compiled.name] = _table(compiled.profile, compiled.name)
    elif permissions is not None and compiled.name in permissions:
        del permissions[compiled.name]  # danger-full-access: no profile that would look enforced
        if not permissions:
            del doc["permissions"]
    text = tomlkit.dumps(doc)
    if text == base_text:  # unchanged: the same values without parsing both again
        return text
    if base_text is not None and tomlkit.parse(text) == tomlkit.parse(base_text):
        return base_text
    return text


def _merged_or_refused(
    disk: str | None, compiled: Compiled, display: str, disk_value: Any = None
) -> str:
    """``merged_config``, with tomlkit's own refusals (it stops at 100 nesting levels, where
    tomllib does not) as a located error instead of a traceback."""
    try:
        return merged_config(disk, compiled, disk_value)
    except Exception as exc:
        # imported only here: a file in sync never loads tomlkit
        from tomlkit.exceptions import ParseError

        if not isinstance(exc, ParseError):
            raise
        message = str(exc).split(" at line ")[0]
        where = Location(display, exc.line, exc.col)
        raise fail(TARGET_UNUSABLE, f"invalid TOML: {message}", where) from None


def preview_toml(compiled: Compiled) -> str:
    return merged_config(None, compiled)


# What twsrt owns in config.toml, for drift and reports (diffs.py): the user's model providers,
# MCP servers (bearer tokens, http_headers, env) and every other key are elided.
CONFIG = Members(
    {
        **dict.fromkeys(OWNED_TOP, True),
        "features": {"network_proxy": True},
        "permissions": {PROFILE: True},
    },
    kind="toml",
)


CONFIG_SPEC = CONFIG.spec


# The rules file is generated whole; its items are the rules (``_rules_view``).
RULES = Members({"rules": True}, kind="toml")


def managed_view(document: dict[str, Any]) -> dict[str, Any]:
    """Only what twsrt owns in a parsed config.toml (safe to print: no user secrets)."""
    return project(document, CONFIG_SPEC)


_RULE_BLOCK = re.compile(r"prefix_rule\((.*?)\n\)", re.S)


_PATTERN = re.compile(r"pattern\s*=\s*(\[.*?\])\s*,", re.S)


_DECISION = re.compile(r'decision\s*=\s*"(\w+)"')


def _rule_items(text: str) -> list[DriftItem]:
    return RULES.items(_rules_view(text))


def _rules_view(text: str) -> dict[str, Any]:
    """Each prefix rule as ``pattern -> decision``, so drift names the rule that changed."""
    rules: dict[str, Any] = {}
    for index, block in enumerate(_RULE_BLOCK.findall(text)):
        pattern = _PATTERN.search(block)
        decision = _DECISION.search(block)
        key = " ".join(pattern[1].split()) if pattern else f"#{index}"
        rules[key] = decision[1] if decision else " ".join(block.split())
    return {"rules": rules}
