"""The rule catalog: every rule twsrt can report, one module constant per rule.

Emitters name a rule by its constant (``from twsrt.rules import DANGER_FULL_ACCESS``), so a
misspelt rule fails when the module is imported, not when the finding is first made. The rules
live in one module per family (``twsrt/rules/<family>.py``); this module gathers them.
docs/rules.md, the SARIF rule list and its tags, ``twsrt explain`` and the GitHub action's drift
list all derive from :data:`CATALOG`. An agent's own rules live in its package (the module its
declaration names as ``rules``, built on ``twsrt.rules.model`` only); the catalog takes them in
through the registry's import-free names the first time it is read.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import import_module
from types import ModuleType

from twsrt.rules import drift, effective, engine, loading, policy, schema, translation
from twsrt.rules.drift import *  # noqa: F403 -- every rule constant, re-exported
from twsrt.rules.effective import *  # noqa: F403
from twsrt.rules.engine import *  # noqa: F403
from twsrt.rules.loading import *  # noqa: F403
from twsrt.rules.model import BASIS_LEVEL, Basis, Family, Level, Rule
from twsrt.rules.policy import *  # noqa: F403
from twsrt.rules.schema import *  # noqa: F403
from twsrt.rules.translation import *  # noqa: F403

__all__ = [
    "BASIS_LEVEL",
    "CATALOG",
    "Basis",
    "Family",
    "Level",
    "Rule",
    "explain_text",
    "lookup",
    "settled",
]

FAMILY_MODULES = (loading, schema, policy, drift, translation, engine, effective)


def _collect(modules: tuple[ModuleType, ...]) -> dict[str, Rule]:
    """Every rule constant of ``modules`` by id, in id order; a constant must be named after
    its rule, and ids and names must be unique (checked here, so a bad entry fails at import)."""
    rules: dict[str, Rule] = {}
    names: set[str] = set()
    for module in modules:
        for constant, value in vars(module).items():
            if not isinstance(value, Rule):
                continue
            if constant != value.constant:
                raise ValueError(f"{module.__name__}.{constant} holds rule {value.name}")
            if value.id in rules or value.name in names:
                raise ValueError(f"rule {value.id} {value.name} is defined twice")
            rules[value.id] = value
            names.add(value.name)
    return dict(sorted(rules.items()))


def agent_rule_modules() -> tuple[ModuleType, ...]:
    """The rules modules the registered agents declare, in registry order: a plugin lookup by
    the registry's names (``import_module``), so this floor imports no agent package."""
    registry = import_module("twsrt.agents")
    names = [registry.spec_of(name).rules for name in registry.REGISTRY]
    return tuple(import_module(name) for name in names if name is not None)


def _declarations() -> tuple[object, ...] | None:
    """What the agents' rules modules derive from: each registry entry and the declaration its
    loaded package holds (by identity); None while the registry or a package is not loaded yet."""
    registry = sys.modules.get("twsrt.agents")
    if registry is None:
        return None
    out: list[object] = []
    for name, path in registry.REGISTRY.items():
        package = sys.modules.get(path)
        if package is None:
            return None
        attributes = vars(package)
        out += (name, path, attributes.get("AGENT_SPEC"), attributes.get("AGENT"))
    return tuple(out)


class _Catalog(Mapping[str, Rule]):
    """The family rules and every registered agent's own, gathered when first read (and again
    when the registry changes), so the agents' rules join without an import of the agents."""

    def __init__(self) -> None:
        self._key: tuple[str, ...] | None = None
        self._declared: tuple[object, ...] | None = None
        self._rules: dict[str, Rule] = {}
        self.by_name: dict[str, Rule] = {}
        self._settled = 0  # inside ``settled``: the registry is not asked again

    @contextmanager
    def settled(self) -> Iterator[None]:
        """The catalog as it stands, without asking the registry again on each lookup: for a
        loop over every finding of a check (at 50k rules ~37,000 lookups, each ~1 us of
        registry questions), under which no agent is registered or replaced."""
        self._current()
        self._settled += 1
        try:
            yield
        finally:
            self._settled -= 1

    def _current(self) -> dict[str, Rule]:
        if self._settled:
            return self._rules
        # Every finding's level and suppression asks the catalog (at 50k rules ~80,000 times a
        # check), so an unchanged registry is told by dict lookups, not import_module per agent.
        declared = _declarations()
        if declared is not None and declared == self._declared:
            return self._rules
        modules = FAMILY_MODULES + agent_rule_modules()
        key = tuple(module.__name__ for module in modules)
        if key != self._key:
            self._rules = _collect(modules)
            self.by_name = {rule.name: rule for rule in self._rules.values()}
            self._key = key
        self._declared = declared if declared is not None else _declarations()  # now loaded
        return self._rules

    def __getitem__(self, rule_id: str) -> Rule:
        return self._current()[rule_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._current())

    def __len__(self) -> int:
        return len(self._current())


_catalog = _Catalog()
CATALOG: Mapping[str, Rule] = _catalog
settled = _catalog.settled


def lookup(key: str) -> Rule | None:
    """The rule whose id or name is exactly ``key`` (as a ``[[check.ignore]]`` names it)."""
    return CATALOG.get(key) or _catalog.by_name.get(key)


def explain_text(query: str) -> str | None:
    """``twsrt explain``'s text for a rule id (any case) or name; None if no rule matches."""
    rule = CATALOG.get(query.upper()) or _catalog.by_name.get(query)
    if rule is None:
        return None
    return f"{rule.id} {rule.name} ({rule.level.value})\n\n{rule.short}\n\n{rule.help}"
