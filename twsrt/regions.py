"""Where a path rule reaches, in one spelling per path, and lookups over many of them (used by
the narrowing check, narrowing.py, and the fragment lints, lints.py).

``canonical`` writes a policy path the one way it is compared: no empty or ``.`` part (``~//a``,
``~/./a`` and ``~/a/`` are ``~/a``), ``..`` folded where that has one meaning, and a leading
``/proc/self/root`` or ``/proc/thread-self/root`` dropped (the sandbox's own root is ``/``). A
path whose meaning depends on a process (``/proc/<pid>/root``, ``/proc/self/cwd``, ``/proc/*/fd``,
``/dev/fd/N``, ``/dev/stdin``) or on where the agent runs (a ``..`` climbing out) has no spelling:
it reaches everything and nothing holds it. ``Anchors`` places ``~`` (with a pinned home) and
relative paths (at a root), and ``links`` may add the real path the host's symlinks give a path
(a host fact: only findings ever depend on it).

Undecidable comparisons (``~`` against an absolute path when no home is pinned) count as
overlapping and as not holding: a finding, never a silent pass.
"""

from __future__ import annotations

import posixpath
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import cached_property

from twsrt.policy import PathRule, fold_dots, has_dots, is_glob
from twsrt.records import record

# /proc/<process>/<entry>: entries that re-spell another part of the filesystem
_PROCESS_LINKS = frozenset({"root", "cwd", "exe", "fd", "map_files"})
_OWN = frozenset({"self", "thread-self"})
_DEV_FDS = frozenset({"fd", "stdin", "stdout", "stderr"})


def _process_prefix(parts: list[str]) -> tuple[int, bool] | None:
    """For an absolute path's parts (after the leading ``""``), how many name a process link
    (``proc/self/root``, ``proc/1/task/1/cwd``, ``dev/fd``) and whether that link is the own
    root (``/``); None when the path does not start with one."""
    if len(parts) >= 2 and parts[0] == "dev" and parts[1] in _DEV_FDS:
        return 2, False
    if len(parts) < 3 or parts[0] != "proc":
        return None
    who, at = parts[1], 2
    if who not in _OWN and not who.isdigit():
        return None
    if parts[at] == "task" and len(parts) > at + 2 and parts[at + 1].isdigit():
        at += 2
    if parts[at] not in _PROCESS_LINKS:
        return None
    return at + 1, who in _OWN and parts[at] == "root"


def _plain(parts: list[str]) -> bool:
    """No empty part but an absolute path's first, no ``.`` or ``..``, no process link."""
    if "." in parts or ".." in parts:
        return False
    if parts[0]:
        return all(parts)
    return all(parts[1:]) and parts[1] not in ("proc", "dev")


def canonical(path: str) -> str | None:
    """``path`` in its one compared spelling, or None when what it names depends on a process
    or on where the agent runs."""
    parts = path.split("/")
    if path == "/" or _plain(parts):
        return path  # the common case: already its one spelling
    absolute = path.startswith("/")
    parts = [part for part in parts if part and part != "."]
    while True:
        text = "/" + "/".join(parts) if absolute else "/".join(parts) or "."
        text = fold_dots(text)
        if has_dots(text):
            return None  # a ".." that climbs out of the home or the launch directory
        if not absolute:
            return text
        parts = [part for part in text.split("/") if part]
        found = _process_prefix(parts)
        if found is None:
            return text
        length, own_root = found
        if not own_root:
            return None
        parts = parts[length:]  # /proc/self/root/x is /x, /proc/self/root/.. is /


@record
class Anchors:
    """Where ``~`` and relative paths lie: ``home`` (absolute, the pinned home) expands ``~`` on
    both sides, and ``root`` (the project root, absolute or ``~/...``) anchors relative paths.
    ``links`` gives the real path of a placed path where the host's symlinks make it another
    one (None: the same, or not known)."""

    home: str | None = None
    root: str | None = None
    links: Callable[[str], str | None] | None = None

    @cached_property
    def _home(self) -> str | None:
        home = canonical(self.home) if self.home else None
        return None if home is None else home.rstrip("/")

    @cached_property
    def _root(self) -> str | None:
        if self.root is None:
            return None
        return Anchors(self.home).resolve(self.root) or self.root

    def resolve(self, path: str) -> str | None:
        """``path`` placed in one namespace (``/abs``, ``~/x``, ``./x``), or None when it has no
        spelling (``canonical``)."""
        text = canonical(path)
        return None if text is None else self.place(text)

    def place(self, text: str) -> str:
        """A canonical path placed: ``~`` expanded with the home, a relative one at the root."""
        if text == "~" or text.startswith("~/"):
            return self._home + text[1:] if self._home is not None else text
        if text.startswith("/"):
            return text
        rel = "" if text == "." else text
        if self._root is None:
            return "./" + rel if rel else "."
        return posixpath.join(self._root, rel) if rel else self._root


def _within(path: str, tree: str) -> bool:
    """``path`` is ``tree`` or inside it; ``/`` holds every path, relative ones too."""
    if tree == "/":
        return True
    return path == tree or path.startswith(tree + "/")


def _comparable(a: str, b: str) -> bool:
    return a[:1] == b[:1] or "/" in (a, b)


def _overlap(a: str, b: str) -> bool:
    """Whether two trees can share a path (undecidable counts as yes)."""
    return not _comparable(a, b) or _within(a, b) or _within(b, a)


@record
class Region:
    """What a path rule touches: ``base`` and every path below it (``tree``), every path
    strictly below it (``below``: ``P/**``), or only some paths below it (``some``: a glob,
    whose ``base`` is the directory before its first glob character, and ``path`` the whole
    pattern placed). ``via``: the host spelling this region was found through (a symlink)."""

    rule: PathRule
    base: str
    kind: str  # "tree", "below" or "some"
    path: str = ""
    via: str | None = None

    def holds(self, other: Region) -> bool:
        """Every path of ``other`` is in this region (undecidable counts as no)."""
        if self.kind == "tree":
            return _within(other.base, self.base)
        if self.kind == "below":
            inside = other.base != self.base and _within(other.base, self.base)
            return inside or (other.kind == "below" and other.base == self.base)
        return self.base == other.base and self.path == other.path

    def meets(self, other: Region) -> bool:
        return _overlap(self.base, other.base)


def _shape(text: str, literal: bool) -> tuple[str, str]:
    """A canonical pattern's base directory and kind."""
    if literal or not is_glob(text):
        return text, "tree"
    path = text.removesuffix("/**") or "/"
    kind = "below" if path != text else "some"
    if is_glob(path):  # the directory before the first glob character
        head = path[: min(path.index(c) for c in "*?[]{}" if c in path)]
        path, kind = head.rpartition("/")[0] or ("/" if head.startswith("/") else "."), "some"
    return path, kind


def region(rule: PathRule, anchors: Anchors) -> Region | None:
    """The rule's region as written (placed), or None when it has no spelling."""
    text = canonical(rule.path)
    if text is None:
        return None
    path, kind = _shape(text, rule.literal)
    base = anchors.place(path)
    return Region(rule, base, kind, anchors.place(text) if kind == "some" else base)


def regions(rule: PathRule, anchors: Anchors) -> list[Region]:
    """Every region a rule reaches: as written, and through the host's symlinks where they give
    it another real path; a rule with no spelling reaches everything (``/``, held by nothing
    but ``/``)."""
    found = region(rule, anchors)
    if found is None:
        return [Region(rule, "/", "some", "\0" + rule.path)]
    real = anchors.links(found.base) if anchors.links is not None else None
    if real is None or real == found.base:
        return [found]
    path = real + found.path[len(found.base) :] if found.kind == "some" else real
    return [found, Region(rule, real, found.kind, path, via=real)]


def all_regions(rules: Sequence[PathRule], anchors: Anchors) -> list[Region]:
    return [item for rule in rules for item in regions(rule, anchors)]


def _ancestors(base: str) -> list[str]:
    """``base`` and each directory above it, in its namespace (``/a/b``, ``/a``, ``/``)."""
    out = [base]
    while head := base.rpartition("/")[0]:
        out.append(head)
        base = head
    return [*out, "/"] if base.startswith("/") and base != "/" else out


class Holders:
    """Regions indexed by base, so which of them hold a region costs that region's depth, not a
    scan of every region (the same answer as ``Region.holds`` for each)."""

    def __init__(self, items: Sequence[Region]) -> None:
        self.order = {id(item): index for index, item in enumerate(items)}
        self.by_kind: dict[str, dict[str, list[Region]]] = {"tree": {}, "below": {}}
        self.some: dict[tuple[str, str], list[Region]] = {}
        for item in items:
            if item.kind == "some":
                self.some.setdefault((item.base, item.path), []).append(item)
            else:
                self.by_kind[item.kind].setdefault(item.base, []).append(item)

    def holding(self, other: Region) -> list[Region]:
        """The regions that hold ``other``, in their order."""
        tree, below = self.by_kind["tree"], self.by_kind["below"]
        above = _ancestors(other.base)
        found = [*self.some.get((other.base, other.path), ()), *tree.get("/", ())]
        found += [item for a in above for item in tree.get(a, ())]
        found += [item for a in above[1:] for item in below.get(a, ())]
        if other.kind == "below":
            found += below.get(other.base, [])
        unique = {id(item): item for item in found}
        return sorted(unique.values(), key=lambda item: self.order[id(item)])

    def hold(self, other: Region) -> bool:
        tree, below = self.by_kind["tree"], self.by_kind["below"]
        if "/" in tree or (other.base, other.path) in self.some:
            return True
        if other.kind == "below" and other.base in below:
            return True
        above = _ancestors(other.base)
        return any(a in tree for a in above) or any(a in below for a in above[1:])


def reopened(deny: Region, grant: Region, allows: Holders) -> bool:
    """Whether ``allows`` re-open all of what ``grant`` shares with ``deny``."""
    shared = grant if deny.holds(grant) else deny if grant.holds(deny) else grant
    return allows.hold(shared)


def undecided(one: Region, other: Region) -> bool:
    """The two are compared only because neither can be placed against the other (``~``
    against an absolute path without a pinned home)."""
    return one.base[:1] != other.base[:1] and "/" not in (one.base, other.base)


class Meeting:
    """Regions indexed so the ones that can share a path with a region are looked up: those
    on its ancestors, those below its base (a sorted range), and those in a namespace it cannot
    be compared with (``~`` against ``/`` without a home: undecidable, so meeting)."""

    def __init__(self, items: Sequence[Region]) -> None:
        self.items = list(items)
        self.by_base: dict[str, list[int]] = {}
        self.spaces: dict[str, list[int]] = {}
        for index, item in enumerate(self.items):
            self.by_base.setdefault(item.base, []).append(index)
            self.spaces.setdefault(item.base[:1], []).append(index)
        self.sorted = sorted(self.by_base)

    def meeting(self, other: Region, *, first_foreign: bool = False) -> list[Region]:
        """The regions that meet ``other``, in their order; ``first_foreign`` keeps only the
        first one of each namespace ``other`` cannot be compared with (all of them meet it
        alike: the caller needs one)."""
        base = other.base
        if base == "/":
            return list(self.items)
        found = list(self.by_base.get("/", ()))
        found += [i for a in _ancestors(base) if a != "/" for i in self.by_base.get(a, ())]
        start = bisect_left(self.sorted, base + "/")
        for below in self.sorted[start : bisect_left(self.sorted, base + "0", lo=start)]:
            found += self.by_base[below]
        for space, indexes in self.spaces.items():
            if space != base[:1]:  # another namespace: undecidable, so meeting
                found += indexes[:1] if first_foreign else indexes
        return [self.items[i] for i in sorted(set(found))]

    def any(self, other: Region) -> bool:
        return bool(self.meeting(other, first_foreign=True))
