"""Which files a run works on: the user's own (user scope, as before), a project's (project
scope: ``--project DIR``, or a config with a ``[project]`` table) or the files an administrator
deploys (managed scope: ``--managed DIR``, or ``[managed]``). One run works in one scope.

A scoped ``[targets]`` key is an ordinary ``TargetSpec`` with ``scope="project"`` (or
``"managed"``) and ``scaffold=False`` in its agent's declaration; its ``default`` is relative to
the scope root (the project root, the managed output tree). ``apply_scope`` gives the config of
a scoped run: ``Config.scope``/``scope_root``, ``Config.targets`` holding only that scope's
keys (from ``[targets]``, else the defaults under the root), and the agents the run compiles
(``Config.scope_agents``); an agent with no file in the scope is left out with a note (TWS448);
named by ``--agent`` it is refused (TWS017).
An agent's ``compile(ctx)`` dispatches on ``ctx.config.scope`` to its scope's compile function.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.agents import AGENTS, REGISTRY, agent_of, label, spec_of, target_specs
from twsrt.findings import Finding, TwsrtError, fail, finding, quoted
from twsrt.locations import Location
from twsrt.pathnames import control_problem, length_problem
from twsrt.records import record
from twsrt.rules import (
    CONFIG_INVALID,
    PATH_OUTSIDE_REPOSITORY,
    SCOPE_AGENT_LEFT_OUT,
    SCOPE_AGENT_UNAVAILABLE,
    SCOPE_TARGET_OUTSIDE_ROOT,
    TARGET_KEY_UNUSED,
)
from twsrt.safeio import real, within

if TYPE_CHECKING:
    from twsrt.config import Config

SCOPED = ("project", "managed")  # the scopes a config table or an option selects


@record
class ScopeRequest:
    """``--project DIR`` or ``--managed DIR`` from the command line."""

    scope: str  # "project" or "managed"
    directory: Path  # as given, resolved against the working directory

    @property
    def option(self) -> str:
        return f"--{self.scope}"

    @classmethod
    def of(cls, scope: str, raw: str, cwd: Path) -> ScopeRequest:
        """``--<scope> raw``, relative to ``cwd`` (``~`` expanded)."""
        return cls(scope, Path(os.path.normpath(cwd / Path(raw).expanduser())))


def layered_agents(scope: str) -> list[str]:
    """The agents that declare a target in ``scope``, in registry order."""

    return [name for name in AGENTS if scope_keys(spec_of(name).targets, scope)]


def scope_keys(targets: Any, scope: str) -> list[str]:
    return [target.key for target in targets if target.scope == scope]


def apply_scope(config: Config, data: dict[str, Any], asked: ScopeRequest | None) -> Config:
    """``config`` (just loaded from ``data``) in the scope its tables or ``asked`` select;
    without either, user scope with only the user keys of ``[targets]``."""

    tables = [scope for scope in SCOPED if scope in data]
    if len(tables) > 1:
        message = "[project] and [managed] exclude each other: one config works in one scope"
        raise fail(CONFIG_INVALID, message, config.location("/managed"))
    table = tables[0] if tables else None
    if asked is not None and table is not None and table != asked.scope:
        message = f"{asked.option} asks for {asked.scope} scope; this config is a {table} config"
        raise fail(CONFIG_INVALID, message, config.location(f"/{table}"))
    scope = asked.scope if asked is not None else table
    unused = left_out(config, scope or "user", table)
    if unused:  # a key no run of this config writes or checks: refused, as an unknown key is
        raise TwsrtError(list(unused))
    by_key = {target.key: target for target in target_specs()}
    if scope is None:  # load_config keeps user runs without tables from importing this module
        user = {k: v for k, v in config.targets.items() if by_key[k].scope == "user"}
        return replace(config, targets=user)
    settings = data.get(scope, {})
    root = asked.directory if asked is not None else config.resolve(settings.get("root", "."))
    _check_root(config, scope, root, asked)
    chosen, notes = _agents(config, scope, settings, data)
    targets = {k: v for k, v in config.targets.items() if by_key[k].scope == scope}
    for name in layered_agents(scope):
        for target in _agent_targets(name, scope):
            if target.key not in targets and target.default:
                targets[target.key] = Path(os.path.normpath(root / target.default))
    return replace(
        config,
        scope=scope,
        scope_root=root,
        targets=targets,
        scope_agents=tuple(chosen),
        scope_findings=tuple(notes),
    )


def left_out(config: Config, scope: str, table: str | None) -> tuple[Finding, ...]:
    """An error at each [targets] key of another scope than ``scope`` when the config's
    ``table`` fixes every run's scope, so no run writes or checks that key's file (TWS020);
    without a table each key is used by the run in its scope (``--project DIR``, ...)."""

    if table is None:
        return ()
    by_key = {target.key: target for target in target_specs()}
    found = []
    for key in config.targets:
        other = by_key[key].scope
        if other != scope:
            message = (
                f"{key} is a {other}-scope key; this config has a [{table}] table, so every "
                f"run of it works in {table} scope and none writes or checks this file"
            )
            found.append(finding(TARGET_KEY_UNUSED, message, config.location(f"/targets/{key}")))
    return tuple(found)


def _agent_targets(name: str, scope: str) -> list[Any]:

    return [target for target in spec_of(name).targets if target.scope == scope]


def _check_root(config: Config, scope: str, root: Path, asked: ScopeRequest | None) -> None:
    """A project root must be an existing directory (a managed output tree may be new)."""

    where = Location(config.display) if asked is not None else config.location(f"/{scope}/root")
    named = asked.option if asked is not None else f"[{scope}] root"
    problem = control_problem(str(root))
    if problem:  # no stat of it could succeed, and it is not shown: the key locates it
        raise fail(CONFIG_INVALID, f"{named}: the path {problem}", where)
    shown = quoted(config.display_path(root))
    problem = length_problem(root)
    if problem:
        raise fail(SCOPE_TARGET_OUTSIDE_ROOT, f"{named} {shown}: {problem}", where)
    if root.exists() and not root.is_dir():
        message = f"{named} {shown} is not a directory"
        raise fail(SCOPE_TARGET_OUTSIDE_ROOT, message, where)
    if scope == "project" and not root.exists():
        message = f"{named} {shown} does not exist; a project root is an existing directory"
        raise fail(SCOPE_TARGET_OUTSIDE_ROOT, message, where)


def _agents(
    config: Config, scope: str, settings: dict[str, Any], data: dict[str, Any]
) -> tuple[list[str], list[Finding]]:
    """The agents a scoped run compiles, and the notes of those left out: the table's
    ``agents``, else the agents with a target in the config, else every agent; each only
    when it has a file in ``scope``."""

    layered = layered_agents(scope)
    listed = settings.get("agents")
    wanted: list[tuple[str, Location]] = []
    if listed is not None:
        for index, name in enumerate(listed):
            where = config.location(f"/{scope}/agents/{index}")
            if name not in REGISTRY:
                known = ", ".join(AGENTS)
                raise fail(CONFIG_INVALID, f"unknown agent '{name}' (known: {known})", where)
            wanted.append((name, where))
    else:
        configured = dict.fromkeys(filter(None, map(agent_of, data.get("targets", {}))))
        where = config.location(f"/{scope}") if scope in data else Location(config.display)
        wanted = [(name, where) for name in (configured or REGISTRY)]
    notes = [
        finding(
            SCOPE_AGENT_LEFT_OUT,
            f"{label(name)} has no {scope} file; it is left out of this {scope}-scope run",
            where,
            agent=name,
        )
        for name, where in wanted
        if name not in layered
    ]
    return [name for name, _where in wanted if name in layered], notes


def targeted_agents(config: Config) -> list[str]:
    """The agents a config's run targets: a scoped run's chosen agents, else every agent with
    a key in ``[targets]``, in registry order."""
    if config.scope != "user":
        return list(config.scope_agents)
    return [n for n in AGENTS if any(k in config.targets for k in spec_of(n).keys)]


def select(agent: str | None, config: Config) -> list[str]:
    """``run.select_agents`` in a scoped run: the named agent (which must have a file in the
    scope: else a usage error, exit 2), else the scope's agents."""

    if agent is None:
        if not config.scope_agents:  # a run that would compile nothing is a mistake
            message = (
                f"no agent this config selects has a {config.scope} file (agents with one: "
                f"{', '.join(layered_agents(config.scope)) or 'none'}); name them in "
                f"[{config.scope}] agents or with --agent"
            )
            raise fail(SCOPE_AGENT_UNAVAILABLE, message, Location(config.display))
        return list(config.scope_agents)
    if agent not in layered_agents(config.scope):
        message = (
            f"--agent {agent}: {label(agent)} has no {config.scope} file "
            f"(agents with one: {', '.join(layered_agents(config.scope)) or 'none'})"
        )
        raise fail(SCOPE_AGENT_UNAVAILABLE, message, Location(config.display))
    return [agent]


def refuse_yolo(config: Config) -> TwsrtError:
    """``--yolo`` in a scoped run: project and managed files apply in every approval mode, so
    there is no yolo twin to compile (a usage error, exit 2)."""
    return fail(
        CONFIG_INVALID,
        f"--yolo has no {config.scope} file: {config.scope} files apply in every approval "
        "mode (the approval mode is the user's); run without --yolo",
        Location(config.display),
    )


def placement_findings(config: Config, repo: Path | None) -> list[Finding]:
    """In a scoped run, every target inside the scope root (TWS018); in repo mode, a root
    named by the config's table inside the repository (TWS005), as every other path."""

    if config.scope == "user" or config.scope_root is None:
        return []
    found: list[Finding] = []
    root = real(config.scope_root)
    pointer = f"/{config.scope}/root"
    if repo is not None and not config.scope_by_option and not within(root, real(repo)):
        message = (
            f"[{config.scope}] root ({config.display_path(config.scope_root)}) resolves to "
            f"{config.display_path(root)}, outside the repository; in repo mode twsrt reads "
            "and writes only files inside it"
        )
        # the root places every target: none of them is read or written
        related = tuple(config.location(f"/targets/{key}") for key in config.targets)
        where = config.location(pointer)
        return [finding(PATH_OUTSIDE_REPOSITORY, message, where, related=related)]
    for key, path in config.targets.items():
        if not within(path, root):
            message = (
                f"{key} ({config.display_path(path)}) resolves to "
                f"{config.display_path(real(path))}, outside the {config.scope} root "
                f"{config.display_path(config.scope_root)}"
            )
            where = config.location(f"/targets/{key}")
            found.append(finding(SCOPE_TARGET_OUTSIDE_ROOT, message, where))
    return found
