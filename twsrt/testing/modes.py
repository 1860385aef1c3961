"""The probe plan for the configured sandbox mode.

workspace-write probes the policy as written. read-only grants no write root in any agent's
files, so the policy's write roots are probed as roots that must refuse a write (and no
allow-write probe expects success). danger-full-access runs nothing: the run reports that there
is nothing to enforce (``Verdict.UNENFORCED``) instead of probing.
"""

from __future__ import annotations

from dataclasses import replace

from twsrt.policy import Policy
from twsrt.testing.derive import derive
from twsrt.testing.model import Fixtures, Outcome, Plan

READ_ONLY_ROOT = "read-only-root"


def mode_policy(policy: Policy, sandbox_mode: str) -> Policy:
    """The policy as the mode leaves it in force (read-only: without write roots)."""
    if sandbox_mode == "read-only":
        return replace(policy, allow_write=[])
    return policy


def plan_for_mode(policy: Policy, sandbox_mode: str, depths: bool = False) -> Plan:
    """``depths``: relative ``**/`` denies probed at several depths (``derive``)."""
    plan = derive(mode_policy(policy, sandbox_mode), depths)
    if sandbox_mode != "read-only":
        return plan
    full = derive(policy)
    roots = tuple(
        replace(p, kind=READ_ONLY_ROOT, expect=Outcome.DENIED)
        for p in full.probes
        if p.kind == "allow-write"
    )
    dirs = set(plan.fixtures.dirs) | set(full.fixtures.dirs)
    files = (set(plan.fixtures.files) | set(full.fixtures.files)) - dirs
    sockets = set(plan.fixtures.sockets) | set(full.fixtures.sockets)
    fixtures = Fixtures(tuple(sorted(dirs)), tuple(sorted(files)), tuple(sorted(sockets)))
    return Plan(plan.probes + roots, fixtures)
