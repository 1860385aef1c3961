"""Codex's files: the owned keys merged into the user's config.toml with tomlkit, and the
members drift compares and reports show (config and rules)."""

from __future__ import annotations

import json
import re
from typing import Any

from twsrt.agents.base import DriftItem
from twsrt.agents.codex.declaration import LEGACY_KEYS, NAME, OWNED_TOP, PROFILE, Compiled
from twsrt.agents.targets import Members, project
from twsrt.diffs import toml_key
from twsrt.documents import Documents
from twsrt.findings import Finding, fail, finding
from twsrt.locations import Location
from twsrt.rules import CODEX_LEGACY_SANDBOX, TARGET_UNUSABLE

# top-level keys of config.toml that twsrt reads or merges into as tables
TABLE_KEYS = ("features", "permissions", "profiles")


def _legacy_locations(text: str, display: str, documents: Documents | None = None) -> list[Finding]:
    from twsrt.tomlpos import TomlSyntaxError

    try:
        parsed = (documents or Documents()).toml(text)
    except TomlSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise fail(TARGET_UNUSABLE, f"invalid TOML: {exc.message}", location) from None
    for key in TABLE_KEYS:  # twsrt merges into these: any other type cannot be merged
        if key in parsed.value and not isinstance(parsed.value[key], dict):
            line, col = parsed.position(f"/{key}")
            where = Location(display, line, col, f"/{key}")
            raise fail(TARGET_UNUSABLE, f"'{key}' must be a table", where)
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
                line, col = parsed.position(pointer, key=True)
                found.append(
                    finding(
                        CODEX_LEGACY_SANDBOX,
                        f"legacy '{key}' makes Codex ignore default_permissions and the twsrt "
                        "profile; remove it",
                        Location(display, line, col, pointer),
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
        if not isinstance(value, dict):
            rendered = json.dumps(value, ensure_ascii=False)  # str, bool, int: JSON == TOML
            lines.append(f"{toml_key(key)} = {rendered}")
    for key, value in values.items():
        if isinstance(value, dict):
            lines += ["", *_toml_text(value, f"{header}.{toml_key(key)}")]
    return lines


def _table(values: dict[str, Any]) -> Any:
    import tomlkit

    text = "\n".join(_toml_text(values, f"permissions.{PROFILE}")) + "\n"
    return tomlkit.parse(text)["permissions"][PROFILE]


def merged_config(base_text: str | None, compiled: Compiled) -> str:
    """The user's config.toml with only the owned keys and the twsrt profile replaced."""
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
        permissions[PROFILE] = _table(compiled.profile)
    elif permissions is not None and PROFILE in permissions:
        del permissions[PROFILE]  # danger-full-access: no profile that would look enforced
        if not permissions:
            del doc["permissions"]
    text = tomlkit.dumps(doc)
    if base_text is not None and tomlkit.parse(text) == tomlkit.parse(base_text):
        return base_text
    return text


def _merged_or_refused(disk: str | None, compiled: Compiled, display: str) -> str:
    """``merged_config``, with tomlkit's own refusals (it stops at 100 nesting levels, where
    tomllib does not) as a located error instead of a traceback."""
    from tomlkit.exceptions import ParseError

    try:
        return merged_config(disk, compiled)
    except ParseError as exc:
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
