"""Policy lints: mistakes in the canonical sources that no schema can see (pure functions)."""

from __future__ import annotations

from twsrt.agents import home_dependent_keys
from twsrt.agents.abspaths import unpinned_home
from twsrt.config import Config
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy
from twsrt.rules import (
    CONTRADICTORY_COMMANDS,
    DUPLICATE_ENTRY,
    LAUNCH_RELATIVE_PATTERN,
    NO_NETWORK,
    SANDBOX_DISABLED_LINT,
    WILDCARD_WITHOUT_APEX,
    WRITE_AND_DENY_WRITE,
    WRITE_ROOT_IN_DENIED_READ,
)


def lint_policy(policy: Policy, config: Config | None = None) -> list[Finding]:
    out: list[Finding] = []
    out += _contradictions(policy)
    out += _duplicates(policy)
    out += _write_roots(policy)
    out += _wildcards(policy)
    out += _relative_patterns(policy)
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
                out.append(
                    finding(
                        CONTRADICTORY_COMMANDS,
                        f"'{quoted(entry.value)}' is in both {weak} and {strong} "
                        f"(at {other.origin}); "
                        f"{strong} wins, so this {weak} entry has no effect",
                        entry.origin,
                        related=(other.origin,),
                    )
                )
    return out


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
                    finding(
                        DUPLICATE_ENTRY,
                        f"'{quoted(key)}' is listed twice in {name} (first at {first[key]})",
                        item.origin,
                        related=(first[key],),
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
                    finding(
                        WRITE_ROOT_IN_DENIED_READ,
                        f"write root '{quoted(root.path)}' lies inside read-denied "
                        f"'{quoted(deny.path)}' (at {deny.origin})",
                        root.origin,
                        related=(deny.origin,),
                    )
                )
        deny = write_denies.get(root.path)
        if deny is not None:
            out.append(
                finding(
                    WRITE_AND_DENY_WRITE,
                    f"'{quoted(root.path)}' is in allowWrite and denyWrite (at {deny.origin}); "
                    "denyWrite wins",
                    root.origin,
                    related=(deny.origin,),
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


def _relative_patterns(policy: Policy) -> list[Finding]:
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
                        f"'{quoted(rule.path)}' in {name} is relative: it covers files below the "
                        "directory the agent is launched in, not everywhere",
                        rule.origin,
                    )
                )
    return out
