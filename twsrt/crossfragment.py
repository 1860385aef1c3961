"""Fragments of one profile that disagree (TWS222, fragment-conflict), pure over the composed
Policy: one fragment grants what another restricts, so which one the profile means cannot be
known. Within one file the same pairs are srt's own semantics (a deny beats an allow, an
allowRead carves a hole in a denyRead) and stay as they are.

- a bash command one fragment allows and another denies or asks for, a domain one allows and
  another denies (the same value, normalized);
- a write root one fragment allows and another denies, compared in one spelling per path
  (regions.py: ``~//a``, ``/proc/self/root/...``, the pinned home's absolute spelling);
- an allowRead of one fragment that re-opens any part of another fragment's denyRead (inside
  it, around it or the same path) which that fragment does not re-open itself;
- an srt switch that grants (srtkeys.py: routes traffic past the allowlist or loosens
  enforcement) set by one fragment and not set alike by another fragment with srt settings:
  it undoes what the other fragment's rules enforce.

``path_conflicts`` takes ``Anchors`` whose ``links`` may add the host's symlink spellings; the
host check (hostchecks.py) reports only what those add.
"""

from __future__ import annotations

from typing import Any

from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy
from twsrt.regions import Anchors, Holders, Meeting, Region, all_regions, reopened, undecided
from twsrt.rules import FRAGMENT_CONFLICT

# Grants compared as lists with their restrictions (paths here, domains with their denies).
_LISTS = ("/filesystem/allowRead", "/filesystem/allowWrite", "/network/allowedDomains")


def fragment_conflicts(policy: Policy, anchors: Anchors) -> list[Finding]:
    """Every TWS222 of a composed policy (none without fragments)."""
    if not policy.fragments:
        return []
    return _entries(policy) + path_conflicts(policy, anchors) + switch_conflicts(policy)


def _fragment(policy: Policy, item: PathRule | Entry | Region) -> str:
    rule = item.rule if isinstance(item, Region) else item
    return policy.fragment_of(rule.origin)


def _entries(policy: Policy) -> list[Finding]:
    """Bash rules and domains: the same value allowed in one fragment, refused in another."""
    out = []
    for allows, denies, verb, key in (
        (policy.bash_allow, policy.bash_deny, "denied (deny)", _command_key),
        (policy.bash_allow, policy.bash_ask, "asked for (ask)", _command_key),
        (policy.allowed_domains, policy.denied_domains, "denied (deniedDomains)", _domain_key),
    ):
        by_key: dict[str, list[Entry]] = {}
        for item in denies:
            by_key.setdefault(key(item.value), []).append(item)
        for item in allows:
            mine = _fragment(policy, item)
            other = next(
                (d for d in by_key.get(key(item.value), ()) if _fragment(policy, d) != mine), None
            )
            if other is not None:
                out.append(_conflict(policy, item.value, item.origin, verb, other.origin))
    return out


def _conflict(policy: Policy, value: str, at: Location, verb: str, where: Location) -> Finding:
    message = (
        f"fragment-conflict: '{quoted(value)}' is allowed in fragment "
        f'"{quoted(policy.fragment_of(at))}" but {verb} at {where} '
        f'(fragment "{quoted(policy.fragment_of(where))}")'
    )
    return finding(FRAGMENT_CONFLICT, message, at, related=(where,))


def _command_key(value: str) -> str:
    return " ".join(value.split())


def _domain_key(value: str) -> str:
    return value.lower()


def path_conflicts(policy: Policy, anchors: Anchors, *, via_only: bool = False) -> list[Finding]:
    """Write roots and reads (see the module). ``via_only``: only the conflicts a symlink on
    this host shows (the regions found through ``anchors.links``)."""
    out: list[Finding] = []
    seen: set[int] = set()
    pairs = [(g, d, "denyWrite") for g, d in _write_pairs(policy, anchors)]
    pairs += [(g, d, "denyRead") for g, d in _read_pairs(policy, anchors)]
    for grant, deny, kind in pairs:
        if id(grant.rule) in seen or (via_only and grant.via is None and deny.via is None):
            continue
        seen.add(id(grant.rule))
        out.append(_path_finding(policy, grant, deny, kind))
    return out


def _write_pairs(policy: Policy, anchors: Anchors) -> list[tuple[Region, Region]]:
    denies: dict[tuple[str, str, str], list[Region]] = {}
    for deny in all_regions(policy.deny_write, anchors):
        denies.setdefault((deny.base, deny.kind, deny.path), []).append(deny)
    out = []
    for grant in all_regions(policy.allow_write, anchors):
        mine = _fragment(policy, grant)
        same = denies.get((grant.base, grant.kind, grant.path), ())
        other = next((d for d in same if _fragment(policy, d) != mine), None)
        if other is not None:
            out.append((grant, other))
    return out


def _read_pairs(policy: Policy, anchors: Anchors) -> list[tuple[Region, Region]]:
    """Each allowRead with the first denyRead of another fragment it re-opens part of."""
    denies = all_regions(policy.deny_read, anchors)
    order = {id(deny): index for index, deny in enumerate(denies)}
    names = sorted({_fragment(policy, deny) for deny in denies})
    allows = all_regions(policy.allow_read, anchors)
    meeting = {n: Meeting([d for d in denies if _fragment(policy, d) == n]) for n in names}
    carving = {n: Holders([a for a in allows if _fragment(policy, a) == n]) for n in names}
    out = []
    for grant in allows:
        mine = _fragment(policy, grant)
        found = []
        for name in names:
            if name == mine:
                continue  # within one fragment: srt's carve-out
            hit = (
                deny
                for deny in meeting[name].meeting(grant, first_foreign=True)
                if not reopened(deny, grant, carving[name])
            )
            first = next(hit, None)
            if first is not None:
                found.append(first)
        if found:
            out.append((grant, min(found, key=lambda deny: order[id(deny)])))
    return out


def _path_finding(policy: Policy, grant: Region, deny: Region, kind: str) -> Finding:
    verb = f"denied ({kind})"
    where = deny.rule.origin
    same = (grant.base, grant.kind, grant.path) == (deny.base, deny.kind, deny.path)
    if same:
        found = _conflict(policy, grant.rule.path, grant.rule.origin, verb, where)
        message = found.message
    else:
        message = (
            f"fragment-conflict: '{quoted(grant.rule.path)}' is allowed (allowRead) in fragment "
            f'"{quoted(_fragment(policy, grant))}" and re-opens reads of '
            f"'{quoted(deny.rule.path)}', {verb} at {where} (fragment "
            f'"{quoted(_fragment(policy, deny))}"), which that fragment does not re-open'
        )
    for region in (grant, deny):
        if region.via is not None:
            message += (
                f"; '{quoted(region.rule.path)}' is '{quoted(region.via)}' through a symlink "
                "on this host"
            )
    if undecided(grant, deny):
        message += "; no home is pinned, so '~' may be any directory: pin `home` to compare"
    return finding(FRAGMENT_CONFLICT, message, grant.rule.origin, related=(where,))


def switch_conflicts(policy: Policy) -> list[Finding]:
    """A granting srt switch one fragment sets and another fragment with srt settings does not
    set alike, at the switch, naming the other fragment's file."""
    from twsrt.agents.srtkeys import LOWER_LOOSENS, SRT_KEYS, dotted, set_keys

    parts = getattr(policy.srt_locator, "parts", None) or []
    documents = [(part, part.parsed.value) for part in parts if isinstance(part.parsed.value, dict)]
    if len(documents) < 2:
        return []
    out = []
    for part, document in documents:
        for pointer in set_keys(document):
            value = _at(document, pointer)
            if pointer in LOWER_LOOSENS:
                loosens = type(value) is int and value < LOWER_LOOSENS[pointer]
            else:
                loosens = SRT_KEYS[pointer].effect == "grants" and pointer not in _LISTS
            if not loosens:
                continue
            other = next(
                (o for o, doc in documents if o is not part and _at(doc, pointer) != value), None
            )
            if other is None:
                continue
            message = (
                f"fragment-conflict: '{quoted(dotted(pointer))}' is set in fragment "
                f'"{quoted(part.fragment)}" and not alike in fragment "{quoted(other.fragment)}" '
                f"({other.display}): {SRT_KEYS[pointer].why}, which undoes what the other "
                "fragment's rules enforce; set it alike in every fragment with srt settings, "
                "or in none"
            )
            related = (other.location(""),)
            out.append(finding(FRAGMENT_CONFLICT, message, part.location(pointer), related=related))
    return out


def _at(document: dict[str, Any], pointer: str) -> Any:
    node: Any = document
    for token in pointer[1:].split("/"):
        if not isinstance(node, dict):
            return None
        node = node.get(token)
    return node
