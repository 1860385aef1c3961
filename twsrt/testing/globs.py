"""Paths in the fixture tree, git-style globs, and the canonical (srt) filesystem semantics."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import PurePosixPath

from twsrt.policy import PathRule, Policy, is_glob
from twsrt.records import record
from twsrt.testing.model import TAG
from twsrt.wildcard import GitGlob


def layout_path(path: str) -> str | None:
    """The ROOT-relative image of a policy path, or None when it leaves the tree (``../..``)."""
    if path == "~" or path.startswith("~/"):
        rel = "home/" + path[2:]
    elif path.startswith("/"):
        rel = "fs/" + path.lstrip("/")
    else:
        rel = "work/" + path
    norm = posixpath.normpath(rel)
    if norm == ".." or norm.startswith("../") or norm == ".":
        return None
    return norm


def within(path: str, tree: str) -> bool:
    """``path`` is ``tree`` or inside it (POSIX paths, no glob)."""
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def engine_path(path: str, root: str) -> str:
    """The absolute path an engine is given for a policy path (total, unlike ``layout_path``)."""
    rel = layout_path(path)
    if rel is None:  # outside the tree: keep it outside, it cannot name a fixture
        return posixpath.normpath(posixpath.join(root, "work", path))
    return posixpath.join(root, rel)


def srt_skips_write_glob(path: str) -> bool:
    """srt (0.0.83, Linux) strips a trailing ``/**`` and enforces the directory (a real run
    refuses append, create, mkdir and rename in ``P`` for ``P/**``); only a pattern that is still
    a glob after that is skipped in allowWrite/denyWrite (TWS501)."""
    return is_glob(path.removesuffix("/**"))


def glob_regex(pattern: str) -> GitGlob:
    """A matcher of a git-style glob: ``**`` spans directories, ``*``/``?`` stay in one. Its
    ``match`` takes the whole path, linear in the pattern times the path (``wildcard``): the
    pattern is the policy's, never a backtracking regex."""
    return GitGlob(pattern)


def instantiate(pattern: str, tag: str = TAG) -> str | None:
    """One concrete path that the glob matches, or None when no simple instance does."""
    parts = []
    for part in pattern.split("/"):
        parts.append(tag if part == "**" else _instantiate_part(part, tag))
    instance = "/".join(parts)
    return instance if glob_regex(pattern).match(instance) else None


def _instantiate_part(part: str, tag: str) -> str:
    out: list[str] = []
    i, n = 0, len(part)
    while i < n:
        char = part[i]
        if char == "*":
            while i + 1 < n and part[i + 1] == "*":
                i += 1
            out.append(tag)
        elif char == "?":
            out.append("x")
        elif char == "[" and part.find("]", i + 2) > 0:
            end = part.find("]", i + 2)
            out.append(_class_member(part[i + 1 : end]))
            i = end
        elif char == "{" and part.find("}", i) > 0:
            end = part.find("}", i)
            out.append(_instantiate_part(part[i + 1 : end].split(",")[0], tag))
            i = end
        elif char == "\\" and i + 1 < n:
            out.append(part[i + 1])
            i += 1
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _class_member(body: str) -> str:
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    members: set[str] = set()
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            members.update(chr(c) for c in range(ord(body[i]), ord(body[i + 2]) + 1))
            i += 3
        else:
            members.add(body[i])
            i += 1
    if not negate:
        return min(members) if members else "x"
    return next((c for c in "xqz0123456789abc" if c not in members), "_")


# Where a relative ``**/`` glob is probed besides its one instance: right in the launch
# directory (the project root of a project-scope run) and three directories below it.
DEPTHS = (("top", ""), ("deep", "tw-x/tw-y/"))


def depth_instances(rule: PathRule) -> list[tuple[str, str, str]]:
    """(depth, mapped glob, instance) of a relative glob that starts with ``**/`` (it matches
    at every depth below the launch directory): ``**/*.pem`` as ``work/TAG.pem`` and as
    ``work/tw-x/tw-y/TAG/TAG.pem``; empty for any other rule."""
    path = rule.path.removeprefix("./")
    if not (rule.glob and path.startswith("**/")):
        return []
    out = []
    for depth, prefix in DEPTHS:
        mapped = "work/" + prefix + path.removeprefix("**/")
        if depth == "deep":
            mapped = "work/" + prefix + path
        instance = instantiate(mapped)
        if instance is not None and glob_regex("work/" + path).match(instance):
            out.append((depth, mapped, instance))
    return out


@record
class Matcher:
    """One filesystem rule in the fixture tree: a path (covers its subtree) or a glob."""

    pattern: str
    glob: bool

    def covers(self, path: str) -> bool:
        if not self.glob:
            return path == self.pattern or path.startswith(self.pattern.rstrip("/") + "/")
        regex = glob_regex(self.pattern)
        node = PurePosixPath(path)
        return any(regex.match(str(p)) for p in (node, *node.parents) if str(p) != ".")


def _matchers(rules: Iterable[PathRule]) -> list[Matcher]:
    out = []
    for rule in rules:
        mapped = layout_path(rule.path) if not rule.glob else layout_glob(rule.path)
        if mapped is not None:
            out.append(Matcher(mapped, rule.glob))
    return out


def layout_glob(path: str) -> str | None:
    # normpath would fold "a/**/../b"; globs are mapped by their prefix only
    head = "home/" + path[2:] if path.startswith("~/") else None
    if head is None:
        head = "fs/" + path.lstrip("/") if path.startswith("/") else "work/" + path
    return head.replace("/./", "/").removesuffix("/.")


@record
class Semantics:
    """The canonical (srt) meaning of the filesystem lists, over fixture-tree paths."""

    deny_read: tuple[Matcher, ...]
    allow_read: tuple[Matcher, ...]
    allow_write: tuple[Matcher, ...]
    deny_write: tuple[Matcher, ...]

    @classmethod
    def of(cls, policy: Policy) -> Semantics:
        return cls(
            tuple(_matchers(policy.deny_read)),
            tuple(_matchers(policy.allow_read)),
            tuple(_matchers(policy.allow_write)),
            tuple(_matchers(policy.deny_write)),
        )

    def read_denied(self, path: str) -> bool:
        # allowRead re-opens reads inside a denied region (it wins over denyRead)
        return any(m.covers(path) for m in self.deny_read) and not any(
            m.covers(path) for m in self.allow_read
        )

    def write_allowed(self, path: str) -> bool:
        return any(m.covers(path) for m in self.allow_write) and not any(
            m.covers(path) for m in self.deny_write
        )
