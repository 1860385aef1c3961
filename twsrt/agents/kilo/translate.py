"""The pure translation of a policy for Kilo Code CLI: OpenCode's ``permission`` grammar
(``agents/opencodegrammar.py``, shared, as Kilo is OpenCode's fork and evaluates the same rules
the same way, rows 24-27) and Kilo's top-level bubblewrap
``sandbox`` (rows 33-42), with a finding for everything Kilo enforces differently."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from twsrt.agents.abspaths import HomePaths, PathTarget, grant_path, is_relative, whole_tree
from twsrt.agents.kilo.declaration import (
    HANDLED_SRT_KEYS,
    LABEL,
    NAME,
    REASONS,
    SANDBOX_KEY,
    SCHEMA_KEY,
    SCHEMA_URL,
)
from twsrt.agents.kilo.rules import KILO_WORKSPACE_OPEN
from twsrt.agents.lossy import write_roots_location
from twsrt.agents.opencodegrammar import Compiled, Who, translate_permission
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targets import disabled_sandbox
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.policy import Policy, is_glob, normalize_path
from twsrt.records import record
from twsrt.rules import UNCOMPILED_KEY_NOTE

KILO = Who(NAME, LABEL, reads_too=" (Kilo's sandbox reads every path, row 35)")
READ_ONLY = ", and the read-only mode cannot be expressed (the workspace stays writable)"
PATHS = PathTarget(NAME, LABEL, {"allowWrite": "sandbox.writable_paths"})


@record(frozen=False)
class KiloCompiled:
    """Everything twsrt writes into Kilo's config for one run."""

    rules: Compiled = field(default_factory=Compiled)
    # the top-level sandbox object; danger-full-access: {"enabled": false}
    sandbox: dict[str, Any] = field(default_factory=lambda: {"enabled": False})
    home_used: bool = False

    @property
    def origins(self) -> dict[str, Location]:
        return self.rules.origins

    def settings(self) -> dict[str, Any]:
        return {
            SCHEMA_KEY: SCHEMA_URL,
            "permission": self.rules.permission,
            SANDBOX_KEY: self.sandbox,
        }


def translate(
    policy: Policy, sandbox_mode: str, yolo: bool, home: str
) -> tuple[KiloCompiled, list[Finding]]:
    """The members for one sandbox and approval mode, with findings. The bytes do not depend
    on ``yolo`` (Kilo reads one file for every launch); only the findings do."""
    full_access = sandbox_mode == "danger-full-access"
    if not policy.enabled and not full_access:
        raise disabled_sandbox(policy, NAME, "write a Kilo sandbox")
    out = KiloCompiled()
    out.rules, findings = translate_permission(KILO, policy, sandbox_mode, yolo)
    if not full_access:
        paths = HomePaths(home)
        out.sandbox = _sandbox(policy, sandbox_mode, paths, findings)
        out.home_used = paths.used
        findings.append(
            KILO.finding(
                KILO_WORKSPACE_OPEN,
                "Kilo's sandbox leaves the workspace writable to every command: a redirect or "
                "an interpreter writes the policy's denyWrite paths there and plants a "
                "kilo.jsonc, an opencode.json or a .kilo/plugins/*.js that the next launch "
                "loads (the plugin outside the sandbox); Kilo's edit rules refuse only its own "
                "file tools there"
                + (
                    ", and the read-only mode cannot be expressed"
                    if sandbox_mode == "read-only"
                    else ""
                ),
                write_roots_location(policy),
            )
        )
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    return out, findings


def _sandbox(
    policy: Policy, sandbox_mode: str, paths: HomePaths, findings: list[Finding]
) -> dict[str, Any]:
    """``{"enabled": true, "network": "deny", "allowed_hosts": [], "writable_paths": [...]}``:
    the network closed (Kilo's host proxy cannot run as npm installs 7.7.7), and each absolute
    write root other than the workspace, which Kilo keeps writable anyway."""
    writable: list[str] = []
    if sandbox_mode != "read-only":
        for rule in policy.allow_write:
            if normalize_path(rule.path) == "." and not rule.literal:
                continue
            granted = grant_path(rule, "allowWrite", paths, findings, PATHS)
            if granted is not None and granted not in writable:
                writable.append(granted)
    _denies_in_write_roots(policy, writable, paths, findings)
    if policy.allowed_domains:
        findings.append(
            KILO.finding(
                UNCOMPILED_KEY_NOTE,
                "'network.allowedDomains' is not given to Kilo's sandbox.allowed_hosts: with "
                "any host there, Kilo 7.7.7 as npm installs it fails every call (its network "
                "relay, kilo-sandbox-network-relay.js, is not in the package; observed), so "
                "twsrt keeps the sandbox network closed (stricter)",
                policy.srt_location("/network/allowedDomains", key=True),
            )
        )
    return {"enabled": True, "network": "deny", "allowed_hosts": [], "writable_paths": writable}


# what Kilo binds read-only again inside its writable roots (its config directory)
KILO_READ_ONLY = ("~/.config/kilo",)


def _denies_in_write_roots(
    policy: Policy, writable: list[str], paths: HomePaths, findings: list[Finding]
) -> None:
    """TWS461 for the absolute denyWrite paths inside a ``writable_paths`` root, one finding
    per place they come from: Kilo binds the root read-write whole and has no per-path deny
    (the relative ones, inside the workspace, are the general TWS461's; its own config
    directory Kilo binds read-only again)."""
    kept = [paths.expand(p) for p in KILO_READ_ONLY]
    grouped: dict[Location, list[str]] = {}
    roots: dict[Location, str] = {}
    for rule in policy.deny_write:
        path = whole_tree(rule)
        if is_relative(path):
            continue
        if not rule.literal and is_glob(path):  # the directories before the first wildcard
            fixed = []
            for part in path.split("/"):
                if is_glob(part):
                    break
                fixed.append(part)
            path = "/".join(fixed) or "/"
        denied = paths.expand(path)
        if any(_under(denied, k) for k in kept):
            continue
        root = next((r for r in writable if _under(denied, r)), None)
        if root is not None:
            grouped.setdefault(rule.origin, []).append(rule.path)
            roots.setdefault(rule.origin, root)
    for origin, denies in grouped.items():
        names = ", ".join(f"'{quoted(d)}'" for d in denies)
        findings.append(
            KILO.finding(
                KILO_WORKSPACE_OPEN,
                f"Kilo's sandbox binds writable_paths '{quoted(roots[origin])}' read-write whole "
                f"and has no per-path deny: denyWrite {names} inside it "
                f"{'is' if len(denies) == 1 else 'are'} writable to every command",
                origin,
            )
        )


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
