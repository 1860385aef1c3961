"""A project policy may only narrow the user policy it is checked against (TWS225).

The agents load a project's files on top of the user's. Claude Code concatenates the permission
and sandbox lists of every scope (deny wins over allow, allowRead re-opens a denyRead), so a
project GRANT the user lacks widens what the agent may do there. DeepCode replaces a user list
with the project's, and Codex merges its config layers key by key, so for them a user
RESTRICTION the project leaves out widens too. ``narrowing_findings`` reports both, the second
only when an agent that replaces lists loads the project (``replacing``).

Pure: it compares two Policies and never looks at the disk. Paths are compared in their one
canonical spelling (regions.py: ``~//a``, ``~/./a``, ``/proc/self/root/...`` and, with a pinned
home, its absolute spelling are one path); ``Anchors`` places ``~`` and relative paths when the
caller knows the home and the project root, and may carry the host's symlink spellings (the
caller's host fact). A comparison it cannot decide (a glob, ``~`` against an absolute path with
no pinned home, a ``..`` that climbs out, ``/proc/<pid>/root``) counts as not covered and as
overlapping: a finding, never a silent pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from twsrt.agents.srtkeys import LOWER_LOOSENS, SRT_KEYS, KeyInfo, dotted, is_set
from twsrt.bashrules import command_holders
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy
from twsrt.records import record
from twsrt.regions import Anchors, Holders, Meeting, Region, all_regions, reopened, undecided
from twsrt.rules import PROJECT_WIDENS_USER
from twsrt.testing.domains import domain_holders, domain_within, domains_meet, entry_key

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


@record
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
    p_deny_write = all_regions(project.deny_write, anchors)
    u_write, u_deny_write = (
        all_regions(user.allow_write, anchors),
        all_regions(user.deny_write, anchors),
    )
    u_read, u_deny_read = (
        all_regions(user.allow_read, anchors),
        all_regions(user.deny_read, anchors),
    )
    out: list[Finding] = []
    taken_back, roots, inside = Holders(p_deny_write), Holders(u_write), Holders(u_deny_write)
    grants = [g for g in all_regions(project.allow_write, anchors) if not taken_back.hold(g)]
    for grant in grants:  # denyWrite wins: a grant the project's own deny takes back is none
        what = f"allowWrite '{quoted(grant.rule.path)}'"
        if not roots.hold(grant):
            where = check.user.srt_display
            out.append(check.ungranted(what, "allowWrite root", where, grant.rule.origin))
        for deny in inside.holding(grant):
            why = f"lies inside the user policy's denyWrite {_named(deny.rule)}" + _via(grant)
            out.append(check.widens(what, why, grant.rule.origin, deny.rule.origin))
    if check.strict:
        granted = Meeting(grants)
        at = check.list_at(project, "/filesystem/denyWrite")
        for deny in u_deny_write:
            if not taken_back.hold(deny) and granted.any(deny):
                out.append(check.drops("denies writes to", deny.rule.path, deny.rule.origin, at))
    out += _read_grants(check, u_deny_read, Holders(u_read))
    if check.strict:
        restated, reopening = Holders(all_regions(project.deny_read, anchors)), Holders(u_read)
        at = check.list_at(project, "/filesystem/denyRead")
        for deny in u_deny_read:
            if reopened(deny, deny, reopening) or restated.hold(deny):
                continue
            out.append(check.drops("denies reads of", deny.rule.path, deny.rule.origin, at))
    return out


def _read_grants(check: _Check, u_deny_read: list[Region], reopening: Holders) -> list[Finding]:
    """Each project allowRead that re-opens part of a user denyRead the user does not re-open,
    named by the first such deny."""
    out = []
    denies = Meeting(u_deny_read)
    for grant in all_regions(check.project.allow_read, check.anchors):
        for deny in denies.meeting(grant, first_foreign=True):
            if reopened(deny, grant, reopening):
                continue
            what = f"allowRead '{quoted(grant.rule.path)}'"
            why = (
                f"re-opens reads the user policy denies: '{quoted(deny.rule.path)}' "
                f"({deny.rule.origin}), which the user policy does not re-open" + _via(grant)
            )
            if undecided(deny, grant):
                why += (
                    "; no home is pinned, so '~' may be any directory: pin `home` to compare "
                    "them exactly"
                )
            out.append(check.widens(what, why, grant.rule.origin, deny.rule.origin))
            break
    return out


def _via(grant: Region) -> str:
    if grant.via is None:
        return ""
    return f" ('{quoted(grant.rule.path)}' is '{quoted(grant.via)}' through a symlink on this host)"


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


@cache
def _switch_keys() -> tuple[tuple[str, KeyInfo], ...]:
    """The srt leaves outside the lists, found once (a scan of every key for each key)."""
    return tuple(
        (pointer, info)
        for pointer, info in SRT_KEYS.items()
        if pointer not in _LISTED and not any(k.startswith(pointer + "/") for k in SRT_KEYS)
    )


def _switches(check: _Check) -> list[Finding]:
    """srt keys outside the lists: a project that sets a granting key wider than the user, or
    turns the sandbox off, widens; one that leaves out a restricting key the user sets drops it
    (for agents that replace the user's keys)."""

    project, user = check.project, check.user
    out = []
    for pointer, info in _switch_keys():
        mine, theirs = _value(project.srt, pointer), _value(user.srt, pointer)
        if pointer in LOWER_LOOSENS:
            out += _lowered(check, pointer, mine, theirs, LOWER_LOOSENS[pointer])
            continue
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


def _lowered(check: _Check, pointer: str, mine: Any, theirs: Any, default: int) -> list[Finding]:
    """A number that protects less the lower it is (``mandatoryDenySearchDepth``): lower than
    the user's (or srt's default) widens; a higher user value the project leaves out drops."""

    floor = theirs if type(theirs) is int else default
    name = f"'{quoted(dotted(pointer))}'"
    if type(mine) is int and mine < floor:
        at = check.project.srt_location(pointer)
        where = _where(check.user, pointer, theirs if type(theirs) is int else None)
        why = f"is {mine}, lower than the user policy's {floor} ({where}): it protects less"
        return [check.widens(name, why, at)]
    if check.strict and mine is None and floor > default:
        origin = check.user.srt_location(pointer)
        at = check.project.srt_location(pointer, key=True)
        return [check.drops("sets", f"{dotted(pointer)} = {theirs!r}", origin, at)]
    return []


def _where(user: Policy, pointer: str, value: Any) -> str:
    if value is None:
        return f"{user.srt_display} does not set it"
    return f"{user.srt_location(pointer)}"
