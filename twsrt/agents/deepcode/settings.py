"""DeepCode's settings file: the managed members merged into the user's file, and the members
drift compares and reports show."""

from __future__ import annotations

from typing import Any

from twsrt.agents.deepcode.declaration import (
    FS_KEYS,
    LEGACY_KEYS,
    NET_KEYS,
    PERMISSION_KEYS,
    Managed,
)
from twsrt.agents.settingsmerge import copy_for_merge, merge_sections
from twsrt.agents.targetfiles import JsonSettings, settings_shapes
from twsrt.agents.targets import Members


def merge(existing: dict[str, Any], managed: Managed) -> dict[str, Any]:
    """New values of the top-level ``permissions`` and ``sandbox`` members (pure)."""
    current_permissions = existing.get("permissions")
    # deny and ask are set below: only the user's other members are copied
    permissions = copy_for_merge(current_permissions or {}, PERMISSION_KEYS)
    permissions["deny"] = list(managed.deny)
    permissions["ask"] = list(managed.ask)
    generated = managed.sandbox()
    current = existing.get("sandbox")
    if current is None:
        return {"permissions": permissions, "sandbox": generated}
    sandbox = copy_for_merge(current, rebuilt=SECTION_NAMES)
    for key in LEGACY_KEYS:
        sandbox.pop(key, None)
    if "mode" in sandbox:
        sandbox["mode"] = managed.mode
    else:
        sandbox = {"mode": managed.mode, **sandbox}
    merge_sections(sandbox, generated, SECTIONS)
    return {"permissions": permissions, "sandbox": sandbox}


# the sandbox sub-objects whose listed keys twsrt sets or removes (merge_sections rebuilds them)
SECTIONS = (("filesystem", FS_KEYS), ("network", NET_KEYS))
SECTION_NAMES = tuple(name for name, _keys in SECTIONS)


# Managed members whose type must be right before twsrt can merge into the file.
SETTINGS_SHAPES = settings_shapes(PERMISSION_KEYS, SECTION_NAMES)


# The members twsrt owns, for drift and for reports (diffs.py); hooks, MCP servers, env and
# every other key are the user's and elided. An empty list is an item of its own: ``[]`` and a
# missing key mean different things to DeepCode (no network against every host; no ask rules
# against the user layer's).
SETTINGS = Members(
    {
        "permissions": dict.fromkeys(PERMISSION_KEYS, True),
        "sandbox": {
            **dict.fromkeys(("mode", *LEGACY_KEYS), True),
            "filesystem": dict.fromkeys(FS_KEYS, True),
            "network": dict.fromkeys(NET_KEYS, True),
        },
    },
    rule_lists=tuple(f"permissions.{key}" for key in PERMISSION_KEYS),
    empty_list=True,
)


SETTINGS_SPEC = SETTINGS.spec


SETTINGS_FILE = JsonSettings(merge, SETTINGS_SHAPES, SETTINGS)
merged_text, drift = SETTINGS_FILE.merged_text, SETTINGS_FILE.drift
