"""Adversarial probes per rule, judged by their effect on the host (issue 13, item 2).

A plain probe asks the sandbox one question (can this file be read?). An attack tries what a
command that wants past the policy would try: for a denyWrite path, create, append, truncate,
delete, mkdir, rename in / out / aside, ``ln -s`` and ``ln`` tricks, and the same through
``/proc/self/root``; for a denyRead path, reading it as a file and as a directory (both when
the rule does not say which), through a symlink in the work tree and through
``/proc/self/root``; for a write root, a write inside it, through a symlinked directory, out of
it through a symlink, and in the launch directory when no rule makes it a root.

Each attack is pure data: what the host tree must hold before the run (``files``, ``dirs``,
``links``, ``absent``; ROOT-relative), the shell text (paths under ``$R``, the fixture root),
and the effect to look for afterwards *on the host* (a path exists, is gone, its content
changed, or a secret token was printed). An exit code is never the evidence: a sandbox may
fake a write into a mount that vanishes, or an error may be printed after the harm is done.

This module finds each rule's target (its path in the fixture tree, and whether it is a file,
a directory or either) and what the policy expects there; ``attack_scripts`` writes the attacks
for each target, and ``batches`` stages, runs and observes them.
"""

from __future__ import annotations

from twsrt.policy import PathRule, Policy
from twsrt.testing.attack_scripts import (
    GLOB_CHARS,
    Target,
    deny_read_dir,
    deny_read_file,
    deny_write_dir,
    deny_write_file,
    write_roots,
)
from twsrt.testing.globs import (
    Semantics,
    depth_instances,
    instantiate,
    layout_glob,
    layout_path,
)
from twsrt.testing.model import Attack, Outcome


def _target_of(kind: str, rule: PathRule) -> Target | None:
    path = rule.path
    tree = path.rstrip("/").removesuffix("/**") if rule.glob else path
    if rule.glob and (GLOB_CHARS & set(tree)):
        mapped = layout_glob(path)
        instance = instantiate(mapped) if mapped else None
        if mapped is None or instance is None:
            return None
        return Target(kind, rule, instance, "file", mapped)
    base = layout_path(tree or "/")
    if base is None or base in ("home", "work", "fs"):
        return None  # a rule on the whole home or work tree is probed by the plain probes
    if rule.glob or path.endswith("/"):
        return Target(kind, rule, base, "dir")
    return Target(kind, rule, base, "both")


def _targets(kind: str, rule: PathRule, depths: bool) -> list[tuple[Target, str]]:
    """The rule's target, and with ``depths`` a relative ``**/`` glob's targets at each depth
    of ``globs.DEPTHS`` (with the depth that tells their attacks apart)."""
    target = _target_of(kind, rule)
    out = [] if target is None else [(target, "")]
    if depths:
        out += [
            (Target(kind, rule, instance, "file", mapped), depth)
            for depth, mapped, instance in depth_instances(rule)
        ]
    return out


def _at_depth(attacks: list[Attack], depth: str) -> list[Attack]:
    from dataclasses import replace

    return [replace(a, form=f"{a.form} {depth}") for a in attacks] if depth else attacks


def derive_attacks(policy: Policy, depths: bool = False) -> list[Attack]:
    """Every attack the policy's filesystem rules imply (deterministic, ROOT-relative);
    ``depths``: also each relative ``**/`` deny at several depths (project scope)."""
    sem = Semantics.of(policy)
    end = _writable_end(policy, sem)
    out: list[Attack] = []
    for rule in policy.deny_write:
        for target, depth in _targets("deny-write", rule, depths):
            if target.shape in ("dir", "both"):
                out += _at_depth(deny_write_dir(target, end), depth)
            if target.shape in ("file", "both"):
                out += _at_depth(deny_write_file(target, end), depth)
    for rule in policy.deny_read:
        for target, depth in _targets("deny-read", rule, depths):
            probe_file = target.base if target.shape == "file" else f"{target.base}/tw-secret"
            if not sem.read_denied(probe_file):
                continue  # allowRead re-opens it entirely: nothing to attack
            if target.shape in ("file", "both"):
                out += _at_depth(deny_read_file(target), depth)
            if target.shape in ("dir", "both"):
                out += _at_depth(deny_read_dir(target), depth)
    out += write_roots(policy, sem)
    # a write root's attacks expect what the policy says at their path (a deny inside wins)
    return [_expected(a, sem) for a in out]


def _expected(attack: Attack, sem: Semantics) -> Attack:
    from dataclasses import replace

    if attack.kind.startswith("deny-"):
        return attack  # a deny wins over every grant (srt has no allow that lifts a denyWrite)
    subject = attack.subject
    allowed = sem.write_allowed(subject) and not sem.read_denied(subject)
    return replace(attack, expect=Outcome.ALLOWED if allowed else Outcome.DENIED)


def _writable_end(policy: Policy, sem: Semantics) -> str | None:
    """A write root inside the tree, the other end of rename and hardlink tricks (without
    one they would only measure whether the other end is writable, so they are left out)."""
    for rule in policy.allow_write:
        tree = rule.path.rstrip("/").removesuffix("/**") if rule.glob else rule.path
        if GLOB_CHARS & set(tree):
            continue
        base = layout_path(tree or "/")
        if base is None:
            continue
        probe = f"{base}/tw-end-probe"
        if sem.write_allowed(probe) and not sem.read_denied(probe):
            return base
    return None
