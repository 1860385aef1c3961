"""The rule catalog: every rule twsrt can report, one module constant per rule.

Emitters name a rule by its constant (``from twsrt.rules import DANGER_FULL_ACCESS``), so a
misspelt rule fails when the module is imported, not when the finding is first made. The rules
live in one module per family (``twsrt/rules/<family>.py``); this module gathers them.
docs/rules.md, the SARIF rule list and its tags, ``twsrt explain`` and the GitHub action's drift
list all derive from :data:`CATALOG`.
"""

from __future__ import annotations

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

__all__ = ["BASIS_LEVEL", "CATALOG", "Basis", "Family", "Level", "Rule", "explain_text", "lookup"]

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


CATALOG: dict[str, Rule] = _collect(FAMILY_MODULES)
_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in CATALOG.values()}


def lookup(key: str) -> Rule | None:
    """The rule whose id or name is exactly ``key`` (as a ``[[check.ignore]]`` names it)."""
    return CATALOG.get(key) or _BY_NAME.get(key)


def explain_text(query: str) -> str | None:
    """``twsrt explain``'s text for a rule id (any case) or name; None if no rule matches."""
    rule = CATALOG.get(query.upper()) or _BY_NAME.get(query)
    if rule is None:
        return None
    return f"{rule.id} {rule.name} ({rule.level.value})\n\n{rule.short}\n\n{rule.help}"
