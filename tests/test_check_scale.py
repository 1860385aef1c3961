"""`twsrt check` at scale (issue 28): the work per rule is a constant, proved by counting work,
never by timing (benchmarks/bench.py measures the times)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import twsrt.rules as rules
from twsrt.agents import REGISTRY
from twsrt.rules import CATALOG, lookup

# ---------------------------------------------------------------- the rule catalog


def test_the_catalog_is_gathered_once_however_many_findings_ask_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every finding asks the catalog for its rule (its level, whether it is suppressible): at
    50k rules that is ~80,000 lookups a check, which must not each import the agents' rules."""
    assert CATALOG["TWS301"].id == "TWS301"  # gathered (or already gathered) here
    calls = 0
    gather = rules.agent_rule_modules

    def counted() -> tuple[object, ...]:
        nonlocal calls
        calls += 1
        return gather()

    monkeypatch.setattr(rules, "agent_rule_modules", counted)
    for _ in range(1_000):
        assert CATALOG["TWS301"].name == lookup("TWS301").name  # type: ignore[union-attr]
    assert calls == 0


def test_the_catalog_follows_a_change_of_the_registry_and_of_a_declaration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cache is keyed by the registry's entries and each package's declaration, so an
    agent added (or its declaration replaced) joins the catalog as before."""
    assert "TWS699" not in CATALOG
    monkeypatch.setitem(REGISTRY, "toy", "support.toyagent")
    assert CATALOG["TWS699"].name == "toy-sandbox-off"
    from support import toyagent

    monkeypatch.setattr(toyagent, "AGENT_SPEC", replace(toyagent.AGENT_SPEC, rules=None))
    assert "TWS699" not in CATALOG
    monkeypatch.undo()
    assert "TWS699" not in CATALOG
