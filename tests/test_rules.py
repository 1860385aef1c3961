"""The typed rule catalog (issue 16 item 4): one constant per rule, each in its family's module,
and everything that lists rules (docs, SARIF tags, the action's drift list, explain, the
suppression lookup) derived from it."""

from __future__ import annotations

import ast
import importlib.util
import types
from pathlib import Path

import pytest

import twsrt.rules as rules
from twsrt.config import SANDBOX_MODES
from twsrt.docs import render_rules_markdown
from twsrt.findings import fail, finding
from twsrt.locations import Location
from twsrt.report import CheckReport
from twsrt.reports.sarif import sarif_log
from twsrt.rules import CATALOG, FAMILY_MODULES, Basis, Family, Level, Rule

REPO = Path(__file__).resolve().parent.parent


def _rule(rule_id: str, name: str, family: Family) -> Rule:
    return Rule(rule_id, name, family, Level.NOTE, Basis.INFO, "Short.", "Help.")


def test_a_rule_outside_its_familys_id_range_is_refused() -> None:
    assert _rule("TWS301", "fine", Family.DRIFT).family is Family.DRIFT
    with pytest.raises(ValueError, match="TWS301 is not in the POLICY family"):
        _rule("TWS301", "misfiled", Family.POLICY)
    with pytest.raises(ValueError):
        _rule("TWS3011", "too-long", Family.DRIFT)


def test_the_catalog_refuses_a_misnamed_or_repeated_constant() -> None:
    rule = _rule("TWS399", "some-rule", Family.DRIFT)
    good = types.ModuleType("good")
    good.SOME_RULE = rule  # type: ignore[attr-defined]
    assert rules._collect((good,)) == {"TWS399": rule}
    misnamed = types.ModuleType("misnamed")
    misnamed.OTHER_RULE = rule  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="misnamed.OTHER_RULE holds rule some-rule"):
        rules._collect((misnamed,))
    with pytest.raises(ValueError, match="defined twice"):
        rules._collect((good, good))


def test_every_rule_is_a_constant_of_its_familys_module() -> None:
    assert [m.__name__.rsplit(".", 1)[1].upper() for m in FAMILY_MODULES] == [
        f.name for f in Family
    ]
    seen = []
    for module, family in zip(FAMILY_MODULES, Family, strict=True):
        found = [v for v in vars(module).values() if isinstance(v, Rule)]
        assert found, family  # no empty family
        for rule in found:
            assert rule.family is family, rule.id
            assert getattr(rules, rule.constant) is rule  # twsrt.rules.<CONSTANT>
            seen.append(rule.id)
    for module in rules.agent_rule_modules():  # an agent's own rules, in its package
        seen += [v.id for v in vars(module).values() if isinstance(v, Rule)]
    assert sorted(seen) == list(CATALOG)  # the catalog is exactly the constants, in id order


def test_families_have_distinct_digits_headings_and_tags() -> None:
    for attribute in ("digit", "heading", "tag"):
        values = [getattr(f, attribute) for f in Family]
        assert len(set(values)) == len(values), attribute
    assert not Family.LOADING.suppressible and not Family.SCHEMA.suppressible
    assert all(f.suppressible for f in Family if f not in (Family.LOADING, Family.SCHEMA))


def test_docs_have_one_heading_per_family_in_id_order() -> None:
    headings = [
        line[3:]
        for line in render_rules_markdown().splitlines()
        if line.startswith("## ") and line not in ("## Levels", "## Catalog")
    ]
    assert headings == [f.heading for f in Family]
    assert "## Other" not in render_rules_markdown()


def test_sarif_tags_each_rule_with_its_family(tmp_path: Path) -> None:
    driver = sarif_log(CheckReport(root=tmp_path))["runs"][0]["tool"]["driver"]
    tags = {entry["id"]: entry["properties"]["tags"] for entry in driver["rules"]}
    assert tags == {rule.id: ["security", rule.family.tag] for rule in CATALOG.values()}
    assert tags["TWS501"] == ["security", "engine-gap"]  # was "other" before families
    assert tags["TWS601"] == ["security", "effective-config"]


def test_the_actions_drift_list_is_the_drift_family() -> None:
    spec = importlib.util.spec_from_file_location(
        "twsrt_action_rules", REPO / "action" / "twsrt_action.py"
    )
    assert spec and spec.loader
    action = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(action)
    assert {r.id for r in CATALOG.values() if r.family is Family.DRIFT} == action.DRIFT_RULES


def test_lookup_is_exact_and_explain_ignores_the_case_of_an_id() -> None:
    assert rules.lookup("TWS301") is rules.TARGET_MISSING
    assert rules.lookup("target-missing") is rules.TARGET_MISSING
    # a [[check.ignore]] entry names a rule exactly: "tws301" is unknown there (TWS008)
    assert rules.lookup("tws301") is None and rules.lookup("TARGET-MISSING") is None
    text = rules.explain_text("tws301")
    assert text is not None and text.startswith("TWS301 target-missing (error)\n\n")
    assert text.endswith(rules.TARGET_MISSING.help)
    assert rules.explain_text("target-missing") == text
    assert rules.explain_text("no-such-rule") is None


def test_finding_and_fail_take_a_rule_constant() -> None:
    where = Location("srt.json", 3, 5)
    made = finding(rules.DANGER_FULL_ACCESS, "Open.", where, agent="codex")
    assert (made.rule_id, made.level, made.agent) == (
        "TWS212",
        rules.DANGER_FULL_ACCESS.level,
        "codex",
    )
    assert made.rule is rules.DANGER_FULL_ACCESS
    assert fail(rules.TARGET_UNUSABLE, "Bad.", where).findings[0].rule is rules.TARGET_UNUSABLE


def _string_rule_references(path: Path) -> list[str]:
    """Each place in ``path`` that names a rule by a string: a literal equal to a rule's id or
    name (a sandbox mode name such as danger-full-access only where a rule goes), or any
    literal as the rule of ``finding``/``fail``."""
    names = {key for rule in CATALOG.values() for key in (rule.id, rule.name)}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rule_arguments = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("finding", "fail"):
            given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "rule")]
            rule_arguments |= {id(sub) for arg in given for sub in ast.walk(arg)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and id(node) in rule_arguments:
            found.append((node.lineno, "a string as the rule of finding()/fail()"))
        elif isinstance(node, ast.Constant) and node.value in names - set(SANDBOX_MODES):
            found.append((node.lineno, f"{node.value!r} names a rule by a string"))
    return [f"{path}:{line}: {problem}" for line, problem in sorted(found)]


def test_no_emitter_names_a_rule_by_a_string() -> None:
    """Emitters use the constants (``twsrt.rules.DANGER_FULL_ACCESS``), so a misspelt rule fails
    at import; outside the catalog no string in twsrt/ names a rule."""
    package = REPO / "twsrt"
    catalog = {Path(module.__file__ or "") for module in rules.agent_rule_modules()}
    found = [
        problem
        for path in sorted(package.rglob("*.py"))
        if (package / "rules") not in path.parents and path not in catalog  # an agent's rules
        for problem in _string_rule_references(path)
    ]
    assert found == []


def test_the_string_check_sees_a_rule_named_by_a_string(tmp_path: Path) -> None:
    emitter = tmp_path / "emitter.py"
    emitter.write_text(
        "name = 'drift-changed'\n"
        "finding('danger-full-access', 'm', where)\n"
        "fail(f'{kind}', 'm', where)\n"
        "mode = 'danger-full-access'\n"  # a sandbox mode, not a rule
        "finding(DRIFT_CHANGED, 'TWS304 is fine in a message', where)\n"
    )
    assert [p.split(": ", 1)[1] for p in _string_rule_references(emitter)] == [
        "'drift-changed' names a rule by a string",
        "a string as the rule of finding()/fail()",
        "a string as the rule of finding()/fail()",
    ]
