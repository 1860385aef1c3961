"""Which engines a ``twsrt test`` run starts: the ones asked for, else every one that can run here
for the agents the config compiles, each left out named with the reason; and the drift of the
files they read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from twsrt.agents import spec_of
from twsrt.scopes import targeted_agents as scoped_agents
from twsrt.testing.engines import ENGINES, Engine, EngineUnavailable
from twsrt.testing.model import Skipped

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

# a new engine on every call: each lane prepares its own in its own tree, side by side
Factory = Callable[[str], Engine]
# the engines a run asks for: None (every one that can run here), a name, or several
Requested = str | Sequence[str] | None


def targeted_agents(ctx: Context) -> list[str]:
    """The agents with at least one target in the config; in a project or managed run, the
    agents it compiles (its targets hold every such agent's default file, written or not)."""
    return scoped_agents(ctx.config)


def select_engines(
    ctx: Context, requested: Requested, factory: Factory
) -> tuple[list[str], list[Skipped]]:
    """The engines to run and the ones left out, with the reason.

    Without ``requested``: every engine that can run here for the agents the config targets
    (srt always: it is the reference); EngineUnavailable only when none can. With names (one,
    or several: ``--engine`` given more than once), or ``all`` among them (every registered
    engine), each one named must run, else EngineUnavailable; they run in registry order.
    """
    agents = targeted_agents(ctx)
    asked = _requested(requested)
    if asked is None:
        names = [n for n in ENGINES if _agent(n, factory) in (None, *agents)]
    else:
        names = [n for n in ENGINES if "all" in asked or n in asked]
        # a name outside the registry: a library caller's own engine, made by its factory
        names += [n for n in dict.fromkeys(asked) if n not in ENGINES and n != "all"]
    chosen: list[str] = []
    skipped: list[Skipped] = []
    problems: list[EngineUnavailable] = []
    for name in names:
        engine = factory(name)
        try:
            if engine.agent is not None and engine.agent not in agents:
                raise EngineUnavailable(name, _no_target(ctx, engine), "")
            if not engine.reads(ctx):
                raise EngineUnavailable(name, _no_target(ctx, engine), "")
            if not ctx.full_access:  # nothing is run under danger-full-access
                engine.check_available(ctx)
        except EngineUnavailable as exc:
            if asked is not None:
                raise
            problems.append(exc)
            skipped.append(Skipped(name, exc.problem + (f" ({exc.hint})" if exc.hint else "")))
            continue
        chosen.append(name)
    if asked is None:
        engine_agents = {_agent(n, factory) for n in ENGINES}
        for agent in agents:
            if agent not in engine_agents:
                reason = spec_of(agent).no_engine or f"twsrt test has no engine for {agent}"
                skipped.append(Skipped(agent, reason))
        if not chosen:
            first = problems[0] if problems else EngineUnavailable("srt", "no engine", "")
            raise first
    return chosen, skipped


def _requested(requested: Requested) -> list[str] | None:
    """The engine names asked for: None when none was (every engine that can run here)."""
    if requested is None:
        return None
    asked = [requested] if isinstance(requested, str) else list(requested)
    return asked or None


def _agent(name: str, factory: Factory) -> str | None:
    return factory(name).agent


def _no_target(ctx: Context, engine: Engine) -> str:
    from twsrt.agents import AGENTS

    scope = ctx.config.scope
    if scope != "user" and engine.agent not in ctx.config.scope_agents:
        return f"this {scope}-scope run compiles no {engine.agent} file ([{scope}] agents)"

    agent = engine.agent
    targets = spec_of(agent).targets if agent is not None and agent in AGENTS else ()
    keys = [t.key for t in targets if t.yolo_of is None and t.scope == scope]
    configured = [key for key in keys if key in ctx.config.targets]
    if configured:  # the file is there, but this engine models another scope's
        return (
            f"the {engine.name} engine does not model a {scope}-scope file "
            f"([targets] {', '.join(configured)}); run it on the user-scope config"
        )
    wanted = " or ".join(keys) or "target"
    return f"the config names no {engine.agent} file to read ([targets] {wanted})"


def drift_of(ctx: Context, names: list[str], factory: Factory) -> list[Finding]:
    """Drift findings for the target files the chosen engines read (probes run on them as
    they are on disk; ``check`` gives the full account)."""
    from twsrt.agents import AGENTS
    from twsrt.drift import drift_findings
    from twsrt.invocation import fix_command

    found: list[Finding] = []
    for agent in dict.fromkeys(_agent(n, factory) for n in names):
        if agent is None or agent not in AGENTS:
            continue
        result = AGENTS[agent].compile(ctx)
        for drift in result.drift:
            found += drift_findings(drift, result, ctx.config, fix_command(ctx))
    return found
