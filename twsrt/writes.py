"""Planned file changes, applied all-or-nothing with atomic renames."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from twsrt.findings import fail
from twsrt.locations import Location


@dataclass(frozen=True)
class FileWrite:
    """Replace (or create) ``path`` with ``text``; ``old`` is the current text or None."""

    path: Path
    display: str
    text: str
    old: str | None
    new_mode: int | None = None  # mode for a file that does not exist yet (default: umask)

    @property
    def changed(self) -> bool:
        return self.old != self.text


@dataclass(frozen=True)
class SymlinkWrite:
    """Point ``link`` at ``target`` (a name relative to the link's directory)."""

    link: Path
    display: str
    target: str

    @property
    def changed(self) -> bool:
        return not (self.link.is_symlink() and os.readlink(self.link) == self.target)


Change = FileWrite | SymlinkWrite


def describe(change: Change) -> str:
    if isinstance(change, SymlinkWrite):
        return f"symlink {change.display} -> {change.target}"
    verb = "create" if change.old is None else "update"
    return f"{verb} {change.display}"


def preflight(changes: list[Change]) -> None:
    """Refuse the whole run before touching anything if any single change could not be made."""
    for change in changes:
        path = change.link if isinstance(change, SymlinkWrite) else change.path
        directory = _existing_ancestor(path.parent)
        if not directory.is_dir():
            raise fail(
                "target-unusable", "parent path is not a directory", Location(change.display)
            )
        if not os.access(directory, os.W_OK | os.X_OK):
            raise fail(
                "target-unusable",
                f"directory {directory} is not writable",
                Location(change.display),
            )


def _existing_ancestor(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def apply(changes: list[Change]) -> list[Change]:
    """Write every changed file, then swap symlinks; return what actually changed."""
    pending = [c for c in changes if c.changed]
    preflight(pending)
    for change in pending:
        if isinstance(change, FileWrite):
            atomic_write(change.path, change.text, change.new_mode)
    for change in pending:
        if isinstance(change, SymlinkWrite):
            atomic_symlink(change.link, change.target)
    return pending


def atomic_write(path: Path, text: str, new_mode: int | None = None) -> None:
    """Write via a temp file in the same directory, fsync, keep the mode, rename into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = new_mode if new_mode is not None else 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_symlink(link: Path, target: str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    tmp = link.parent / f".{link.name}.{os.getpid()}.tmp"
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp)
    try:
        os.replace(tmp, link)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(link.parent)


def _fsync_dir(directory: Path) -> None:
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
