"""The members twsrt owns in a Kilo config file and their merge into the user's file (JSONC,
comments outside the owned members kept): a missing ``$schema`` (Kilo writes its own into a
file without one, row 29), ``permission`` with the user's other keys first and twsrt's after
them (the last matching rule wins), and the top-level ``sandbox`` whole. ``permission.bash`` is
always written, so Kilo's first start never migrates the file to ``"bash": "allow"`` (row
28)."""

from __future__ import annotations

from typing import Any

from twsrt.agents.base import DriftItem
from twsrt.agents.kilo.declaration import PERMISSION_KEY, SANDBOX_KEY, SCHEMA_KEY, SCHEMA_URL
from twsrt.agents.kilo.translate import KiloCompiled
from twsrt.agents.settingsmerge import check_json_shape, same_json
from twsrt.agents.targets import Members
from twsrt.diffs import Spec
from twsrt.findings import fail
from twsrt.locations import Location
from twsrt.rules import TARGET_UNUSABLE

SHAPES: dict[str, type] = {"/permission": dict, "/sandbox": dict}


def merge(existing: dict[str, Any], compiled: KiloCompiled, sandbox: bool = True) -> dict[str, Any]:
    """New values of the owned members (pure); ``sandbox`` False: a project file, which
    carries the permission rules only (TWS672)."""
    current = existing.get(PERMISSION_KEY)
    user = current if isinstance(current, dict) else {}
    owned = compiled.rules.permission
    permission = {k: v for k, v in user.items() if k not in owned}
    permission.update(owned)
    updates: dict[str, Any] = {}
    if SCHEMA_KEY not in existing:
        updates[SCHEMA_KEY] = SCHEMA_URL
    updates[PERMISSION_KEY] = permission
    if sandbox:
        updates[SANDBOX_KEY] = compiled.sandbox
    return updates


def merged_text(
    base_text: str | None, display: str, compiled: KiloCompiled, sandbox: bool = True
) -> str:
    from twsrt.jsonedit import render_new, replace_members
    from twsrt.jsonpos import JsonSyntaxError, parse_jsonc
    from twsrt.writes import keep_line_endings

    if base_text is None or not base_text.strip():
        return render_new(merge({}, compiled, sandbox))
    try:
        parsed = parse_jsonc(base_text)
    except JsonSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        message = f"invalid JSONC in config file: {exc.message}"
        raise fail(TARGET_UNUSABLE, message, location) from None
    check_json_shape(parsed, display, SHAPES)
    updates = merge(parsed.value, compiled, sandbox)
    if all(same_json(parsed.value.get(k), v) for k, v in updates.items()):
        return base_text
    return keep_line_endings(base_text, replace_members(base_text, updates, parse_jsonc))


_OWNED_PERMISSION: Spec = dict.fromkeys(
    ("bash", "read", "edit", "external_directory", "webfetch", "websearch"), True
)
MEMBERS = Members({SCHEMA_KEY: True, PERMISSION_KEY: _OWNED_PERMISSION, SANDBOX_KEY: True})
# a project file's: no sandbox (the user's file carries it, TWS672)
PROJECT_MEMBERS = Members({SCHEMA_KEY: True, PERMISSION_KEY: _OWNED_PERMISSION})


def drift_items(text: str, members: Members = MEMBERS) -> list[DriftItem]:
    """The managed members of a file's text (JSONC) as drift items, one per rule of each
    ``permission`` object in the order written (the last matching rule wins, so a reordered
    object is drift, not the same rules); none when it does not parse."""
    import json

    from twsrt.jsonpos import JsonSyntaxError, parse_jsonc

    try:
        value = parse_jsonc(text).value
    except JsonSyntaxError:
        return []
    permission = value.get("permission") if isinstance(value, dict) else None
    items: list[DriftItem] = []
    for item in members.items(value):
        tool = item.key.removeprefix("permission.")
        rules = permission.get(tool) if isinstance(permission, dict) else None
        if item.key == tool or not isinstance(rules, dict):
            items.append(item)
            continue
        dumped = (json.dumps({k: v}, ensure_ascii=False)[1:-1] for k, v in rules.items())
        items += [DriftItem(item.key, rule) for rule in dumped]
    return items


def project_drift_items(text: str) -> list[DriftItem]:
    """``drift_items`` of a project file (no sandbox member)."""
    return drift_items(text, PROJECT_MEMBERS)
