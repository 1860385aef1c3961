"""The members twsrt owns in pi's sandbox extension file and their merge into the file's other
keys (which the extension ignores; they are kept byte for byte)."""

from __future__ import annotations

from typing import Any

from twsrt.agents.pi.declaration import FILESYSTEM, IGNORE_VIOLATIONS, NETWORK, OWNED
from twsrt.agents.pi.translate import Compiled
from twsrt.agents.targetfiles import JsonSettings
from twsrt.agents.targets import Members


def merge(existing: dict[str, Any], compiled: Compiled) -> dict[str, Any]:
    """New values of the members twsrt owns (pure): each one whole, as the extension hands
    ``network`` and ``filesystem`` to srt as they are."""
    return {key: compiled.document[key] for key in OWNED}


SETTINGS = Members(dict.fromkeys(OWNED, True))

SHAPES: dict[str, type] = {f"/{key}": dict for key in (NETWORK, FILESYSTEM, IGNORE_VIOLATIONS)}

SETTINGS_FILE = JsonSettings(merge, SHAPES, SETTINGS)
