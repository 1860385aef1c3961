"""Every rule of the catalog is proven to fire (issue 27 item 5), as ruff and yamllint prove
theirs: a table of small fixtures (tests/support/rule_cases*.py), each run once through the
CLI, and for each rule the case that emits it at the catalog's level (and, where pinned, at
its file:line:col). A rule without a case fails the meta-test."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import rule_cases_policy
from support.rule_cases import Case, findings_of, write_all
from support.sandbox import make_sandbox

from twsrt.rules import CATALOG

CASES: list[Case] = [*rule_cases_policy.CASES]

# Rules no command of the package can emit today (the evidence is in the lead's report); the
# lead decides whether each goes or gets its emitter. Never a place for a rule that is only
# hard to reach.
DEAD_RULES: set[str] = set()

# Rules whose case is still to be written (issue 27 item 5 lands family by family): only ever
# shrinks. A rule added to the catalog is in none of the sets, so the meta-test names it.
PENDING: set[str] = {
    "TWS001",
    "TWS002",
    "TWS003",
    "TWS004",
    "TWS005",
    "TWS006",
    "TWS008",
    "TWS009",
    "TWS010",
    "TWS012",
    "TWS013",
    "TWS014",
    "TWS015",
    "TWS016",
    "TWS017",
    "TWS018",
    "TWS019",
    "TWS020",
    "TWS023",
    "TWS101",
    "TWS102",
    "TWS103",
    "TWS201",
    "TWS202",
    "TWS209",
    "TWS215",
    "TWS220",
    "TWS221",
    "TWS222",
    "TWS223",
    "TWS225",
    "TWS226",
    "TWS227",
    "TWS228",
    "TWS240",
    "TWS241",
    "TWS242",
    "TWS302",
    "TWS303",
    "TWS304",
    "TWS305",
    "TWS406",
    "TWS418",
    "TWS423",
    "TWS445",
    "TWS446",
    "TWS447",
    "TWS448",
    "TWS449",
    "TWS450",
    "TWS451",
    "TWS457",
    "TWS458",
    "TWS466",
    "TWS469",
    "TWS503",
    "TWS504",
    "TWS505",
    "TWS506",
    "TWS601",
    "TWS602",
    "TWS603",
    "TWS604",
    "TWS605",
    "TWS606",
    "TWS607",
    "TWS608",
    "TWS609",
    "TWS610",
    "TWS611",
    "TWS612",
    "TWS613",
    "TWS614",
    "TWS615",
    "TWS616",
    "TWS617",
    "TWS625",
}

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
    where = case.rules[rule_id]
    assert not where or where in places, f"{rule_id} at {sorted(places)}, not {where}"


def test_every_rule_has_a_case() -> None:
    names = [case.name for case in CASES]
    assert len(names) == len(set(names)), "two cases share a name (and so one cached run)"
    cased = set(CASE_OF)
    assert cased <= set(CATALOG), f"cases for rules not in the catalog: {cased - set(CATALOG)}"
    assert not DEAD_RULES & cased, "a rule with a case is not dead"
    assert not PENDING & cased, f"cased, so no longer pending: {sorted(PENDING & cased)}"
    assert cased | DEAD_RULES | PENDING == set(CATALOG)
