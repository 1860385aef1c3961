"""Version-control metadata directories: no file twsrt reads as policy or writes lies in one.

A checkout's ``.git/`` is not part of the checkout: git runs ``.git/hooks/*`` and obeys
``.git/config`` (``core.fsmonitor``, ``core.hooksPath``, credentials, the CI token's
``http.extraheader``), Mercurial runs the hooks of ``.hg/hgrc``, and the other systems keep
their own state there. A generated file there is code the next commit runs; a file read from
there may be a secret a report prints. So every path a config names (sources, fragments,
targets, the files derived from them, the user policy a project names) and every file
``writes.apply`` writes is refused when any of its components, as written or after every
symlink, is such a directory.

A name matches as the file systems twsrt may run on fold it, the way git itself guards
``.git`` (``is_ntfs_dotgit``/``is_hfs_dotgit``): case-insensitively (``.GIT`` is ``.git`` on
macOS and Windows), without trailing dots and spaces and an NTFS stream suffix (``.git.``,
``.git::$INDEX_ALLOCATION``), without the code points HFS+ ignores (``.g\\u200cit``), and by
git's NTFS short name ``git~1``. A ``.git`` *file* (a worktree's or a submodule's pointer to
its git directory) is matched by the same name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.findings import fail
from twsrt.records import record
from twsrt.rules import VCS_METADATA_PATH

if TYPE_CHECKING:
    from twsrt.locations import Location

# the metadata directory (or pointer file) of each system, folded
METADATA_NAMES = frozenset(
    {".git", "git~1", ".hg", ".svn", ".jj", ".bzr", "_darcs", ".pijul", ".fslckout", "_fossil_"}
)
# code points HFS+ drops from a name before comparing (git's list in is_hfs_dotgit)
_HFS_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def folded(name: str) -> str:
    """``name`` as a case-folding, trailing-dot-dropping file system compares it."""
    name = _HFS_IGNORED.sub("", name).split(":", 1)[0].rstrip(" .")
    return name.casefold()


def metadata_part(path: Path) -> str | None:
    """The component of ``path`` (as written) that names a metadata directory, else None."""
    return next((part for part in path.parts if folded(part) in METADATA_NAMES), None)


@record
class MetadataHit:
    """Where a path meets a metadata directory: the component, and the real path when only
    the resolved path (through a symlink) meets it."""

    part: str
    resolved: Path | None = None

    def reason(self, shown: str = "") -> str:
        """The refusal, with ``shown`` naming the resolved path (default: as it is)."""
        where = "lies"
        if self.resolved is not None:
            where = f"resolves to {shown or self.resolved.as_posix()}, which lies"
        return (
            f"{where} inside {self.part}, a version-control metadata directory: twsrt never "
            "reads policy from or writes a file into one (git runs its hooks and obeys its "
            "config)"
        )


def metadata_hit(path: Path, follow: bool = True) -> MetadataHit | None:
    """The metadata directory ``path`` lies in, as written or after every symlink (of its
    directory only, when not ``follow``: a link twsrt manages is itself the file), else None."""
    part = metadata_part(path)
    if part is not None:
        return MetadataHit(part)
    parent = Path(os.path.realpath(path.parent))
    resolved = Path(os.path.realpath(path)) if follow else parent / path.name
    part = metadata_part(resolved)
    return None if part is None else MetadataHit(part, resolved)


def refuse_metadata(path: Path, follow: bool, where: Location) -> None:
    """``writes.apply``'s own guard (placement refuses a target at its key first): no file, a
    report or ``init``'s scaffold included, is written into a metadata directory. Written
    files are never executable either (``writes._validate`` clears every execute, setuid,
    setgid and sticky bit): a generated file is data, and a mode copied from a committed
    executable (a yolo file seeded from the full file) must not make it a program."""

    hit = metadata_hit(path, follow)
    if hit is not None:
        raise fail(VCS_METADATA_PATH, hit.reason(), where)
