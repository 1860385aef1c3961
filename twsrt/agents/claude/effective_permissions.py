"""What a user's Claude Code permissions grant beyond the policy (``effective.py``'s check of
each settings layer calls it): bypassPermissions where the policy asks, additional directories
that become write roots, and allow rules that reach what the policy denies, asks for or does not
allow (Bash commands, WebFetch hosts, Read/Edit paths)."""

from __future__ import annotations

from collections.abc import Callable

from twsrt.agents.claude.declaration import NAME, WEBFETCH_PREFIX
from twsrt.effective import (
    Layer,
    PolicyView,
    child,
    command_reaches,
    report,
    srt_key,
    strings,
)
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.policy import Policy
from twsrt.rules import (
    USER_ALLOW_SHADOWED,
    USER_NETWORK_GRANT,
    USER_SKIPS_APPROVAL,
    USER_WRITE_ROOT,
)

WHOLE_TOOLS = ("Bash", "Read", "Edit", "WebFetch")


def permission_findings(
    layer: Layer, view: PolicyView, yolo: bool, owned: Callable[[str], bool]
) -> list[Finding]:
    """User permissions that skip the policy's approvals, add write roots or allow what it
    does not."""
    permissions = child(layer.value, "permissions")
    out: list[Finding] = []
    if not yolo and child(permissions, "defaultMode") == "bypassPermissions":
        out.append(
            report(
                USER_SKIPS_APPROVAL,
                "permissions.defaultMode bypassPermissions answers the policy's ask rules with "
                "yes without asking (the deny rules still apply), and lets WebFetch and "
                "WebSearch, which run outside the sandbox, reach hosts no rule names; only the "
                "yolo target, which denies both, may skip approvals",
                layer,
                "/permissions/defaultMode",
                NAME,
                [e.origin for e in view.policy.bash_ask[:1]],
            )
        )
    if view.sandboxed:
        for path, pointer in strings(
            child(permissions, "additionalDirectories"), "/permissions/additionalDirectories"
        ):
            if view.absolute(path) and view.writable(path) is None:
                out.append(
                    report(
                        USER_WRITE_ROOT,
                        f"permissions.additionalDirectories '{quoted(path)}' becomes a write root "
                        "of Claude's sandbox, outside the policy's allowWrite",
                        layer,
                        pointer,
                        NAME,
                        _allow_write_origin(view),
                        key=False,
                    )
                )
    managed_allow = owned("permissions.deny")  # a target: WebFetch(domain:) allows are twsrt's
    for rule, pointer in strings(child(permissions, "allow"), "/permissions/allow"):
        if managed_allow and rule.startswith(WEBFETCH_PREFIX):
            continue
        found = _allow_rule(rule, view, layer, pointer, view.sandboxed)
        if found is not None:
            out.append(found)
    return out


def _allow_write_origin(view: PolicyView) -> list[Location]:
    return srt_key(view.policy, "/filesystem/allowWrite")


def _allow_rule(
    rule: str, view: PolicyView, layer: Layer, pointer: str, sandboxed: bool
) -> Finding | None:
    tool, _, rest = rule.partition("(")
    if not rest.endswith(")") or tool not in WHOLE_TOOLS:
        return None  # a bare tool or another tool names nothing the policy speaks of
    spec = rest[:-1]
    if tool == "Bash":
        return _bash_allow(rule, spec, view.policy, layer, pointer)
    if tool == "WebFetch":
        return _webfetch_allow(rule, spec, view, layer, pointer)
    return _path_allow(rule, tool, spec, view, layer, pointer, sandboxed)


def _bash_allow(rule: str, spec: str, policy: Policy, layer: Layer, pointer: str) -> Finding | None:
    """A Bash allow rule that reaches a command the policy denies or asks for."""
    for kind, entries in (("deny", policy.bash_deny), ("ask", policy.bash_ask)):
        reached = next((e for e in entries if command_reaches(spec, e.value)), None)
        if reached is not None:
            return _shadowed(
                rule,
                f"the policy's bash {kind} '{quoted(reached.value)}'",
                kind,
                layer,
                pointer,
                reached.origin,
            )
    return None


def _webfetch_allow(
    rule: str, spec: str, view: PolicyView, layer: Layer, pointer: str
) -> Finding | None:
    """A WebFetch allow rule for a host the policy denies or does not allow."""
    if not spec.startswith("domain:"):
        return None
    host = spec.removeprefix("domain:")
    denied = view.domain_denied(host)
    if denied is not None:
        return _shadowed(
            rule,
            f"the policy's deniedDomains '{quoted(denied.value)}'",
            "deny",
            layer,
            pointer,
            denied.origin,
        )
    if view.domain_allowed(host):
        return None
    return report(
        USER_NETWORK_GRANT,
        f"allow rule '{quoted(rule)}' lets WebFetch reach '{quoted(host)}' without asking, and "
        "Claude adds it to its sandbox's allowed hosts; the policy's allowedDomains does not "
        "list it",
        layer,
        pointer,
        NAME,
        srt_key(view.policy, "/network/allowedDomains"),
        key=False,
    )


def _path_allow(
    rule: str, tool: str, path: str, view: PolicyView, layer: Layer, pointer: str, sandboxed: bool
) -> Finding | None:
    """A Read/Edit allow rule for a denied path, or an Edit rule that adds a write root."""
    policy = view.policy
    if not view.absolute(path):
        return None  # relative to the working directory, which Claude's sandbox writes anyway
    rules = policy.deny_read if tool == "Read" else [*policy.deny_write, *policy.deny_read]
    hit = view.denied(path, rules)
    if hit is not None:
        what = "denyRead" if hit in policy.deny_read else "denyWrite"
        return _shadowed(
            rule, f"the policy's {what} '{quoted(hit.path)}'", "deny", layer, pointer, hit.origin
        )
    if tool == "Edit" and sandboxed and view.writable(path) is None:
        return report(
            USER_WRITE_ROOT,
            f"allow rule '{quoted(rule)}' becomes a write root of Claude's sandbox, outside the "
            "policy's allowWrite",
            layer,
            pointer,
            NAME,
            _allow_write_origin(view),
            key=False,
        )
    return None


def _shadowed(
    rule: str, what: str, kind: str, layer: Layer, pointer: str, origin: Location
) -> Finding:
    return report(
        USER_ALLOW_SHADOWED,
        f"allow rule '{quoted(rule)}' names what {what} covers; Claude evaluates {kind} rules "
        "before allow rules, so the policy still holds while that rule is there — remove the "
        "allow entry",
        layer,
        pointer,
        NAME,
        [origin],
        key=False,
    )
