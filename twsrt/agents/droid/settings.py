"""The members twsrt owns in a Factory Droid settings file and their merge into the file's other
keys: the whole ``sandbox`` object and the top-level ``commandBlocklist``, ``commandDenylist``
and ``commandAllowlist``."""

from __future__ import annotations

from typing import Any

from twsrt.agents.droid.declaration import LIST_KEYS, SANDBOX_KEY
from twsrt.agents.droid.translate import Compiled
from twsrt.agents.targetfiles import JsonSettings
from twsrt.agents.targets import Members


def merge(existing: dict[str, Any], compiled: Compiled) -> dict[str, Any]:
    """New values of the members twsrt owns (pure): the sandbox replaced whole (a key of the
    user's there could loosen it), each list replaced; every other key stays."""
    del existing  # nothing of the owned members is kept
    updates: dict[str, Any] = {SANDBOX_KEY: compiled.sandbox}
    for key, values in compiled.lists().items():
        updates[key] = list(values)
    return updates


SETTINGS = Members(
    {SANDBOX_KEY: True, **dict.fromkeys(LIST_KEYS, True)},
    rule_lists=LIST_KEYS,
)

SHAPES: dict[str, type] = {
    f"/{SANDBOX_KEY}": dict,
    **{f"/{key}": list for key in LIST_KEYS},
}

SETTINGS_FILE = JsonSettings(merge, SHAPES, SETTINGS)
