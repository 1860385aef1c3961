"""The agent registry: the one list of agents twsrt compiles to. Everything else that names
agents or their ``[targets]`` keys derives from it and from each agent's declaration (its
module's ``AGENT_SPEC``, an ``AgentSpec``): the CLI's choices, the config schema's ``targets``,
the pre-commit hook's ``files`` pattern, the placement checks, the home lint and ``init``.

Adding an agent is a new module that defines ``AGENT`` (with its ``spec``) plus one line here;
``python -m twsrt.registry --write`` then regenerates the files that cannot import Python.

Import-free: a module is loaded the first time its agent is looked up, so the CLI reads the
names without importing any translator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING

from twsrt.findings import Finding, TwsrtError
from twsrt.rules import TARGET_UNUSABLE

if TYPE_CHECKING:
    from twsrt.agents.base import Agent, AgentSpec, Context, Layer, TargetSpec

# agent name -> the module that defines ``AGENT``; the order is the order of every report
REGISTRY: dict[str, str] = {
    "claude": "twsrt.agents.claude",
    "codex": "twsrt.agents.codex",
    "copilot": "twsrt.agents.copilot",
    "deepcode": "twsrt.agents.deepcode",
    "gemini": "twsrt.agents.gemini",
    "qwen": "twsrt.agents.qwen",
    "opencode": "twsrt.agents.opencode",
    "kilo": "twsrt.agents.kilo",
    "pi": "twsrt.agents.pi",
    "droid": "twsrt.agents.droid",
}


class _Agents(Mapping[str, "Agent"]):
    """``REGISTRY`` with each agent loaded on first use; names alone cost no import."""

    def __getitem__(self, name: str) -> Agent:
        agent: Agent = import_module(REGISTRY[name]).AGENT
        return agent

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(REGISTRY))

    def __len__(self) -> int:
        return len(REGISTRY)


AGENTS: Mapping[str, Agent] = _Agents()


def spec_of(name: str) -> AgentSpec:
    """An agent's declaration: its module's ``AGENT_SPEC`` (an agent package's light
    ``__init__`` holds it, so no translator is imported), else ``AGENT.spec``."""
    module = import_module(REGISTRY[name])
    declared: AgentSpec | None = getattr(module, "AGENT_SPEC", None)
    return declared if declared is not None else module.AGENT.spec


def specs() -> list[AgentSpec]:
    """Every agent's declaration, in registry order."""
    return [spec_of(name) for name in REGISTRY]


def target_specs() -> list[TargetSpec]:
    """Every ``[targets]`` key's declaration, agent by agent in registry order."""
    return [target for spec in specs() for target in spec.targets]


def config_layers(scope: str | None = None) -> list[tuple[str, Layer]]:
    """(agent name, layer) of every config layer a registered agent discovers, in registry
    order (``scope``: only that scope's layers). The one list the protected set, ``check`` and
    ``twsrt test`` ask; nothing keeps its own."""
    return [
        (spec.name, layer)
        for spec in specs()
        for layer in spec.layers
        if scope is None or layer.scope == scope
    ]


def agent_of(key: str) -> str | None:
    """The agent a ``[targets]`` key belongs to."""
    return next((spec.name for spec in specs() if key in spec.keys), None)


def label(name: str) -> str:
    """How messages name an agent (its name when it is not registered)."""
    return spec_of(name).label if name in REGISTRY else name


def primary_key(name: str) -> str:
    """The key an error names when an agent has no target configured."""
    return spec_of(name).targets[0].key if name in REGISTRY else name


def yolo_keys() -> dict[str, str]:
    """A target key -> the explicit yolo key that replaces its derived yolo file."""
    return {t.yolo_of: t.key for t in target_specs() if t.yolo_of is not None}


def home_dependent_keys() -> tuple[str, ...]:
    """The keys whose files hold absolute paths, so their bytes depend on the home directory."""
    return tuple(t.key for t in target_specs() if t.home_dependent)


def effective_findings(ctx: Context, name: str) -> list[Finding]:
    """Every user-owned key or entry, in every file agent ``name`` loads that twsrt can see,
    that grants more than the policy: its declared ``effective`` module's ``findings`` (an agent
    without one has nothing to report)."""
    module = spec_of(name).effective if name in REGISTRY else None
    if module is None:
        return []
    check: Callable[[Context], list[Finding]] = import_module(module).findings
    try:
        return check(ctx)
    except TwsrtError as exc:  # an unusable target is reported by the compile already
        return [item for item in exc.findings if item.rule is not TARGET_UNUSABLE]
