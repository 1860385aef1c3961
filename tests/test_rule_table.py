"""Every rule of the catalog is proven to fire (issue 27 item 5), as ruff and yamllint prove
theirs: a table of small fixtures (tests/support/rule_cases*.py), each run once through the
CLI, and for each rule the case that emits it at the catalog's level (and, where pinned, at
its file:line:col). A rule without a case fails the meta-test."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import (
    rule_cases_droid,
    rule_cases_engines,
    rule_cases_gemini,
    rule_cases_hosts,
    rule_cases_layers,
    rule_cases_loading,
    rule_cases_opencode,
    rule_cases_pi,
    rule_cases_policy,
    rule_cases_qwen,
    rule_cases_scopes,
)
from support.rule_cases import Case, findings_of, write_all
from support.sandbox import make_sandbox

from twsrt.rules import CATALOG

CASES: list[Case] = [
    *rule_cases_loading.CASES,
    *rule_cases_policy.CASES,
    *rule_cases_hosts.CASES,
    *rule_cases_layers.CASES,
    *rule_cases_scopes.CASES,
    *rule_cases_engines.CASES,
    *rule_cases_gemini.CASES,
    *rule_cases_qwen.CASES,
    *rule_cases_opencode.CASES,
    *rule_cases_pi.CASES,
    *rule_cases_droid.CASES,
]

# Rules no command of the package can emit today (the evidence is in the lead's report); the
# lead decides whether each goes or gets its emitter. Never a place for a rule that is only
# hard to reach.
DEAD_RULES: set[str] = set()

# one worker runs the table (--dist loadgroup, as tests/run.sh), so each fixture runs once
pytestmark = pytest.mark.xdist_group("rule_table")

CASE_OF = {rule: case for case in reversed(CASES) for rule in case.rules}
_FOUND: dict[str, dict[str, set[tuple[str, str]]]] = {}  # case name -> its run's findings


def _findings(case: Case, tmp_path_factory: pytest.TempPathFactory) -> dict:
    if case.name not in _FOUND:
        box = make_sandbox(Path(tmp_path_factory.mktemp(case.name)))
        write_all(box, case)
        _FOUND[case.name] = findings_of(box, case)
    return _FOUND[case.name]


@pytest.mark.parametrize("rule_id", sorted(CASE_OF))
def test_the_rule_fires(rule_id: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    case = CASE_OF[rule_id]
    found = _findings(case, tmp_path_factory).get(rule_id, set())
    level = CATALOG[rule_id].level.name.lower()
    assert found, f"{case.name} emits no {rule_id}"
    places = {where for got, where in found if got == level}
    assert places, f"{rule_id} is {level} in the catalog, {case.name} emits {found}"
    where = case.rules[rule_id]  # a path outside the sandbox is pinned by its tail
    assert any(place.endswith(where) for place in places), f"{rule_id} not at {where}: {places}"


def test_every_rule_has_a_case() -> None:
    names = [case.name for case in CASES]
    assert len(names) == len(set(names)), "two cases share a name (and so one cached run)"
    cased = set(CASE_OF)
    assert cased <= set(CATALOG), f"cases for rules not in the catalog: {cased - set(CATALOG)}"
    assert not DEAD_RULES & cased, "a rule with a case is not dead"
    missing = set(CATALOG) - cased - DEAD_RULES
    assert not missing, f"rules no case proves to fire: {sorted(missing)}"
