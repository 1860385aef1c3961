"""The one reader for every user file twsrt reads (config, sources, targets, config layers).

Only regular files are read: a FIFO would block forever and ``/dev/zero`` never ends, so the
file type is checked before opening and again on the open descriptor, and at most
``MAX_BYTES`` are read. In repo mode (``confine``: the real repository directory, which the
caller passes from ``Config.confine_root``) a file whose real path, after every symlink
and ``..``, lies outside the repository is never opened: a config in a pull request must not be
able to pull ``/proc/self/environ`` or ``~/.aws/credentials`` into a report.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.findings import finding
from twsrt.locations import display_path
from twsrt.rules import PATH_OUTSIDE_REPOSITORY

if TYPE_CHECKING:
    from twsrt.findings import Finding
    from twsrt.locations import Location
    from twsrt.rules import Rule

# Organisation-scale policies reach a few MB (50k rules at ~60 bytes each is 3 MB; a Codex
# config.toml with a large profile is similar). 32 MiB is ten times that, yet bounds what a
# hostile file can make twsrt hold in memory (the text plus its parse) to a few hundred MB.
MAX_BYTES = 32 * 1024 * 1024

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileProblem(Exception):
    """Why a file cannot be read. ``kind``: missing, dangling, directory, outside, unreadable."""

    def __init__(self, reason: str, kind: str = "unreadable") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


def real(path: Path) -> Path:
    """``path`` with every symlink and ``..`` resolved (as far as it exists; loops stay)."""
    return Path(os.path.realpath(path))


def within(path: Path, root: Path) -> bool:
    """Does the real path of ``path`` lie in the (already real) directory ``root``?"""
    return real(path).is_relative_to(root)


def outside_reason(path: Path, confine: Path | None) -> str | None:
    """Why ``path`` may not be read when reads are confined to the real directory ``confine``,
    or None when it may."""
    if confine is None or within(path, confine):
        return None
    return _outside(path, confine)


def _outside(path: Path, confine: Path) -> str:

    # named as the run names files: from the repository root, which a path outside it is not in
    return f"resolves to {display_path(real(path), confine)}, outside the repository"


def read_bytes(path: Path, limit: int = MAX_BYTES, *, confine: Path | None = None) -> bytes:
    """The bytes of a regular file, refused outside the real directory ``confine`` when given;
    every other case is a ``FileProblem`` with its reason."""
    if confine is None:
        try:
            _require_regular(os.stat(path), limit)
            fd = os.open(path, _READ)
        except OSError as exc:
            raise _problem(path, exc) from None
    else:
        fd = _open_beneath(path, confine, limit)
    try:
        _require_regular(os.fstat(fd), limit)  # the file opened is the file checked
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise _problem(path, exc) from None
    finally:
        os.close(fd)
    if size > limit:
        raise FileProblem(_too_large(limit))
    return b"".join(chunks)


def _open_beneath(path: Path, root: Path, limit: int) -> int:
    """Open ``path`` confined to the real directory ``root`` in one step (issue 26 item 11):
    its real path, once checked to lie inside, is walked from a descriptor of ``root`` one
    component at a time without following a link, so a directory swapped for a link after
    the check is refused as the check refuses it, never followed out of the repository."""
    resolved = real(path)
    if not resolved.is_relative_to(root):
        raise FileProblem(_outside(path, root), "outside")
    parts = resolved.relative_to(root).parts
    if not parts:
        raise FileProblem("is a directory", "directory")
    try:
        fd = os.open(root, _DIRECTORY)
    except OSError as exc:  # a scope root not made yet: the file does not exist either
        raise _problem(path, exc) from None
    try:
        for part in parts[:-1]:
            fd = _swap(fd, os.open(part, _DIRECTORY | os.O_NOFOLLOW, dir_fd=fd))
        info = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):  # a real path ends in no link: it changed since
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        _require_regular(info, limit)
        return os.open(parts[-1], _READ | os.O_NOFOLLOW, dir_fd=fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise _problem(path, exc) from None
        # a link where the real path had none (a loop stays unresolved, or it moved since):
        # judged as the check and the plain open judge it
        reason = outside_reason(path, root)
        if reason is not None:
            raise FileProblem(reason, "outside") from None
        try:
            os.stat(path)
        except OSError as again:
            raise _problem(path, again) from None
        raise _problem(path, exc) from None
    finally:
        os.close(fd)


def _swap(old: int, new: int) -> int:
    os.close(old)
    return new


def read_text(
    path: Path,
    limit: int = MAX_BYTES,
    *,
    confine: Path | None = None,
    universal_newlines: bool = True,
) -> str:
    """UTF-8 text (refused outside ``confine``, as ``read_bytes``), with universal newlines
    (as ``Path.read_text``) unless told to keep the line endings, or a ``FileProblem``."""
    data = read_bytes(path, limit, confine=confine)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileProblem("not valid UTF-8") from None
    if universal_newlines and "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def problem_finding(
    problem: FileProblem, rule: Rule, where: Location, prefix: str = "", agent: str = ""
) -> Finding:
    """The finding for an unreadable file: TWS005 when it lies outside the repository, else
    ``rule`` with ``prefix`` before the reason (one wording for every reader)."""

    if problem.kind == "outside":
        return finding(PATH_OUTSIDE_REPOSITORY, problem.reason, where, agent=agent)
    return finding(rule, prefix + problem.reason, where, agent=agent)


def _require_regular(info: os.stat_result, limit: int) -> None:
    if stat.S_ISREG(info.st_mode):
        if info.st_size > limit:
            raise FileProblem(_too_large(limit))
        return
    reason = irregular(info.st_mode)
    raise FileProblem(reason, "directory" if stat.S_ISDIR(info.st_mode) else "unreadable")


def irregular(mode: int) -> str:
    """What a file that is not a regular file is, as reasons say it ("is a FIFO, ...")."""
    if stat.S_ISDIR(mode):
        return "is a directory"
    what = next((name for test, name in _KINDS if test(mode)), None)
    return f"is {what}, not a regular file" if what else "is not a regular file"


def _too_large(limit: int) -> str:
    mib = 1024 * 1024
    return (
        f"is larger than {limit // mib} MiB"
        if limit % mib == 0
        else f"is larger than {limit} bytes"
    )


def _problem(path: Path, exc: OSError) -> FileProblem:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        if os.path.islink(path):
            return FileProblem(f"dangling symlink (points to {os.readlink(path)})", "dangling")
        return FileProblem("does not exist", "missing")
    if exc.errno == errno.ELOOP:
        return FileProblem("symlink loop (too many levels of symbolic links)")
    return FileProblem(exc.strerror or str(exc))
