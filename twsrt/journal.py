"""The journal of one ``generate -w``: its renames, recorded before the first one, so that a run
killed between two renames (``kill -9``, a power cut) is finished by the next run before that
run reads a target (issue 26 item 9: the set of targets is all old or all new, never a mix).

``writes.apply`` stages every temp file (written and fsynced), then records the journal (a
fresh file, fsynced, renamed into place, its directory fsynced), then renames, then removes
it. The journal lives beside the config (``.twsrt-journal.<pid>.<token>.json``, never in
``.git/``); each run has its own, so concurrent runs never overwrite one another's.

``recover`` (the next ``generate -w``, first thing after its config is found) takes each
journal whose process is gone and rolls it forward: every temp file still there is renamed
over its target, so the set ends wholly new. When a target it would replace was changed since
(its content is no longer the one kept aside), the run is rolled back instead: every renamed
target gets its old file back, every new one is removed, so the set ends wholly old and the
changed file is kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from twsrt import records

# .twsrt.<pid>.<8 hex>.<new|old>.<start of the target's name>: writes' temp and backup files
_OWN_TEMP = re.compile(r"\.twsrt\.(\d+)\.[0-9a-f]{8}\.(?:new|old)\.")
PATTERN = re.compile(r"\.twsrt-journal\.(\d+)\.[0-9a-f]{8}\.json(\.new)?\Z")
VERSION = 1


@records.record
class OnDisk:
    """What a path held when it was read: ``absent``, a ``file`` (its text), a ``link`` (its
    value) or ``other`` (a directory, a FIFO, ...)."""

    kind: str
    value: str | None = None


def on_disk(path: Path) -> OnDisk:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return OnDisk("absent")
    except OSError:
        return OnDisk("other")
    if stat.S_ISLNK(info.st_mode):
        return OnDisk("link", os.readlink(path))
    if not stat.S_ISREG(info.st_mode):
        return OnDisk("other")
    try:
        # surrogateescape: any byte sequence compares, so a changed file is always noticed
        return OnDisk("file", path.read_bytes().decode("utf-8", "surrogateescape"))
    except OSError:
        return OnDisk("other")


def record(directory: Path, renames: list[tuple[Path, Path, Path | None, OnDisk]]) -> Path:
    """Record the planned renames (temp, target, kept-aside old file or None, what the target
    held) durably in ``directory``; returns the journal's path."""
    name = f".twsrt-journal.{os.getpid()}.{os.urandom(4).hex()}.json"
    path = directory / name
    data = {
        "version": VERSION,
        "renames": [
            {
                "temp": str(temp),
                "target": str(target),
                "backup": str(old) if old else None,
                "before": _digest(before),
            }
            for temp, target, old, before in renames
        ],
    }
    temp = directory / (name + ".new")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o600)
    try:
        os.write(fd, json.dumps(data, indent=1).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)
    fsync_dir(directory)
    return path


def remove(path: Path | None) -> None:
    """The transaction is over (done, or rolled back in the process): forget it."""
    if path is None:
        return
    unlink_quietly(path)
    fsync_dir(path.parent)


def recover(directory: Path) -> list[str]:
    """Finish every journal a killed run left in ``directory``; returns one line per journal
    saying what was done (empty: nothing to recover)."""
    done = []
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    for name in entries:
        match = PATTERN.match(name)
        if match is None or _alive(int(match[1])):
            continue  # not a journal, or a run still in progress
        path = directory / name
        if match[2]:
            unlink_quietly(str(path))  # killed while recording: no rename was made
            continue
        renames = _load(path)
        if renames is None:
            remove(path)  # unreadable: recorded only after every temp file, so nothing renamed
            continue
        if any(_changed_since(entry) for entry in renames):
            _roll_back(renames)
            done.append(f"rolled back {len(renames)} files of an interrupted `generate -w`")
        else:
            moved = _roll_forward(renames)
            done.append(f"finished an interrupted `generate -w` ({moved} of {len(renames)} files)")
        for entry in renames:
            unlink_quietly(entry["backup"])
        for parent in {Path(entry["target"]).parent for entry in renames}:
            fsync_dir(parent)
        remove(path)
    return done


def _load(path: Path) -> list[dict[str, Any]] | None:
    try:
        data = json.loads(path.read_bytes())
        renames = data["renames"]
        if data.get("version") != VERSION or not isinstance(renames, list):
            return None
        for entry in renames:
            if not all(isinstance(entry.get(k), str) for k in ("temp", "target")):
                return None
        return renames
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _digest(held: OnDisk) -> str | None:
    """What a path held, as the journal compares it: a file's SHA-256, a link's value."""
    if held.kind == "file":
        data = (held.value or "").encode("utf-8", "surrogateescape")
        return "file:" + hashlib.sha256(data).hexdigest()
    if held.kind == "link":
        return "link:" + (held.value or "")
    return None if held.kind == "absent" else "other"


def _changed_since(entry: dict[str, Any]) -> bool:
    """Was a target still to be replaced (its temp file is there) changed after the crash? The
    old file kept aside is a hard link, which an edit in place changes too, so the journal
    compares with the digest it recorded."""
    if not os.path.lexists(entry["temp"]):
        return False  # already renamed: the target is twsrt's new file
    return _digest(on_disk(Path(entry["target"]))) != entry.get("before")


def _roll_forward(renames: list[dict[str, Any]]) -> int:
    moved = 0
    for entry in renames:
        if os.path.lexists(entry["temp"]):
            os.replace(entry["temp"], entry["target"])
            moved += 1
    return moved


def _roll_back(renames: list[dict[str, Any]]) -> None:
    for entry in reversed(renames):
        temp, target, backup = entry["temp"], entry["target"], entry["backup"]
        if os.path.lexists(temp):
            unlink_quietly(temp)  # never renamed: the target is untouched (or the user's)
        elif backup is not None and os.path.lexists(backup):
            os.replace(backup, target)
        elif backup is None:
            unlink_quietly(target)  # twsrt created it


def unlink_quietly(path: str | Path | None) -> None:
    """Remove ``path`` if there is one; a file already gone or not removable is left as is."""
    if path is not None:
        with contextlib.suppress(OSError):
            os.unlink(path)


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale(directories: set[Path]) -> list[Path]:
    """Remove twsrt's own temp and backup files that a killed run left in these directories
    (only names of twsrt's pattern whose process is gone); return what was removed."""
    removed = []
    for directory in sorted(directories):
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            match = _OWN_TEMP.match(entry.name)
            if match is None or entry.is_dir(follow_symlinks=False):
                continue
            if _alive(int(match[1])):
                continue  # another run in progress
            try:
                os.unlink(entry.path)
            except OSError:
                continue
            removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # left by an earlier apply of this process: applies never overlap
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
