"""Codex: directories its sandbox needs on this machine before it can start (TWS618).

Observed with Codex 0.171.0 (tests/real/test_codex_missing_parent.py): a read-only or denied
entry that does not exist when the sandbox starts is masked at its first missing component. Two
such entries below one missing directory inside a write root make every start fail ("bwrap:
Can't bind mount ... Unable to mount source on destination"), whatever the entries are (two
``"read"``, two ``"deny"``, a ``"read"`` directory and a ``"deny"`` below it); outside every
write root they are not mounted and nothing fails. Every agent's user layer is protected, so
``~/.config/opencode`` and ``~/.config/kilo`` are two such entries in every profile: in a home
without ``~/.config``, a Codex that can write the home fails closed. Whether the directory
exists is a fact of this machine, so it is a finding, never a change to the generated file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from twsrt.agents.codex.rules import CODEX_MISSING_PARENT
from twsrt.effective import Layer, report
from twsrt.findings import Finding, quoted
from twsrt.locations import pointer_join
from twsrt.policy import is_glob

NAME = "codex"
HELD = ("read", "deny")
RELATIVE = ":workspace_roots"


def missing_parent_findings(main: Layer, profile: str, home: Path) -> list[Finding]:
    """TWS618 at the second of two held entries of ``profile`` in ``main`` whose first missing
    directory on this host is the same inside a write root: two absolute entries below it, in
    an absolute write entry or below a launch directory, or an absolute entry and a
    launch-relative one (``~/.pi/agent`` and ``.pi``) for a Codex started beside it."""
    table = _filesystem(main.value, profile)
    if table is None:
        return []
    inner = table.get(RELATIVE)
    relative = inner if isinstance(inner, dict) else {}
    launched = "write" in relative.values()  # launch-relative write roots
    beside = _relative_held(relative)
    writes, held = _absolute(table, home)
    base = pointer_join(pointer_join("/permissions", profile), "filesystem")
    out: list[Finding] = []
    for missing, entries in held.items():
        parent = os.path.dirname(missing)
        shown, shown_parent = _shown(missing, home), _shown(parent, home)
        pointers = {key: pointer_join(base, key) for key in entries}
        root = _write_root(missing, writes)
        if len(set(entries.values())) >= 2 and (root is not None or launched):
            where = (
                "Codex fails to start its sandbox wherever it starts"
                if root is not None
                else f"a Codex started in '{quoted(shown_parent)}' or above it fails to start "
                "its sandbox"
            )
        elif launched and os.path.basename(missing) in beside:
            where = f"a Codex started in '{quoted(shown_parent)}' fails to start its sandbox"
            for key in beside[os.path.basename(missing)]:
                path = os.path.normpath(os.path.join(parent, key))
                if path not in entries.values():
                    entries = {**entries, key: path}
                    pointers[key] = pointer_join(pointer_join(base, RELATIVE), key)
            if len(set(entries.values())) < 2:
                continue
        else:
            continue
        first, second = list(entries)[:2]
        out.append(
            report(
                CODEX_MISSING_PARENT,
                f"'{quoted(shown)}' does not exist on this host and holds the protected "
                f"entries '{quoted(first)}' and '{quoted(second)}': {where}, so it runs no "
                "command (fails closed); create the directory",
                main,
                pointers[second],
                NAME,
                [main.at(pointers[first])],
            )
        )
    return out


def _shown(path: str, home: Path) -> str:
    """``path`` as the profile spells it: below this machine's home with ``~``, so a report
    names no host's home directory."""
    root = str(home).rstrip("/")
    if path == root:
        return "~"
    return "~" + path[len(root) :] if path.startswith(root + "/") else path


def _relative_held(relative: dict[str, Any]) -> dict[str, list[str]]:
    """The launch-relative held entries by their first component."""
    beside: dict[str, list[str]] = {}
    for key, value in relative.items():
        if value in HELD and not key.startswith(("/", "~")) and not is_glob(key):
            beside.setdefault(os.path.normpath(key).split("/")[0], []).append(key)
    return beside


def _absolute(table: dict[str, Any], home: Path) -> tuple[set[str], dict[str, dict[str, str]]]:
    """The absolute write entries, and the held ones by their first missing directory
    (key -> path, ``~`` with this machine's home)."""
    writes: set[str] = set()
    held: dict[str, dict[str, str]] = {}
    seen: dict[str, bool] = {}  # path -> exists: entries share their ancestors
    for key, value in table.items():
        path = _expanded(key, home)
        if path is None or not isinstance(value, str):
            continue
        if value == "write":
            writes.add(path)
        elif value in HELD and (missing := _first_missing(path, seen)) is not None:
            held.setdefault(missing, {})[key] = path
    return writes, held


def _filesystem(doc: Any, profile: str) -> dict[str, Any] | None:
    permissions = doc.get("permissions") if isinstance(doc, dict) else None
    entry = permissions.get(profile) if isinstance(permissions, dict) else None
    table = entry.get("filesystem") if isinstance(entry, dict) else None
    return table if isinstance(table, dict) else None


def _expanded(key: str, home: Path) -> str | None:
    """An absolute entry, ``~`` with this machine's home; None for a glob or a special key."""
    if key.startswith("~/"):
        key = str(home).rstrip("/") + key[1:]
    if not key.startswith("/") or is_glob(key):
        return None
    return os.path.normpath(key)


def _first_missing(path: str, seen: dict[str, bool]) -> str | None:
    """The shortest prefix of ``path`` that does not exist here (None when all of it does, or
    when one could not be looked at: no claim either way)."""
    current = "/"
    for part in path.strip("/").split("/"):
        current = os.path.join(current, part)
        if current not in seen:
            try:
                os.lstat(current)
                seen[current] = True
            except FileNotFoundError:
                seen[current] = False
            except (OSError, ValueError):
                return None
        if not seen[current]:
            return current
    return None


def _write_root(path: str, writes: set[str]) -> str | None:
    """The write entry strictly above ``path`` (a missing write root itself is not mounted)."""
    parent = os.path.dirname(path)
    while True:
        if parent in writes:
            return parent
        if parent == "/":
            return None
        parent = os.path.dirname(parent)
