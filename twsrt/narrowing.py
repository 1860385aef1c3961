"""A project policy may only narrow the user policy it is checked against (TWS225).

The agents load a project's files on top of the user's. Claude Code concatenates the permission
and sandbox lists of every scope (deny wins over allow, allowRead re-opens a denyRead), so a
project GRANT the user lacks widens what the agent may do there. DeepCode replaces a user list
with the project's, and Codex merges its config layers key by key, so for them a user
RESTRICTION the project leaves out widens too. ``narrowing_findings`` reports both, the second
only when an agent that replaces lists loads the project (``replacing``).

Pure: it compares two Policies and never looks at the disk. Paths are compared as written after
``normalize_path``; ``Anchors`` places ``~`` and relative paths when the caller knows the home
and the project root. A comparison it cannot decide (a glob, ``~`` against an absolute path with
no home, a ``..`` that climbs out) counts as not covered and as overlapping: a finding, never a
silent pass.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from twsrt.bashrules import command_holders
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy, has_dots, is_glob
from twsrt.rules import PROJECT_WIDENS_USER
from twsrt.testing.domains import domain_holders, domain_within, domains_meet, entry_key

# Agents whose project layer keeps the user's lists beside the project's (Claude Code: "Merged
# across settings sources"); every other agent is taken to replace them (DeepCode does; Codex
# selects the project layer's own permission profile), which is the cautious reading. The bash
# rules: Codex also collects the project's .rules files with the user's, strictest wins.
MERGING_AGENTS = frozenset({"claude"})
MERGING_RULES_AGENTS = frozenset({"claude", "codex"})


# ------------------------------------------------------------------------------------ paths


@dataclass(frozen=True)
class Anchors:
    """Where ``~`` and relative paths lie: ``home`` (absolute) expands ``~`` on both sides, and
    ``root`` (the project root, absolute or ``~/...``) anchors relative paths of both policies.
    Relative paths of the user policy anchor at the launch directory, which is the project root
    when the agent loads the project's files (they are found in the launch directory)."""

    home: str | None = None
    root: str | None = None

    def resolve(self, path: str) -> str | None:
        """``path`` in one namespace (``/abs``, ``~/x``, ``./x``), or None when it cannot be
        placed (a ``..`` left by ``fold_dots``)."""
        if has_dots(path.removeprefix("./")):
            return None
        if path == "~" or path.startswith("~/"):
            return self.home + path[1:] if self.home else path
        if path.startswith("/"):
            return path
        rel = "" if path == "." else path.removeprefix("./")
        if self.root is None:
            return "./" + rel if rel else "."
        root = self.resolve(self.root) or self.root
        return posixpath.join(root, rel) if rel else root


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


@dataclass(frozen=True)
class Region:
    """What a path rule touches: ``base`` and every path below it (``tree``), every path
    strictly below it (``below``: ``P/**``), or only some paths below it (``some``: a glob,
    whose ``base`` is the directory before its first glob character)."""

    rule: PathRule
    base: str
    kind: str  # "tree", "below" or "some"

    def holds(self, other: Region) -> bool:
        """Every path of ``other`` is in this region (undecidable counts as no)."""
        if self.kind == "tree":
            return _within(other.base, self.base)
        if self.kind == "below":
            inside = other.base != self.base and _within(other.base, self.base)
            return inside or (other.kind == "below" and other.base == self.base)
        return self.base == other.base and self.rule.path == other.rule.path

    def meets(self, other: Region) -> bool:
        return _overlap(self.base, other.base)


def region(rule: PathRule, anchors: Anchors) -> Region | None:
    path, kind = rule.path, "tree"
    if rule.glob:
        path = path.removesuffix("/**") or "/"
        kind = "below" if path != rule.path else "some"
        if is_glob(path):  # the directory before the first glob character
            head = path[: min(path.index(c) for c in "*?[]{}" if c in path)]
            path, kind = head.rpartition("/")[0] or ("/" if head.startswith("/") else "."), "some"
    base = anchors.resolve(path)
    return None if base is None else Region(rule, base, kind)


def _ancestors(base: str) -> list[str]:
    """``base`` and each directory above it, in its namespace (``/a/b``, ``/a``, ``/``)."""
    out = [base]
    while head := base.rpartition("/")[0]:
        out.append(head)
        base = head
    return [*out, "/"] if base.startswith("/") and base != "/" else out


class Holders:
    """Regions indexed by base, so whether any of them holds a region costs that region's
    depth, not a scan of every region (the same answer as ``Region.holds`` for each)."""

    def __init__(self, regions: Sequence[Region]) -> None:
        self.tree = {r.base for r in regions if r.kind == "tree"}
        self.below = {r.base for r in regions if r.kind == "below"}
        self.some = {(r.base, r.rule.path) for r in regions if r.kind == "some"}

    def hold(self, other: Region) -> bool:
        if "/" in self.tree or (other.base, other.rule.path) in self.some:
            return True
        if other.kind == "below" and other.base in self.below:
            return True
        above = _ancestors(other.base)
        return any(a in self.tree for a in above) or any(a in self.below for a in above[1:])


def _regions(rules: Sequence[PathRule], anchors: Anchors) -> list[Region]:
    """Each rule's region; a rule that cannot be placed is a region of everything (``/``)."""
    return [region(r, anchors) or Region(r, "/", "some") for r in rules]


# ---------------------------------------------------------------------------------- domains


def _domain_index(entries: Sequence[Entry]) -> set[tuple[str, int | None]]:
    return {entry_key(entry.value) for entry in entries}


def _domain_held(entry: str, index: set[tuple[str, int | None]]) -> bool:
    return any(key in index for key in domain_holders(entry))


# ------------------------------------------------------------------------------------- bash


def _rule_index(entries: Sequence[Entry]) -> dict[str, Entry]:
    """Rules by their text, the first of equal ones."""
    return {entry.value: entry for entry in reversed(entries)}


def _held(command: str, index: dict[str, Entry]) -> list[Entry]:
    return [index[rule] for rule in command_holders(command) if rule in index]


# --------------------------------------------------------------------------------- findings


@dataclass(frozen=True)
class _Check:
    """One comparison: the two policies, the anchors, and who replaces the user's lists."""

    project: Policy
    user: Policy
    anchors: Anchors
    replacing: tuple[str, ...] | None

    @property
    def strict(self) -> bool:
        return self.replacing is None or bool(self.replacing)

    def widens(self, what: str, why: str, at: Location, *related: Location) -> Finding:
        message = f"project {what} {why}"
        return finding(PROJECT_WIDENS_USER, message, at, related=tuple(related))

    def ungranted(self, what: str, kind: str, where: str, at: Location) -> Finding:
        why = f"is not granted by the user policy: no {kind} of {where} holds all of it"
        return self.widens(what, why, at)

    def drops(self, what: str, value: str, origin: Location, at: Location) -> Finding:
        who = (
            " and ".join(self.replacing)
            if self.replacing
            else "an agent that replaces the user's lists"
        )
        message = (
            f"the user policy {what} '{quoted(value)}' ({origin}) and this project policy "
            f"does not: {who} load{'' if len(self.replacing or ()) > 1 else 's'} the "
            "project's list in place of the user's, so it no longer holds there; restate it here"
        )
        return finding(PROJECT_WIDENS_USER, message, at, related=(origin,))

    def list_at(self, policy: Policy, pointer: str, bash: bool = False) -> Location:
        """Where a project list is (its key), for a restriction it leaves out."""
        if bash:
            return policy.bash_location(pointer, key=True)
        return policy.srt_location(pointer, key=True)


def narrowing_findings(
    project: Policy,
    user: Policy,
    *,
    anchors: Anchors | None = None,
    replacing: Sequence[str] | None = None,
    replacing_rules: Sequence[str] | None = None,
) -> list[Finding]:
    """Every project grant the user policy does not grant, at the project rule, naming the user
    policy's rule or file; and, unless ``replacing`` is empty (only agents that keep the user's
    lists load the project), every user restriction the project leaves out. ``replacing``
    names those agents for the message (None: unknown, checked as if one did);
    ``replacing_rules`` the same for the bash rules (default: ``replacing``)."""
    check = _Check(
        project, user, anchors or Anchors(), None if replacing is None else tuple(replacing)
    )
    rules = check if replacing_rules is None else replace(check, replacing=tuple(replacing_rules))
    out = _bash(rules) + _paths(check) + _domains(check) + _switches(check)
    return list(dict.fromkeys(out))


def _bash(check: _Check) -> list[Finding]:
    project, user = check.project, check.user
    out: list[Finding] = []
    restricting = _rule_index([*project.bash_deny, *project.bash_ask])
    granting = _rule_index(user.bash_allow)
    refusing = [("denies", _rule_index(user.bash_deny)), ("asks for", _rule_index(user.bash_ask))]
    for allow in project.bash_allow:
        command = allow.value
        if _held(command, restricting):
            continue  # the project itself denies or asks it: the allow grants nothing
        what = f"bash allow '{quoted(command)}'"
        if not _held(command, granting):
            out.append(check.ungranted(what, "allow rule", user.bash_display, allow.origin))
        for kind, index in refusing:
            for rule in _held(command, index):
                why = f"runs without asking what the user policy {kind}: {_named(rule)}"
                out.append(check.widens(what, why, allow.origin, rule.origin))
    if check.strict:
        out += _dropped_commands(check)
    return out


def _dropped_commands(check: _Check) -> list[Finding]:
    project, user = check.project, check.user
    out = []
    for kind, rules, kept in (
        ("denies", user.bash_deny, project.bash_deny),
        ("asks for", user.bash_ask, [*project.bash_deny, *project.bash_ask]),
    ):
        pointer = "/deny" if kind == "denies" else "/ask"
        index = _rule_index(kept)
        for rule in rules:
            if not _held(rule.value, index):
                at = check.list_at(project, pointer, bash=True)
                out.append(check.drops(f"{kind} the command", rule.value, rule.origin, at))
    return out


def _paths(check: _Check) -> list[Finding]:
    anchors = check.anchors
    project, user = check.project, check.user
    p_write, p_deny_write = (
        _regions(project.allow_write, anchors),
        _regions(project.deny_write, anchors),
    )
    u_write, u_deny_write = _regions(user.allow_write, anchors), _regions(user.deny_write, anchors)
    u_read, u_deny_read = _regions(user.allow_read, anchors), _regions(user.deny_read, anchors)
    out: list[Finding] = []
    taken_back, reopening, roots = Holders(p_deny_write), Holders(u_read), Holders(u_write)
    for grant in p_write:
        if taken_back.hold(grant):
            continue  # denyWrite wins: the project's own deny takes the grant back
        out += _write_grant(check, grant, roots, u_deny_write, taken_back)
    for grant in _regions(project.allow_read, anchors):
        for deny in u_deny_read:
            if deny.meets(grant) and not _reopened(deny, grant, reopening):
                what = f"allowRead '{quoted(grant.rule.path)}'"
                why = (
                    f"re-opens reads the user policy denies: '{quoted(deny.rule.path)}' "
                    f"({deny.rule.origin}), which the user policy does not re-open"
                )
                out.append(check.widens(what, why, grant.rule.origin, deny.rule.origin))
                break
    if check.strict:
        restated = Holders(_regions(project.deny_read, anchors))
        at = check.list_at(project, "/filesystem/denyRead")
        for deny in u_deny_read:
            if _reopened(deny, deny, reopening) or restated.hold(deny):
                continue
            out.append(check.drops("denies reads of", deny.rule.path, deny.rule.origin, at))
    return out


def _write_grant(
    check: _Check,
    grant: Region,
    roots: Holders,
    u_deny_write: list[Region],
    taken_back: Holders,
) -> list[Finding]:
    what = f"allowWrite '{quoted(grant.rule.path)}'"
    out = []
    if not roots.hold(grant):
        at = grant.rule.origin
        out.append(check.ungranted(what, "allowWrite root", check.user.srt_display, at))
    for deny in u_deny_write:
        if deny.holds(grant):
            why = f"lies inside the user policy's denyWrite {_named(deny.rule)}"
            out.append(check.widens(what, why, grant.rule.origin, deny.rule.origin))
        elif check.strict and deny.meets(grant) and not taken_back.hold(deny):
            at = check.list_at(check.project, "/filesystem/denyWrite")
            out.append(check.drops("denies writes to", deny.rule.path, deny.rule.origin, at))
    return out


def _reopened(deny: Region, grant: Region, allows: Holders) -> bool:
    """Whether the user's allowRead re-opens all of what ``grant`` shares with ``deny``."""
    shared = grant if deny.holds(grant) else deny if grant.holds(deny) else grant
    return allows.hold(shared)


def _domains(check: _Check) -> list[Finding]:
    project, user = check.project, check.user
    out: list[Finding] = []
    refused, admitted = _domain_index(project.denied_domains), _domain_index(user.allowed_domains)
    nearby = _Nearby(user.denied_domains)
    for entry in project.allowed_domains:
        if _domain_held(entry.value, refused):
            continue  # deniedDomains is checked first: the project refuses it itself
        what = f"allowedDomains entry '{quoted(entry.value)}'"
        if not _domain_held(entry.value, admitted):
            where = user.srt_display
            out.append(check.ungranted(what, "allowedDomains entry", where, entry.origin))
        out += _denied_domains(check, entry, what, refused, nearby)
    return out


class _Nearby:
    """The user's deniedDomains by host (``*`` and ``*.x`` as written) and under every
    ``*.suffix`` of their host, so the entries that can meet one allowed entry are looked up
    instead of scanned: those that hold it, those with its host, those below its wildcard."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.by_host: dict[str, list[Entry]] = {}
        self.below: dict[str, list[Entry]] = {}
        for entry in entries:
            host, _port = entry_key(entry.value)
            self.by_host.setdefault(host, []).append(entry)
            for i, char in enumerate(host):
                if char == "." and i:
                    self.below.setdefault("*" + host[i:], []).append(entry)
        self.everything = list(entries)

    def meeting(self, entry: str) -> list[Entry]:
        host, _port = entry_key(entry)
        if host == "*":
            return self.everything
        found = [e for pattern, _ in domain_holders(entry) for e in self.by_host.get(pattern, ())]
        found += self.by_host.get(host, []) + self.below.get(host, [])
        return list(dict.fromkeys(found))


def _denied_domains(
    check: _Check,
    entry: Entry,
    what: str,
    refused: set[tuple[str, int | None]],
    nearby: _Nearby,
) -> list[Finding]:
    out = []
    for deny in nearby.meeting(entry.value):
        if domain_within(entry.value, deny.value):
            why = f"admits what the user policy denies: {_named(deny)}"
            out.append(check.widens(what, why, entry.origin, deny.origin))
        elif (
            check.strict
            and domains_meet(entry.value, deny.value)
            and not _domain_held(deny.value, refused)
        ):
            at = check.list_at(check.project, "/network/deniedDomains")
            out.append(check.drops("denies the host", deny.value, deny.origin, at))
    return out


def _named(rule: Entry | PathRule) -> str:
    """A user rule as a message names it: its value and where it is written."""
    value = rule.value if isinstance(rule, Entry) else rule.path
    return f"'{quoted(value)}' ({rule.origin})"


# ------------------------------------------------------------------------- srt switches


_LISTED = frozenset(
    {
        "/filesystem/allowRead",
        "/filesystem/allowWrite",
        "/filesystem/denyRead",
        "/filesystem/denyWrite",
        "/network/allowedDomains",
        "/network/deniedDomains",
    }
)


def _value(srt: Any, pointer: str) -> Any:
    node = srt
    for part in pointer[1:].split("/"):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _at_least(value: Any, floor: Any) -> bool:
    """``value`` asks for at least what ``floor`` asks for (a restriction kept)."""
    if floor is True:
        return value is True
    if isinstance(floor, list):
        return isinstance(value, list) and all(item in value for item in floor)
    return value == floor


def _switches(check: _Check) -> list[Finding]:
    """srt keys outside the lists: a project that sets a granting key wider than the user, or
    turns the sandbox off, widens; one that leaves out a restricting key the user sets drops it
    (for agents that replace the user's keys)."""
    from twsrt.agents.srtkeys import SRT_KEYS, dotted, is_set

    project, user = check.project, check.user
    out = []
    for pointer, info in SRT_KEYS.items():
        if pointer in _LISTED or any(k.startswith(pointer + "/") for k in SRT_KEYS):
            continue
        mine, theirs = _value(project.srt, pointer), _value(user.srt, pointer)
        if pointer == "/enabled":
            if mine is False and theirs is not False:
                at = project.srt_location(pointer)
                why = f"turns the sandbox off, which the user policy keeps on ({user.srt_display})"
                out.append(check.widens("'enabled: false'", why, at))
            continue
        name = f"'{quoted(dotted(pointer))}'"
        if info.effect == "grants" and is_set(mine, pointer) and not _at_least(theirs, mine):
            at = project.srt_location(pointer)
            why = f"grants more than the user policy's ({_where(user, pointer, theirs)})"
            out.append(check.widens(name, why, at))
        elif (
            info.effect == "restricts"
            and check.strict
            and is_set(theirs, pointer)
            and not _at_least(mine, theirs)
        ):
            origin = user.srt_location(pointer)
            at = project.srt_location(pointer, key=True)
            out.append(check.drops("sets", f"{dotted(pointer)} = {theirs!r}", origin, at))
    return out


def _where(user: Policy, pointer: str, value: Any) -> str:
    if value is None:
        return f"{user.srt_display} does not set it"
    return f"{user.srt_location(pointer)}"
