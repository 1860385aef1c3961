"""Report files, written without following a link (issue 26: a report must never become a file
the pull request chose, such as a ``.pth`` in the runner's virtual environment).

Every report path is checked before any report is written, so one refusal writes none. The
directory that holds a report is reached one component at a time by descriptor (``O_NOFOLLOW``):
a symlink inside a protected root (the repository) is refused; one outside it (``/var`` on
macOS, a user's own link above the checkout) is followed, its value walked the same way. The
report itself is a fresh temp file (``O_CREAT|O_EXCL|O_NOFOLLOW``, mode 0644 minus the umask)
renamed over the name by descriptor, so an existing symlink there, dangling or not, is refused
and never written through. ``-``, ``/dev/stdout`` and ``/dev/stderr`` name the streams; they
are never opened as paths (``/dev/stdout`` is a link into ``/proc``).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from twsrt.findings import TwsrtError, fail
from twsrt.locations import Location, display_path
from twsrt.records import record
from twsrt.rules import REPORT_UNWRITABLE, VCS_METADATA_PATH
from twsrt.safeio import irregular
from twsrt.vcs import metadata_hit

STREAMS = {"-": "stdout", "/dev/stdout": "stdout", "/dev/stderr": "stderr"}
_MAX_LINKS = 40  # as the kernel's own limit on links in one lookup
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NAME_MAX = 255


def stream_of(name: str) -> str | None:
    """``stdout`` or ``stderr`` when the report name is one of the streams, else None."""
    return STREAMS.get(name)


@record
class _Walk:
    """A report path as its components, and the real directories where links are refused."""

    display: str
    parts: tuple[str, ...]
    absolute: bool
    protected: tuple[str, ...]

    def refuse(self, message: str) -> TwsrtError:
        return fail(REPORT_UNWRITABLE, message, Location(self.display))

    def inside(self, real: str) -> bool:
        return any(
            real == root or real.startswith(root.rstrip("/") + "/") for root in self.protected
        )


def write_report_files(reports: Sequence[tuple[str, str]], protected: Sequence[Path]) -> None:
    """Write each (path, text), the stream names excluded (the caller prints those); refuse all
    of them (TWS023, nothing written) when any one cannot be written without a link."""
    roots = tuple(os.path.realpath(root) for root in protected)
    walks = [(_walk_of(name, roots), text) for name, text in reports if stream_of(name) is None]
    for walk, _ in walks:
        fd, name = _parent(walk, create=False)
        try:
            if fd is not None:
                _check_final(walk, fd, name)
        finally:
            if fd is not None:
                os.close(fd)
    for walk, text in walks:
        fd, name = _parent(walk, create=True)
        assert fd is not None
        try:
            _check_final(walk, fd, name)
            _replace(walk, fd, name, text.encode("utf-8"))
        finally:
            os.close(fd)


def _walk_of(name: str, protected: tuple[str, ...]) -> _Walk:
    path = Path(name)
    walk = _Walk(
        name, path.parts[1:] if path.is_absolute() else path.parts, path.is_absolute(), protected
    )
    if not walk.parts or walk.parts[-1] in (".", "..") or name.endswith("/"):
        raise walk.refuse("is not a file name")
    if "\0" in name:
        raise walk.refuse("holds a NUL character")
    _refuse_metadata(name)
    return walk


def _refuse_metadata(name: str) -> None:
    """No report inside .git/ (or another VCS's metadata), as written or through a link."""

    hit = metadata_hit(Path(os.path.abspath(name)))
    if hit is not None:
        shown = display_path(hit.resolved) if hit.resolved else ""
        raise fail(VCS_METADATA_PATH, hit.reason(shown), Location(name))


def _parent(walk: _Walk, *, create: bool) -> tuple[int | None, str]:
    """A descriptor of the directory to hold the report and the report's name in it; None when
    a directory on the way does not exist yet (``create``: it is made)."""
    start = "/" if walk.absolute else "."
    fd, real = os.open(start, _DIR), "/" if walk.absolute else os.getcwd()
    pending = list(reversed(walk.parts[:-1]))
    links = 0
    try:
        while pending:
            part = pending.pop()
            if part in ("", "."):
                continue
            if part == "..":
                fd, real = _step(fd, os.open("..", _DIR, dir_fd=fd)), os.path.dirname(real)
                continue
            info = _lstat(walk, fd, part)
            if info is None and not create:
                os.close(fd)
                return None, walk.parts[-1]
            if info is None:
                os.mkdir(part, 0o777, dir_fd=fd)
            elif stat.S_ISLNK(info.st_mode):
                links += 1
                fd, real = _follow(walk, fd, real, part, links, pending)
                continue
            elif not stat.S_ISDIR(info.st_mode):
                raise walk.refuse(f"cannot be written: {part!r} is not a directory")
            fd = _step(fd, os.open(part, _DIR | os.O_NOFOLLOW, dir_fd=fd))
            real = os.path.join(real, part)
    except OSError as exc:
        os.close(fd)
        raise walk.refuse(f"cannot be written: {exc.strerror or exc}") from None
    except TwsrtError:
        os.close(fd)
        raise
    return fd, walk.parts[-1]


def _follow(
    walk: _Walk, fd: int, real: str, part: str, links: int, pending: list[str]
) -> tuple[int, str]:
    """Follow the link ``part`` of the directory ``fd`` (real path ``real``) when it lies
    outside every protected root: its value's components go onto ``pending``."""
    if walk.inside(real):
        raise walk.refuse(
            f"cannot be written: {part!r} is a symlink inside the repository; twsrt never "
            "writes a report through a link"
        )
    if links > _MAX_LINKS:
        raise walk.refuse("cannot be written: too many levels of symbolic links")
    value = Path(os.readlink(part, dir_fd=fd))
    pending.extend(reversed(value.parts[1:] if value.is_absolute() else value.parts))
    if value.is_absolute():
        return _step(fd, os.open("/", _DIR)), "/"
    return fd, real


def _step(old: int, new: int) -> int:
    os.close(old)
    return new


def _lstat(walk: _Walk, fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _check_final(walk: _Walk, fd: int, name: str) -> None:

    try:
        info = _lstat(walk, fd, name)
    except OSError as exc:
        raise walk.refuse(f"cannot be written: {exc.strerror or exc}") from None
    if info is None or stat.S_ISREG(info.st_mode):
        return
    if stat.S_ISLNK(info.st_mode):
        raise walk.refuse(
            "is a symlink; twsrt never writes a report through a link (a dangling one too) — "
            "remove it or name another path"
        )
    raise walk.refuse(irregular(info.st_mode))


def _replace(walk: _Walk, fd: int, name: str, data: bytes) -> None:
    """``data`` as a fresh file renamed over ``name`` in the directory ``fd``."""
    temp = _temp_name(fd, name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        out = os.open(temp, flags, 0o644, dir_fd=fd)  # the umask applies
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
            os.fsync(out)
        finally:
            os.close(out)
        os.rename(
            temp, name, src_dir_fd=fd, dst_dir_fd=fd
        )  # a link there is replaced, not followed
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=fd)
        raise walk.refuse(f"cannot be written: {exc.strerror or exc}") from None
    with contextlib.suppress(OSError):
        os.fsync(fd)


def _temp_name(fd: int, name: str) -> str:
    """A temp name of twsrt's pattern (a killed run's leftover is removed by the next write)."""
    # os.urandom, not secrets: the name needs no more, and secrets costs ~4 ms to import
    prefix = f".twsrt.{os.getpid()}.{os.urandom(4).hex()}.new."
    try:
        limit = os.fpathconf(fd, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = _NAME_MAX
    room = limit - len(os.fsencode(prefix))
    while len(os.fsencode(name)) > room:
        name = name[:-1]
    return prefix + name
