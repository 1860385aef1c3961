"""Checks of the policy against the machine ``twsrt check`` runs on. They are findings only:
generated files never depend on the host.

Symlinked paths (observed with Codex 0.171.0): Codex does not match a write root and a deny
when one is spelled through a symlink and the other by the real path, so the denied directory
stays writable, and it refuses to start when a denyRead crosses a symlink inside a writable
directory. A policy path that exists here and is a symlink, or lies under one, is reported with
both spellings.

Write roots that are files (observed with Codex 0.171.0): Codex mounts protected entries
(``.git``, ``.aws``, ...) inside every writable root, so a root that is a regular file makes
every sandbox start fail ("Not a directory"). An allowWrite path that is a file here is reported.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path, PurePosixPath

from twsrt.findings import Finding, finding, quoted
from twsrt.policy import PathRule, Policy, is_glob
from twsrt.rules import SYMLINKED_POLICY_PATH, WRITE_ROOT_NOT_DIRECTORY

LISTS = ("denyRead", "denyWrite", "allowWrite", "allowRead")


def _rules(policy: Policy) -> Iterator[tuple[str, PathRule]]:
    for key, rules in zip(
        LISTS,
        (policy.deny_read, policy.deny_write, policy.allow_write, policy.allow_read),
        strict=True,
    ):
        for rule in rules:
            yield key, rule
    files = policy.srt.get("credentials", {}).get("files", [])
    for index, entry in enumerate(files):
        pointer = f"/credentials/files/{index}/path"
        yield "credentials.files", PathRule(entry["path"], policy.srt_location(pointer))


def _concrete(rule: PathRule) -> tuple[list[str], list[str]]:
    """The path's parts up to the first glob part, and the glob tail (empty for a plain path)."""
    parts = [p for p in rule.path.split("/") if p not in ("", ".")]
    if rule.literal:
        return parts, []
    for index, part in enumerate(parts):
        if is_glob(part):
            return parts[:index], parts[index:]
    return parts, []


class _Lookups:
    """One ``lstat`` per path for the whole run: policies of thousands of paths share their
    ancestors (``/``, the home, ``~/.config``), which would otherwise be looked at per rule.
    Paths are plain strings here; pathlib's hashing costs more than the system call."""

    def __init__(self) -> None:
        self._modes: dict[str, int | None] = {}

    def mode(self, path: str) -> int | None:
        """The path's own mode (a symlink is not followed), None when it cannot be looked at."""
        try:
            return self._modes[path]
        except KeyError:
            pass
        try:
            mode: int | None = os.lstat(path).st_mode
        except (OSError, ValueError):  # missing, not a directory, a NUL in the name
            mode = None
        self._modes[path] = mode
        return mode

    def first_symlink(self, candidates: Iterable[str]) -> str | None:
        """The first candidate that is a symlink on this host; the walk stops at the first one
        that does not exist (or cannot be looked at), since nothing below it can be a symlink."""
        for candidate in candidates:
            mode = self.mode(candidate)
            if mode is None:
                return None
            if stat.S_ISLNK(mode):
                return candidate
        return None


class _Starts:
    """Where a policy path starts on this host, with the ancestors to look at, worked out once
    per run instead of per rule."""

    def __init__(self, home: Path, cwd: Path) -> None:
        # ``/`` and ``~`` paths count every ancestor (the home's too); a relative path counts
        # only the parts it spells, because the directory an agent starts in is not known here
        self.home = (str(home), tuple(str(p) for p in (*reversed(home.parents), home)))
        self.root = ("/", ("/",))
        self.cwd = (str(cwd), ())

    def candidates(self, path: str, parts: list[str]) -> tuple[str, Iterator[str]]:
        """The concrete path on this host and the paths to look at, outermost first. The
        paths are made as they are looked at: the walk stops at the first missing one, so a
        policy path of a million characters is not cut into a million prefixes."""
        if path == "~" or path.startswith("~/"):
            (start, found), parts = self.home, parts[1:]
        elif path.startswith("/"):
            start, found = self.root
        else:
            start, found = self.cwd
        # os.path.join's result (parts hold no "/"; only the root ends with one)
        sep = "" if start.endswith("/") else "/"
        concrete = f"{start}{sep}{'/'.join(parts)}" if parts else start
        return concrete, chain(found, _below(start, sep, parts))


def _below(start: str, sep: str, parts: list[str]) -> Iterator[str]:
    current, joiner = start, sep
    for part in parts:
        current = f"{current}{joiner}{part}"
        joiner = "/"
        yield current


def _spelled(resolved: Path, home: Path, tail: list[str]) -> str:
    """The real path as the policy would write it: ``~/`` when it lies under the home, unless
    the home is itself a symlink (then ``~`` is the spelling to avoid)."""
    text = str(resolved)
    if Path(os.path.realpath(home)) == home and (resolved == home or home in resolved.parents):
        inner = PurePosixPath(resolved.relative_to(home))
        text = "~" if resolved == home else f"~/{inner}"
    return "/".join([text, *tail]) if tail else text


def symlink_findings(policy: Policy, home: Path, cwd: Path) -> list[Finding]:
    """TWS220 for every policy path that is a symlink on this host or lies under one.

    ``home`` is the home of the user running the check, not the pinned output home: the
    finding is about the paths on this machine."""
    findings: list[Finding] = []
    lookups, starts = _Lookups(), _Starts(home, cwd)
    for key, rule in _rules(policy):
        parts, tail = _concrete(rule)
        concrete, candidates = starts.candidates(rule.path, parts)
        link = lookups.first_symlink(candidates)
        if link is None:
            continue
        resolved = Path(os.path.realpath(concrete))
        target = os.readlink(link)
        findings.append(
            finding(
                SYMLINKED_POLICY_PATH,
                f"{key} '{quoted(rule.path)}' goes through a symlink on this host: "
                f"'{quoted(link)}' points to '{quoted(target)}', so the path is really "
                f"'{quoted(_spelled(resolved, home, tail))}'. Codex does not match a write root "
                "and a deny when one is spelled through the symlink and the other by the real "
                "path (the denied directory stays writable), and it refuses to start when a "
                "denyRead crosses a symlink inside a writable directory; write the real path in "
                "every rule",
                rule.origin,
            )
        )
    return findings


def file_root_findings(policy: Policy, home: Path, cwd: Path) -> list[Finding]:
    """TWS221 for every plain allowWrite path that exists on this host and is not a directory
    (``home`` is the running user's, as for the symlink check)."""
    findings: list[Finding] = []
    starts = _Starts(home, cwd)
    for rule in policy.allow_write:
        parts, tail = _concrete(rule)
        if tail:
            continue  # a glob grant: Codex skips it (TWS408)
        concrete, _ = starts.candidates(rule.path, parts)
        try:
            if not os.path.exists(concrete) or os.path.isdir(concrete):
                continue
        except (OSError, ValueError):
            continue
        findings.append(
            finding(
                WRITE_ROOT_NOT_DIRECTORY,
                f"allowWrite '{quoted(rule.path)}' is a file on this host, not a directory: Codex "
                "takes only directories as write roots and then fails every sandbox start (it "
                "mounts protected entries such as .git inside each root); grant a directory that "
                "holds only what may be written, or leave the file out",
                rule.origin,
                agent="codex",
            )
        )
    return findings
