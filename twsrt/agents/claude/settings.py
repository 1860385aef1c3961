"""Claude Code's settings file: the managed members merged into the user's file, and the
members drift compares and reports show."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from twsrt.agents.claude.declaration import (
    FILESYSTEM_KEYS,
    NETWORK_KEYS,
    TOP_KEYS,
    WEBFETCH_PREFIX,
    Managed,
)
from twsrt.agents.settingsmerge import copy_for_merge, merge_sections
from twsrt.agents.targetfiles import JsonSettings, settings_shapes
from twsrt.agents.targets import Members
from twsrt.diffs import Spec


def merge(existing: dict[str, Any], managed: Managed) -> dict[str, Any]:
    """New values of the top-level ``permissions`` and ``sandbox`` members (pure)."""
    current = existing.get("permissions") or {}
    # deny, ask and allow are set or removed below, so only the user's other members are copied
    permissions = copy_for_merge(current, PERMISSION_KEYS)
    permissions["deny"] = list(managed.deny)
    if managed.ask is None:
        permissions.pop("ask", None)
    else:
        permissions["ask"] = list(managed.ask)
    kept = [
        rule if isinstance(rule, str) else deepcopy(rule)
        for rule in (current.get("allow") or [])
        if not _is_webfetch(rule)
    ]
    # the managed rules all start with WEBFETCH_PREFIX, so none of them is among the kept
    allow = kept + managed.webfetch_allow
    if allow or "allow" in permissions:
        permissions["allow"] = allow
    generated = managed.sandbox
    # a new sandbox section takes the generated key order; an existing one keeps its own
    if existing.get("sandbox") is not None:
        sandbox = copy_for_merge(existing["sandbox"], rebuilt=SECTION_NAMES)
    else:
        sandbox = deepcopy(generated)
    for key in (*TOP_KEYS, *managed.sandbox_keys):
        if key in generated:
            sandbox[key] = deepcopy(generated[key])
        elif key in TOP_KEYS or key in managed.dropped_keys:
            sandbox.pop(key, None)
    merge_sections(sandbox, generated, SECTIONS)
    return {"permissions": permissions, "sandbox": sandbox}


# the permission lists twsrt sets (allow: its WebFetch rules after the user's other rules)
PERMISSION_KEYS = ("deny", "ask", "allow")


# the sandbox sub-objects whose listed keys twsrt sets or removes (merge_sections rebuilds them)
SECTIONS = (("network", NETWORK_KEYS), ("filesystem", FILESYSTEM_KEYS))
SECTION_NAMES = tuple(name for name, _keys in SECTIONS)


# Managed members whose type must be right before twsrt can merge into the file.
SETTINGS_SHAPES = settings_shapes(("allow", "deny", "ask"), SECTION_NAMES)


def managed_spec(sandbox_keys: tuple[str, ...]) -> Spec:
    """The members twsrt owns in a settings file (drift items and the report view derive from
    it): everything else is the user's (``env``, ``apiKeyHelper``, hooks, MCP servers, their
    own allow rules)."""
    return {
        "permissions": {"deny": True, "ask": True, "allow": _is_webfetch},
        "sandbox": {
            **dict.fromkeys((*TOP_KEYS, *sandbox_keys), True),
            "network": dict.fromkeys(NETWORK_KEYS, True),
            "filesystem": dict.fromkeys(FILESYSTEM_KEYS, True),
        },
    }


def _is_webfetch(rule: Any) -> bool:
    return isinstance(rule, str) and rule.startswith(WEBFETCH_PREFIX)


def settings_members(sandbox_keys: tuple[str, ...]) -> Members:
    """The managed members of a settings file, for drift and reports: the permission rules are
    items as written."""
    rules = ("permissions.deny", "permissions.ask", "permissions.allow")
    return Members(managed_spec(sandbox_keys), rule_lists=rules)


# the settings file of a user or project run (its members vary with the sandbox keys of the run)
SETTINGS_FILE = JsonSettings(merge, SETTINGS_SHAPES, settings_members(()))
merged_text = SETTINGS_FILE.merged_text
