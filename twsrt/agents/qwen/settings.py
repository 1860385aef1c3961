"""The members twsrt owns in a Qwen Code settings file (user, project or system: the same
layout) and their merge into the file's other keys; ``agent``, ``project`` and ``managed``
each write one kind of file with it."""

from __future__ import annotations

from typing import Any

from twsrt.agents.qwen.declaration import (
    PERMISSION_KEYS,
    SANDBOX_KEY,
    SETTINGS_VERSION,
    VERSION_KEY,
)
from twsrt.agents.qwen.translate import Compiled
from twsrt.agents.settingsmerge import copy_for_merge
from twsrt.agents.targetfiles import JsonSettings
from twsrt.agents.targets import Members


def merge(existing: dict[str, Any], compiled: Compiled) -> dict[str, Any]:
    """New values of the members twsrt owns (pure); the objects' other keys are kept. A
    compile without a sandbox removes ``tools.executionSandbox``."""
    current = existing.get("permissions")
    permissions = copy_for_merge(current if isinstance(current, dict) else {}, PERMISSION_KEYS)
    for key, rules in compiled.lists().items():
        permissions[key] = list(rules)
    current = existing.get("tools")
    tools = copy_for_merge(current if isinstance(current, dict) else {}, (SANDBOX_KEY,))
    if compiled.sandbox is None:
        tools.pop(SANDBOX_KEY, None)
    else:
        tools[SANDBOX_KEY] = dict(compiled.sandbox)
    updates: dict[str, Any] = {VERSION_KEY: SETTINGS_VERSION, "permissions": permissions}
    if tools or "tools" in existing:
        updates["tools"] = tools
    return updates


SETTINGS = Members(
    {
        VERSION_KEY: True,
        "permissions": dict.fromkeys(PERMISSION_KEYS, True),
        "tools": {SANDBOX_KEY: True},
    },
    rule_lists=tuple(f"permissions.{key}" for key in PERMISSION_KEYS),
)

SHAPES: dict[str, type] = {
    "/permissions": dict,
    **{f"/permissions/{key}": list for key in PERMISSION_KEYS},
    "/tools": dict,
    f"/tools/{SANDBOX_KEY}": dict,
}

SETTINGS_FILE = JsonSettings(merge, SHAPES, SETTINGS)
