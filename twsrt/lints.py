"""Policy lints: mistakes in the canonical sources that no schema can see (pure functions)."""

from __future__ import annotations

from twsrt.agents import home_dependent_keys
from twsrt.agents.abspaths import unpinned_home
from twsrt.config import Config
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location
from twsrt.pathlints import path_lints
from twsrt.policy import Entry, PathRule, Policy
from twsrt.protection import protection_findings
from twsrt.regions import Anchors
from twsrt.rules import (
    CONTRADICTORY_COMMANDS,
    DUPLICATE_ENTRY,
    FRAGMENT_NOT_HOOKED,
    LAUNCH_RELATIVE_PATTERN,
    NO_NETWORK,
    SANDBOX_DISABLED_LINT,
    WILDCARD_WITHOUT_APEX,
    WRITE_AND_DENY_WRITE,
    WRITE_ROOT_IN_DENIED_READ,
    Rule,
)


def lint_policy(policy: Policy, config: Config | None = None) -> list[Finding]:
    out: list[Finding] = []
    out += _contradictions(policy)
    if policy.fragments:
        from twsrt.crossfragment import fragment_conflicts

        # ~ is the pinned home; unpinned, ~ and absolute paths are compared conservatively
        out += fragment_conflicts(policy, Anchors(home=config.pinned_home if config else None))
    out += _duplicates(policy)
    out += _write_roots(policy)
    out += _wildcards(policy)
    out += _relative_patterns(policy, config.scope if config else "user")
    out += path_lints(policy)
    if not policy.enabled:
        out.append(
            finding(
                SANDBOX_DISABLED_LINT,
                "the canonical sandbox is switched off (enabled = false)",
                policy.srt_location("/enabled"),
            )
        )
    network = policy.srt.get("network")
    if not policy.allowed_domains:
        pointer = (
            "/network/allowedDomains"
            if isinstance(network, dict) and ("allowedDomains" in network)
            else ""
        )
        out.append(
            finding(
                NO_NETWORK,
                "allowedDomains is empty: sandboxed commands reach no host at all",
                policy.srt_location(pointer),
            )
        )
    if config is not None and config.all_fragments:
        out += _unhooked_fragments(config)
    if config is not None:
        out += protection_findings(config, policy)
    if config is not None and config.pinned_home is None:
        for key in home_dependent_keys():
            if key in config.targets:
                out.append(unpinned_home(config, key))
    return out


def _contradictions(policy: Policy) -> list[Finding]:
    out = []
    lists = {"allow": policy.bash_allow, "deny": policy.bash_deny, "ask": policy.bash_ask}
    # (weaker list, stronger list): the weaker entry never takes effect
    for weak, strong in (("allow", "deny"), ("ask", "deny"), ("allow", "ask")):
        stronger = {entry.value: entry for entry in lists[strong]}
        for entry in lists[weak]:
            if entry.value in stronger:
                other = stronger[entry.value]
                if weak == "allow" and _across_fragments(policy, entry.origin, other.origin):
                    continue  # an error of its own (TWS222), not this note
                out.append(
                    _beside(
                        CONTRADICTORY_COMMANDS,
                        f"'{quoted(entry.value)}' is in both {weak} and {strong} "
                        f"(at {other.origin}); "
                        f"{strong} wins, so this {weak} entry has no effect",
                        entry.origin,
                        other.origin,
                    )
                )
    return out


def _beside(rule: Rule, message: str, where: Location, other: Location) -> Finding:
    """A finding about two entries of the policy: at one, the other its related place."""
    return finding(rule, message, where, related=(other,))


def _duplicates(policy: Policy) -> list[Finding]:
    out = []
    groups: list[tuple[str, list[PathRule] | list[Entry]]] = [
        ("filesystem.denyRead", policy.deny_read),
        ("filesystem.allowRead", policy.allow_read),
        ("filesystem.allowWrite", policy.allow_write),
        ("filesystem.denyWrite", policy.deny_write),
        ("network.allowedDomains", policy.allowed_domains),
        ("network.deniedDomains", policy.denied_domains),
        ("allow", policy.bash_allow),
        ("deny", policy.bash_deny),
        ("ask", policy.bash_ask),
    ]
    for name, items in groups:
        first: dict[str, Location] = {}
        for item in items:
            key = item.path if isinstance(item, PathRule) else item.value
            if key in first:
                out.append(
                    _beside(
                        DUPLICATE_ENTRY,
                        f"'{quoted(key)}' is listed twice in {name} (first at {first[key]})",
                        item.origin,
                        first[key],
                    )
                )
            else:
                first[key] = item.origin
    return out


def _ancestors(path: str) -> list[str]:
    """``path`` and every parent spelled the same way (``~/a/b`` -> ``~/a/b``, ``~/a``, ``~``)."""
    parts = path.rstrip("/").split("/")
    out = ["/".join(parts[:index]) for index in range(len(parts), 0, -1)]
    return [item or "/" for item in out]


def _write_roots(policy: Policy) -> list[Finding]:
    out = []
    # first occurrence of each concrete deny path: a dict lookup per ancestor, not a scan
    read_denies: dict[str, PathRule] = {}
    for deny in policy.deny_read:
        if not deny.glob:
            read_denies.setdefault(deny.path, deny)
    order = {id(rule): index for index, rule in enumerate(policy.deny_read)}
    write_denies: dict[str, PathRule] = {}
    for deny in policy.deny_write:
        write_denies.setdefault(deny.path, deny)
    for root in policy.allow_write:
        if not root.glob:
            hits = [read_denies[a] for a in _ancestors(root.path) if a in read_denies]
            if hits:
                deny = min(hits, key=lambda rule: order[id(rule)])
                out.append(
                    _beside(
                        WRITE_ROOT_IN_DENIED_READ,
                        f"write root '{quoted(root.path)}' lies inside read-denied "
                        f"'{quoted(deny.path)}' (at {deny.origin})",
                        root.origin,
                        deny.origin,
                    )
                )
        write_deny = write_denies.get(root.path)
        if write_deny is not None and not _across_fragments(policy, root.origin, write_deny.origin):
            out.append(
                _beside(
                    WRITE_AND_DENY_WRITE,
                    f"'{quoted(root.path)}' is in allowWrite and denyWrite "
                    f"(at {write_deny.origin}); denyWrite wins",
                    root.origin,
                    write_deny.origin,
                )
            )
    return out


def _wildcards(policy: Policy) -> list[Finding]:
    out = []
    for name, entries in (
        ("allowedDomains", policy.allowed_domains),
        ("deniedDomains", policy.denied_domains),
    ):
        present = {entry.value for entry in entries}
        for entry in entries:
            if entry.value.startswith("*.") and entry.value[2:] not in present:
                apex = quoted(entry.value[2:])
                effect = "stays reachable" if name == "deniedDomains" else "is not allowed"
                out.append(
                    finding(
                        WILDCARD_WITHOUT_APEX,
                        f"'{quoted(entry.value)}' in {name} matches subdomains only; "
                        f"'{apex}' itself {effect} — add '{apex}' if you meant it",
                        entry.origin,
                    )
                )
    return out


def _relative_patterns(policy: Policy, scope: str = "user") -> list[Finding]:
    # a project's Claude Code file anchors relative paths at the project root; srt and Codex
    # still anchor them where they start (Codex's own note, TWS458, says so per rule)
    where = (
        "the directory the agent is launched in, not everywhere"
        if scope != "project"
        else "the project root in Claude Code's project file, but below the directory srt or "
        "Codex is started in"
    )
    out = []
    for name, rules in (
        ("denyRead", policy.deny_read),
        ("denyWrite", policy.deny_write),
    ):
        for rule in rules:
            if rule.path.startswith("**/"):
                out.append(
                    finding(
                        LAUNCH_RELATIVE_PATTERN,
                        f"'{quoted(rule.path)}' in {name} is relative: it covers files below "
                        + where,
                        rule.origin,
                    )
                )
    return out


def _across_fragments(policy: Policy, one: Location, other: Location) -> bool:
    """Two entries of a composed profile written in different fragments."""
    return policy.fragment_of(one) != policy.fragment_of(other)


def _unhooked_fragments(config: Config) -> list[Finding]:
    """Fragment files whose name the pre-commit hook's ``files`` pattern does not match."""
    import re

    from twsrt.registry import hook_files_regex  # only a profile has fragments: start-up

    pattern = re.compile(hook_files_regex())
    out = []
    for name, fragment in config.all_fragments.items():
        for kind, path in fragment.files():
            display = config.display_path(path)
            if not pattern.search(path.as_posix()):
                suffix = ".srt.json" if kind == "srt" else ".bash.json"
                out.append(
                    finding(
                        FRAGMENT_NOT_HOOKED,
                        f"{display} (fragment {name}) does not match the pre-commit hook's "
                        f"files pattern: a change to it does not run the hook; name it "
                        f"*{suffix}",
                        config.location(f"/fragments/{name}/{kind}"),
                    )
                )
    return out
