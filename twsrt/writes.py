"""Planned file changes, applied as one transaction: all of them or none.

``apply`` validates and renders every change first (bytes, names, directories, modes), then
writes every temp file (fsync), then renames them all into place. Any failure removes every temp
file and renames the kept old files back, so each target ends entirely old or entirely new. Temp
and backup files carry a recognisable name (``.twsrt.<pid>.<token>.<new|old>.<name>``) so that the
next run removes what a killed run left behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from dataclasses import field
from pathlib import Path

from twsrt import journal
from twsrt.findings import TwsrtError, fail
from twsrt.journal import OnDisk, on_disk
from twsrt.locations import Location, display_path
from twsrt.records import record
from twsrt.rules import SETTINGS_LINK_FOREIGN, TARGET_CHANGED, TARGET_UNUSABLE
from twsrt.vcs import refuse_metadata

_DEFAULT_NAME_MAX = 255


def keep_line_endings(base: str | None, text: str) -> str:
    """``text`` with the line endings of ``base`` (the file it replaces or was spliced into): a
    CRLF file stays CRLF; an LF file, or no file, leaves ``text`` as it is."""
    if base is None:
        return text
    crlf = base.count("\r\n")
    if crlf == 0 or crlf < base.count("\n") - crlf:
        return text
    return re.sub(r"(?<!\r)\n", "\r\n", text)


@record
class FileWrite:
    """Replace (or create) ``path`` with ``text``; ``old`` is the text compile read, None when
    the file did not exist. The file must still hold ``old`` when it is replaced."""

    path: Path
    display: str
    text: str
    old: str | None
    new_mode: int | None = None  # mode for a file that does not exist yet (default: umask)
    like: Path | None = None  # a new file made from this file's content takes its mode and owner

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", keep_line_endings(self.old, self.text))

    @property
    def changed(self) -> bool:
        return self.old != self.text

    @property
    def before(self) -> OnDisk:
        return OnDisk("absent") if self.old is None else OnDisk("file", self.old)


@record
class SymlinkWrite:
    """Point ``link`` at ``target`` (a name relative to the link's directory). ``ours`` are the
    files twsrt's own link may point to; a link to anything else is the user's and is never
    replaced. What the link path held is recorded when the change is planned."""

    link: Path
    display: str
    target: str
    ours: tuple[Path, ...] = ()
    before: OnDisk = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "before", on_disk(self.link))

    @property
    def changed(self) -> bool:
        return self.before != OnDisk("link", self.target)

    @property
    def foreign(self) -> bool:
        """A working symlink twsrt did not make (GNU stow, chezmoi, a hand edit): its value,
        read relative to the link's directory, names none of ``ours``. A dangling link connects
        nothing and is replaced (``broken-symlink`` reports it)."""
        if self.before.kind != "link" or self.before.value is None:
            return False
        # real paths: a value such as ../yolo/settings.yolo.json is read from the link's
        # real directory
        named = os.path.realpath(os.path.join(self.link.parent, self.before.value))
        own = {os.path.realpath(path) for path in (*self.ours, self.link.parent / self.target)}
        return named not in own and self.link.exists()


Change = FileWrite | SymlinkWrite


def describe(change: Change) -> str:
    if isinstance(change, SymlinkWrite):
        return f"symlink {change.display} -> {change.target}"
    verb = "create" if change.old is None else "update"
    return f"{verb} {change.display}"


def _where(change: Change) -> Path:
    return change.link if isinstance(change, SymlinkWrite) else change.path


# ------------------------------------------------------------------ validation


@record(frozen=False)
class _Step:
    """One change, rendered and then staged: the temp file next to the target, the old file
    kept aside (a hard link, else a copy) so that a rollback is a rename."""

    change: Change
    data: bytes = b""
    mode: int = 0o600
    owner: tuple[int, int] | None = None
    temp: Path | None = None
    backup: Path | None = None
    renamed: bool = False

    @property
    def staged(self) -> Path:
        """The temp file ``_stage`` made (only a staged step is journaled or renamed)."""
        if self.temp is None:
            raise RuntimeError(f"{self.change.display} was not staged")
        return self.temp


def preflight(changes: list[Change]) -> list[_Step]:
    """Refuse the whole run before touching anything if any single change could not be made;
    returns every change rendered to bytes with the mode and owner it will get."""
    return [_validate(change) for change in changes]


def _validate(change: Change) -> _Step:
    path = _where(change)
    where = Location(change.display)
    _check_name(path, where)
    refuse_metadata(path, isinstance(change, FileWrite), where)  # nothing into .git/
    _check_directory(path, where)
    current = on_disk(path)
    if current.kind == "other":
        raise fail(TARGET_UNUSABLE, "is not a regular file or symlink", where)
    if current != change.before:
        raise _changed_error(change)
    step = _Step(change)
    if isinstance(change, SymlinkWrite):
        if change.foreign:
            raise fail(
                SETTINGS_LINK_FOREIGN,
                f"is a symlink to {change.before.value}, which twsrt did not make; twsrt never "
                "replaces a user's link — name that file as the target (twsrt writes through a "
                "link) or remove the link",
                where,
            )
        if change.before.kind != "absent":
            step.owner = _owner(path.lstat())
        return step
    step.data = _encoded(change)
    step.mode, step.owner = _mode_and_owner(change, path, where)
    step.mode &= 0o666  # never executable, setuid, setgid or sticky (vcs.py: why)
    return step


def _encoded(change: FileWrite) -> bytes:
    """The text as UTF-8; a character UTF-8 cannot hold is refused where it sits."""
    try:
        return change.text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = change.text.count("\n", 0, exc.start) + 1
        column = exc.start - (change.text.rfind("\n", 0, exc.start) + 1) + 1
        bad = f"U+{ord(change.text[exc.start]):04X}"
        message = f"cannot be written: the generated text holds {bad}, which UTF-8 cannot encode"
        raise fail(TARGET_UNUSABLE, message, Location(change.display, line, column)) from None


def _mode_and_owner(
    change: FileWrite, path: Path, where: Location
) -> tuple[int, tuple[int, int] | None]:
    """The replaced file's mode and owner (refused when it may not be replaced), else those of
    the file it is made like, else its new mode, else what the umask gives."""
    if change.before.kind == "file":
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise fail(TARGET_UNUSABLE, "is not a regular file", where)
        mode = stat.S_IMODE(info.st_mode)
        if not mode & 0o222:
            raise fail(
                TARGET_UNUSABLE,
                f"is read-only (mode {mode:04o}); twsrt does not replace it — make it writable "
                "to let twsrt update it",
                where,
            )
        if not _may(path, os.W_OK):  # replacing it would need only the directory
            message = f"is not writable by this user (mode {mode:04o}); twsrt does not replace it"
            raise fail(TARGET_UNUSABLE, message, where)
        return mode, _owner(info)
    if change.like is not None and change.like.is_file():
        info = change.like.stat()
        return stat.S_IMODE(info.st_mode), _owner(info)
    if change.new_mode is not None:
        return change.new_mode, None
    return 0o666 & ~_umask(), None


def _may(path: Path, mode: int) -> bool:
    """access(2) for the user twsrt acts as (the effective ids, as the writes will use)."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _owner(info: os.stat_result) -> tuple[int, int]:
    return info.st_uid, info.st_gid


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _name_max(directory: Path) -> int:
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        return _DEFAULT_NAME_MAX


def _check_name(path: Path, where: Location) -> None:
    try:
        size = len(os.fsencode(path.name))
    except UnicodeEncodeError:
        raise fail(TARGET_UNUSABLE, "file name cannot be encoded", where) from None
    limit = _name_max(_existing_ancestor(path.parent))
    if size > limit:
        message = f"file name is {size} bytes, longer than the file system allows ({limit})"
        raise fail(TARGET_UNUSABLE, message, where)


def _check_directory(path: Path, where: Location) -> None:
    directory = _existing_ancestor(path.parent)
    if not directory.is_dir():
        raise fail(TARGET_UNUSABLE, "parent path is not a directory", where)
    if not _may(directory, os.W_OK | os.X_OK):
        raise fail(TARGET_UNUSABLE, f"directory {_shown(directory)} is not writable", where)
    info = directory.stat()
    euid = os.geteuid()
    if info.st_mode & stat.S_ISVTX and euid != 0 and info.st_uid != euid:
        try:
            owner = path.lstat().st_uid
        except FileNotFoundError:
            return
        if owner != euid:  # rename(2) over another user's file in a sticky directory: EPERM
            raise fail(
                TARGET_UNUSABLE,
                f"belongs to another user in the sticky directory {_shown(directory)}; twsrt "
                "cannot replace it",
                where,
            )


def _shown(directory: Path) -> str:
    """A directory as messages name it (never the absolute path of the machine's checkout)."""

    return display_path(directory)


def _existing_ancestor(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _changed_error(change: Change) -> TwsrtError:
    return fail(
        TARGET_CHANGED,
        "changed on disk while twsrt was running (another program, such as an agent's "
        '"always allow", wrote it); nothing was written — run `twsrt generate -w` again',
        Location(change.display),
    )


# ------------------------------------------------------------------ the transaction


def apply(changes: list[Change], journal_dir: Path | None = None) -> list[Change]:
    """Make every changed change or none; return what changed. Temp files left by an earlier
    killed run in the target directories are removed once the plan is known to be valid.
    ``journal_dir``: record the renames there first (``journal``), so that a run killed
    between two renames is finished by the next one."""
    pending = [c for c in changes if c.changed]
    # files first: the settings.json link is switched only once its file is in place
    pending.sort(key=lambda c: isinstance(c, SymlinkWrite))
    steps = preflight(pending)
    journal.remove_stale({_where(c).parent for c in changes})  # a refused run touches nothing
    made: list[Path] = []
    current: _Step | None = None
    recorded: Path | None = None
    try:
        for current in steps:
            _stage(current, made)
        if journal_dir is not None and len(steps) > 1:  # one rename is all or nothing itself
            renames = [(s.staged, _where(s.change), s.backup, s.change.before) for s in steps]
            recorded = journal.record(journal_dir, renames)
        for current in steps:
            target = _where(current.change)
            if on_disk(target) != current.change.before:
                raise _changed_error(current.change)
            assert current.temp is not None
            os.replace(current.temp, target)
            current.renamed = True
    except BaseException as exc:
        stuck = _rollback(steps, made)
        journal.remove(recorded)
        if isinstance(exc, OSError) and current is not None:
            outcome = "nothing was changed"
            if stuck:
                outcome = "could not put back the old " + ", ".join(stuck)
            message = f"cannot write: {exc.strerror or exc}; {outcome}"
            raise fail(TARGET_UNUSABLE, message, Location(current.change.display)) from None
        raise
    for step in steps:
        _unlink(step.backup)  # a leftover is removed by the next run
    for directory in {_where(step.change).parent for step in steps}:
        _fsync_dir(directory)
    journal.remove(recorded)
    return pending


def _temp_path(target: Path, kind: str) -> Path:
    prefix = f".twsrt.{os.getpid()}.{os.urandom(4).hex()}.{kind}."
    room = _name_max(target.parent) - len(os.fsencode(prefix))
    name = target.name
    while len(os.fsencode(name)) > room:
        name = name[:-1]
    return target.parent / (prefix + name)


def _make_dirs(directory: Path, made: list[Path]) -> None:
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        os.mkdir(path)
        made.append(path)


def _stage(step: _Step, made: list[Path]) -> None:
    change = step.change
    target = _where(change)
    _make_dirs(target.parent, made)
    if change.before.kind != "absent":
        step.backup = _temp_path(target, "old")
        _keep_aside(target, step.backup, change.before)
    step.temp = _temp_path(target, "new")
    root = os.geteuid() == 0
    if isinstance(change, SymlinkWrite):
        os.symlink(change.target, step.temp)
        if root and step.owner is not None:
            os.lchown(step.temp, *step.owner)
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(step.temp, flags, 0o600)
    try:
        view = memoryview(step.data)
        while view:
            view = view[os.write(fd, view) :]
        if root and step.owner is not None:
            os.fchown(fd, *step.owner)
        os.fchmod(fd, step.mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def _keep_aside(target: Path, backup: Path, before: OnDisk) -> None:
    """The old file under a second name: a hard link where the file system has them."""
    try:
        os.link(target, backup, follow_symlinks=False)
        return
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EACCES):
            raise
    if before.kind == "link":
        os.symlink(before.value or "", backup)
        return
    info = target.stat()
    fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        view = memoryview(target.read_bytes())
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, stat.S_IMODE(info.st_mode))
        os.fsync(fd)
    finally:
        os.close(fd)


def _rollback(steps: list[_Step], made: list[Path]) -> list[str]:
    """Undo what was renamed (old files back in place) and remove every temp file; best effort,
    so one failing undo does not stop the others. Returns the targets left new."""
    stuck = []
    for step in reversed(steps):
        if step.renamed:
            try:
                if step.backup is not None:
                    os.replace(step.backup, _where(step.change))
                    step.backup = None
                else:
                    os.unlink(_where(step.change))
            except OSError:
                stuck.append(step.change.display)
        else:
            _unlink(step.temp)
        _unlink(step.backup)
    for directory in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(directory)
    return stuck


# writes' own, not journal's: every low-level call of a write goes through this module's ``os``
# (tests/test_writes.py fails each one in turn)
def _unlink(path: Path | None) -> None:
    if path is None:
        return
    with contextlib.suppress(OSError):
        os.unlink(path)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fsync(fd)
    os.close(fd)
