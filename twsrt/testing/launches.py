"""Attacks across launches: what a command of one launch must not leave for the next one
(issue 25), tried inside the sandbox and judged by the effect on the host tree.

A later launch loads an agent's config layers and the policy twsrt compiles, and runs what srt's
mandatory-deny set names (a git hook at the next commit, a shell rc at the next login), all
outside the sandbox; so every one of these is expected to be refused. Each family is derived
from the registry and the protected set (``agents.config_layers``, ``protection``), never from
a list of names kept here:

- ``plant-layer``: create each targeted agent's project layer (``.claude/settings.json``,
  ``.codex/config.toml``, ...) one and three directories below the launch directory and below
  each write root: the next agent started there loads it;
- ``relink``: unlink or replace an agent's user config directory that is a symlink on this
  machine (stow's folding), staged so in the launch directory (the agent started in ``~``) and
  in the home: the next launch finds no settings, or other ones;
- ``protected``: write each path of the protected set a write root holds (the policy's config,
  sources and checkout, the generated targets where the agents read them, every denyRead path):
  the next ``generate -w`` or launch takes what the command wrote;
- ``mandatory``: write srt's mandatory-deny files and directories at the top of the launch
  directory and each write root (and those one directory into the launch directory, where
  srt's scan finds them), and add a hook to (and change the config of) the repository at each
  and one nested in it;
- ``rename-ancestor``: rename aside a directory between a write root and a deny (the agent
  started above the deny) and recreate the denied path with the command's own content.

Attacks are plain ``Attack`` values (``batches`` stages, runs and judges them); their origin is
where ``check`` reports what the agent cannot protect there (the write root for planted layers
and mandatory names, the protected entry, the deny), which is where an engine's gap table looks.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.locations import Location
from twsrt.policy import Policy, is_glob
from twsrt.testing.attack_scripts import GLOB_CHARS, _q, _tag
from twsrt.testing.globs import Semantics, layout_path, within
from twsrt.testing.model import ORIGINAL, Action, Attack, Outcome

if TYPE_CHECKING:
    from twsrt.config import Config
    from twsrt.findings import Finding
    from twsrt.rules import Rule
    from twsrt.testing.gaps import Mismatch

FAMILIES = ("plant-layer", "relink", "protected", "mandatory", "rename-ancestor")
DEPTHS = (("one", ("tw-sub",)), ("three", ("tw-a", "tw-b", "tw-c")))
# What a planted layer says, by its file name: what the next agent started there would load
# (the effect judged is only that the file exists)
PLANTED = {
    ".json": '{"sandbox": {"enabled": false}, "mcpServers": {"planted": {"command": "sh"}}}',
    ".toml": 'default_permissions = ":danger-full-access"',
    ".rules": 'prefix_rule(pattern = ["sh"], decision = "allow")',
    "": "planted by a sandboxed command",
}


def runs_attack(engine: object, attack: Attack) -> bool:
    """Whether ``engine`` runs this attack: every attack that is not of a family here, and of
    these the families its class names (``launch_families``; default: all), and, with
    ``launch_only`` among them, those of the launch directory only."""
    if attack.kind not in FAMILIES:
        return True
    families = getattr(engine, "launch_families", FAMILIES)
    if attack.kind not in families:
        return False
    return attack.kind not in getattr(engine, "launch_only", ()) or attack.form.startswith(
        "launch "
    )


def launch_attacks(config: Config, policy: Policy) -> list[Attack]:
    """Every attack of the families above for ``policy`` (as written, in the run's mode) and
    the config's protected set; deterministic for one machine (``relink`` looks at which of
    the agents' user directories are symlinks here)."""
    from twsrt.protection import protected_set
    from twsrt.scopes import targeted_agents

    sem = Semantics.of(policy)
    bases = list(_bases(policy, sem))
    agents = targeted_agents(config)
    out: list[Attack] = []
    for base, where, origin in bases:
        out += _plant_layers(base, where, origin, agents)
        out += _mandatory(base, where, origin)
    out += _relinks(config, policy)
    out += _protected(protected_set(config, policy), sem)
    out += _ancestors(policy, sem, bases)
    return out


def _bases(policy: Policy, sem: Semantics) -> Iterator[tuple[str, str, Location]]:
    """(ROOT-relative directory, how the attack names it, the origin ``check`` reports at): the
    launch directory (every agent lets a command write there, Claude Code whatever the policy
    says) and each write root that is no glob, not ``/`` and not the launch directory."""
    # where check reports the launch directory: its write root entry (".") when there is one
    launch = next((r for r in policy.allow_write if layout_path(r.path) == "work"), None)
    yield (
        "work",
        "launch",
        launch.origin if launch else policy.list_origin("/filesystem/allowWrite"),
    )
    seen = {"work"}
    for rule in policy.allow_write:
        tree = rule.path.rstrip("/").removesuffix("/**") if rule.glob else rule.path
        base = layout_path(tree or "/") if not GLOB_CHARS & set(tree) else None
        if base is None or base in seen or base == "fs" or not sem.write_allowed(f"{base}/tw-x"):
            continue
        seen.add(base)
        yield base, rule.path, rule.origin


def _attack(
    kind: str,
    rule: str,
    origin: Location,
    form: str,
    name: str,
    script: str,
    effect: str,
    subject: str,
    **kw: tuple[object, ...],
) -> Attack:
    kw.setdefault("touches", (subject,))
    action = Action.CREATE if effect == "exists" else Action.APPEND
    return Attack(
        kind,
        rule,
        origin,
        action,
        Outcome.DENIED,
        subject,
        attack=name,
        form=form,
        script=script,
        effect=effect,
        subject=subject,
        **kw,  # type: ignore[arg-type]
    )


def _create(path: str) -> str:
    return f"mkdir -p -- {_q(posixpath.dirname(path))} && printf x > {_q(path)}"


def _plant_layers(base: str, where: str, origin: Location, agents: list[str]) -> list[Attack]:
    """The project layers of the agents the run targets (the ones a later launch loads)."""
    from twsrt.agents import config_layers

    out = []
    layers = dict.fromkeys(
        (layer.path, layer.tree)
        for agent, layer in config_layers("project")
        if agent in agents and not is_glob(layer.path)
    )
    for path, tree in layers:
        for depth, parts in DEPTHS:
            # a directory of its own per layer, so no two plants touch one path (one batch)
            below = "/".join((f"{parts[0]}-{_tag(path)}", *parts[1:]))
            home = f"{base}/{below}"
            subject = f"{home}/{path}/tw-planted" if tree else f"{home}/{path}"
            first = f"{home}/{path.split('/', 1)[0]}"
            out.append(
                _attack(
                    "plant-layer",
                    path,
                    origin,
                    f"{where} {depth}",
                    "create",
                    f"mkdir -p -- {_q(posixpath.dirname(subject))} && printf '%s\\n' "
                    f"{shlex.quote(_planted(path, tree))} > {_q(subject)}",
                    "exists",
                    subject,
                    dirs=(home,),
                    absent=(first,),
                    touches=(first,),
                )
            )
    return out


def _planted(path: str, tree: bool) -> str:
    """The content of a planted layer: a settings file that turns the sandbox off, a Codex
    config that selects full access, a rules file that allows every shell, else a command."""
    suffix = "" if tree else posixpath.splitext(path)[1]
    if tree and path.endswith("rules"):
        suffix = ".rules"
    return PLANTED.get(suffix, PLANTED[""])


def _mandatory(base: str, where: str, origin: Location) -> list[Attack]:
    """srt's mandatory-deny names: each file created at the top (when missing) and appended to
    (when present), each directory written into; in the launch directory also the ones one
    directory in that exist (srt's scan finds them there); the hooks and config of the
    directory's own repository and of one nested in it, below every write root."""
    from twsrt.mandatory import GIT_PROTECTED, MANDATORY_DIRS, MANDATORY_FILES

    out = []
    sub = f"{base}/tw-sub-m"
    depths = (("top", base), ("one", sub)) if base == "work" else (("top", base),)
    for depth, home in depths:
        for name in MANDATORY_FILES:
            path = f"{home}/{name}"
            form = f"{where} {depth}"
            if depth == "top":
                out.append(
                    _attack("mandatory", name, origin, form, "create", _create(path), "exists",
                            path, absent=(path,))
                )  # fmt: skip
            out.append(
                _attack("mandatory", name, origin, form, "append", f"printf x >> {_q(path)}",
                        "changed", path, files=((path, ORIGINAL),))
            )  # fmt: skip
        for name in MANDATORY_DIRS:
            # one directory in, srt protects a directory its scan finds a file in: one is there
            kept = ((f"{home}/{name}/x", ""),) if depth == "one" else ()
            subject = f"{home}/{name}/tw-planted"
            out.append(
                _attack("mandatory", name, origin, f"{where} {depth}", "create",
                        _create(subject), "exists", subject, dirs=(f"{home}/{name}",),
                        files=kept, absent=(subject,))
            )  # fmt: skip
    for depth, repo in (("top", base), ("nested", f"{base}/tw-repo-{_tag(base)}")):
        staged = ((f"{repo}/.git/HEAD", "ref: refs/heads/main\n"),)
        for name in GIT_PROTECTED:
            if name.endswith("hooks"):
                subject = f"{repo}/{name}/pre-commit"
                attack = _attack("mandatory", name, origin, f"{where} {depth}", "create",
                                 _create(subject), "exists", subject, files=staged,
                                 dirs=(f"{repo}/{name}",), absent=(subject,))  # fmt: skip
            else:
                subject = f"{repo}/{name}"
                attack = _attack("mandatory", name, origin, f"{where} {depth}", "append",
                                 f"printf x >> {_q(subject)}", "changed", subject,
                                 files=(*staged, (subject, ORIGINAL)))  # fmt: skip
            out.append(attack)
    return out


def _relinks(config: Config, policy: Policy) -> list[Attack]:
    """Each agent's user config directory that is a symlink on this machine, staged as one in
    the launch directory and in the home, unlinked (an empty directory in its place) or
    replaced by a link elsewhere."""
    from twsrt.agents import config_layers

    tops = dict.fromkeys(
        layer.path[2:].split("/", 1)[0]
        for _, layer in config_layers("user")
        if layer.path.startswith("~/") and "/" in layer.path[2:]
    )
    linked = [top for top in tops if os.path.islink(Path(config.home) / top)]
    origin = policy.list_origin("/filesystem/allowWrite")
    out = []
    for top in linked:
        target = f"outside/tw-dots-{_tag(top)}"
        other = f"outside/tw-other-{_tag(top)}"
        for base, where in (("work", "launch"), ("home", "~")):
            link = f"{base}/{top}"
            staged = dict(
                dirs=(target, other),
                files=((f"{target}/settings.json", ORIGINAL),),
                links=((link, target),),
                touches=(link,),
            )
            out += [
                _attack("relink", f"~/{top}", origin, where, "unlink-link",
                        f"rm -f -- {_q(link)} && mkdir -- {_q(link)}", "relinked", link,
                        **staged),
                _attack("relink", f"~/{top}", origin, where, "relink",
                        f'ln -sfn -- "$R"/{other} {_q(link)}', "relinked", link,
                        **staged),
            ]  # fmt: skip
    return out


def _protected(protected: tuple[object, ...], sem: Semantics) -> list[Attack]:
    """Each protected path a write root holds: a file appended to and replaced (a new file
    renamed over it), a tree written into and renamed aside."""
    out = []
    for item in protected:
        path, tree, origin = item.path, item.tree, item.origin  # type: ignore[attr-defined]
        rel = layout_path(path) if not is_glob(path) else None
        if rel is None or rel in ("home", "work", "fs") or not sem.write_allowed(rel):
            continue
        if tree:
            inner, moved = f"{rel}/tw-planted", f"{rel}.tw-moved"
            kept = f"{rel}/tw-kept"
            out += [
                _attack("protected", path, origin, "tree", "create", _create(inner), "exists",
                        inner, dirs=(rel,), absent=(inner,)),
                _attack("protected", path, origin, "tree", "append", f"printf x >> {_q(kept)}",
                        "changed", kept, files=((kept, ORIGINAL),)),
                _attack("protected", path, origin, "tree", "rename-aside",
                        f"mv -- {_q(rel)} {_q(moved)}", "gone", rel, dirs=(rel,),
                        absent=(moved,), touches=(rel, moved)),
            ]  # fmt: skip
        else:
            new = f"{rel}.tw-new"
            out += [
                _attack("protected", path, origin, "file", "append", f"printf x >> {_q(rel)}",
                        "changed", rel, files=((rel, ORIGINAL),), shapes=((rel, "file"),)),
                _attack("protected", path, origin, "file", "replace",
                        f"printf x > {_q(new)} && mv -f -- {_q(new)} {_q(rel)}", "changed",
                        rel, files=((rel, ORIGINAL),), absent=(new,), touches=(rel, new),
                        shapes=((rel, "file"),)),
            ]  # fmt: skip
    return out


def _ancestors(
    policy: Policy, sem: Semantics, bases: list[tuple[str, str, Location]]
) -> list[Attack]:
    """Each deny that is no glob and lies two or more directories below a write root: the
    directory right below the root renamed aside, and the deny's path made again with the
    command's own content (a file inside it, so it works for a file and a tree alike)."""
    out = []
    roots = [base for base, _, _ in bases]
    seen: set[str] = set()
    for rule in [*policy.deny_write, *policy.deny_read]:
        rel = layout_path(rule.path) if not rule.glob else None
        if rel is None or rel in seen:
            continue
        seen.add(rel)
        base = max((b for b in roots if within(rel, b) and rel != b), key=len, default=None)
        parts = rel[len(base) + 1 :].split("/") if base else []
        if base is None or len(parts) < 2 or not sem.write_allowed(f"{base}/{parts[0]}.tw"):
            continue
        ancestor, subject = f"{base}/{parts[0]}", f"{rel}/tw-anc"
        moved = f"{ancestor}.tw-moved-{_tag(rel)}"
        out.append(
            _attack(
                "rename-ancestor",
                rule.path,
                rule.origin,
                parts[0],
                "swap-ancestor",
                f"mv -- {_q(ancestor)} {_q(moved)} && {_create(subject)}",
                "changed",
                subject,
                files=((subject, ORIGINAL),),
                absent=(moved,),
                touches=(ancestor, moved),
            )
        )
    return out


# ------------------------------------------------------------------ gaps


def layer_rules() -> dict[str, tuple[Rule, ...]]:
    """Agent -> the rules with which ``check`` says that a command can plant that agent's
    layers where its next launch loads them (the mitigation is in each rule's help), as each
    declaration names them (``AgentSpec.planted_layer_rules``)."""
    from twsrt.agents import specs

    return {spec.name: spec.planted_layer_rules for spec in specs()}


def planted_layer_loadable(m: Mismatch) -> Finding | None:
    """A layer planted below the launch directory or a write root, where ``check`` reports for
    the agent that loads it that no setting keeps a command from planting it (Claude Code's
    TWS628, Codex's TWS465; Copilot's TWS471, which also says a planted Copilot layer changes
    nothing): the finding as check reports it."""
    from twsrt.agents import config_layers

    if m.probe.kind != "plant-layer" or m.observed is not Outcome.ALLOWED:
        return None
    rules = layer_rules()
    owners = [agent for agent, layer in config_layers("project") if layer.path == m.probe.rule]
    for agent in owners:
        found = m.reports(*rules.get(agent, ()))
        if found is not None:
            return m.as_reported(found)
    return None


def reported_at_root(m: Mismatch, rule: Rule, kinds: tuple[str, ...]) -> Finding | None:
    """An attack of one of ``kinds`` that was allowed where ``check`` reports ``rule`` at the
    write root the attack ran below (its origin): the finding as check reports it."""
    if m.probe.kind not in kinds or m.observed is not Outcome.ALLOWED:
        return None
    found = next((f for f in m.reported if f.rule is rule and f.location == m.probe.origin), None)
    return m.as_reported(found) if found is not None else None


def folded_link_unprotected(m: Mismatch) -> Finding | None:
    """A symlinked agent directory unlinked or replaced, where ``check`` reports it as a folded
    stow link on this host (TWS240: no deny protects a symlink itself)."""
    from twsrt.rules import FOLDED_CONFIG_LINK

    if m.probe.kind != "relink" or m.observed is not Outcome.ALLOWED:
        return None
    named = f"'{m.probe.rule}'"
    found = [f for f in m.reported if f.rule is FOLDED_CONFIG_LINK]
    hit = next((f for f in found if f.message.startswith(named)), None)
    return m.as_reported(hit) if hit is not None else None


LAUNCH_GAPS = (planted_layer_loadable, folded_link_unprotected)
