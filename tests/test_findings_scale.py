"""The findings path at scale (issue 17): what a finding quotes is capped, and the faster
report writers and ignore matching equal the ones they replaced (``support.oracle_findings``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import oracle_findings as oracle
from support.sandbox import Sandbox

from twsrt.findings import MESSAGE_LIMIT, QUOTE_LIMIT, Finding, capped_lines, quoted
from twsrt.jsonpos import parse_json
from twsrt.locations import Location
from twsrt.report import CheckedFile, CheckReport, Suppression
from twsrt.reports.json_report import dump
from twsrt.reports.junit import report_suite, xml_text
from twsrt.reports.sarif import sarif_log
from twsrt.rules import CATALOG, Level
from twsrt.schemas import _validate
from twsrt.suppressions import by_rule as _by_rule
from twsrt.suppressions import first_match as _first_match

FAST = settings(max_examples=60, deadline=None)

# ---------------------------------------------------------------- the cap


def test_a_short_value_is_quoted_whole_and_a_long_one_by_its_start_and_length() -> None:
    assert quoted("~/.aws") == "~/.aws"
    assert quoted("x" * QUOTE_LIMIT) == "x" * QUOTE_LIMIT
    long = "~/" + "x" * 1_000_000
    assert quoted(long) == long[:QUOTE_LIMIT] + "… (1,000,002 characters)"
    assert quoted(long, 10) == "~/xxxxxxxx… (1,000,002 characters)"


def test_a_finding_caps_its_message_and_each_diff_line() -> None:
    where = Location("policy/srt-settings.json", 3, 5, "/filesystem/denyRead/0")
    huge = "y" * 5_000_000
    item = Finding("TWS303", f"path '{huge}' is odd", where, diff=f"--- a\n+{huge}\n ok\n")
    assert len(item.message) < MESSAGE_LIMIT + 100
    assert item.message.endswith(f"(message cut at 2,000 of {len(huge) + 14:,} characters)")
    assert item.diff.split("\n")[0] == "--- a" and item.diff.split("\n")[2:] == [" ok", ""]
    assert len(item.diff) < MESSAGE_LIMIT + 100
    ordinary = Finding("TWS303", "path '~/.aws' is odd", where, diff="--- a\n+x\n")
    assert (ordinary.message, ordinary.diff) == ("path '~/.aws' is odd", "--- a\n+x\n")
    assert capped_lines("a\nb") == "a\nb"


@pytest.fixture
def dotfiles(sandbox: Sandbox) -> Sandbox:
    return sandbox.use_example()


def _with_deny_path(box: Sandbox, path: str) -> None:
    source = box.repo / "policy" / "srt-settings.json"
    srt = json.loads(source.read_text(encoding="utf-8"))
    srt["filesystem"]["denyRead"].append(path)
    source.write_text(json.dumps(srt), encoding="utf-8")


def _reports(box: Sandbox, tmp_path: Path) -> tuple[int, dict[str, int]]:
    """Exit code of ``check -v`` and the size of each report (text, github on stdout)."""
    files = {name: tmp_path / f"report.{name}" for name in ("json", "sarif", "junit")}
    options = [arg for name, path in files.items() for arg in (f"--{name}", str(path))]
    result = box.run("check", "-v", *options)
    assert "Traceback" not in result.stderr
    sizes = {name: len(path.read_bytes()) for name, path in files.items()}
    sizes["text"] = len(result.stdout.encode("utf-8"))
    github = box.run("check", "-v", "--format", "github")
    assert github.returncode == result.returncode
    sizes["github"] = len(github.stdout.encode("utf-8"))
    return result.returncode, sizes


def test_a_huge_path_is_not_copied_into_the_reports(dotfiles: Sandbox, tmp_path: Path) -> None:
    """A 400 kB deny path reaches the DeepCode finding that quotes it: no report holds it,
    and check still exits 0 (the policy is in sync after generate)."""
    assert dotfiles.run("generate", "-w").returncode == 0
    _, before = _reports(dotfiles, tmp_path)  # the same reports without the path
    huge = "~/" + "x" * 400_000
    _with_deny_path(dotfiles, huge)
    assert dotfiles.run("generate", "-w").returncode == 0
    code, sizes = _reports(dotfiles, tmp_path)
    assert code == 0
    # a copy of the path would add 400 kB; the findings that quote it add a few kB (SARIF also
    # carries the whole rule catalog, which grows with every rule, so no fixed size bounds it)
    assert all(sizes[name] < before[name] + 50_000 for name in sizes), (before, sizes)


def test_a_source_over_the_read_limit_is_one_small_error(dotfiles: Sandbox, tmp_path: Path) -> None:
    """A 50 MB path makes the source larger than twsrt reads (32 MiB): TWS003, exit 1."""
    _, before = _reports(dotfiles, tmp_path)  # the same reports without the path
    _with_deny_path(dotfiles, "~/" + "x" * 50_000_000)
    code, sizes = _reports(dotfiles, tmp_path)
    assert code == 1
    # as above: no fixed size bounds SARIF's rule catalog; one small error adds a few kB
    assert all(sizes[name] < before[name] + 50_000 for name in sizes), (before, sizes)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert [item["rule_id"] for item in report["findings"]] == ["TWS003"]


# ---------------------------------------------------------------- JSON text

scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),  # any code point: quotes, backslashes, control characters, surrogates
)
key = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.booleans(), st.none(), st.floats())
document = st.recursive(
    scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(key, children, max_size=4),
    ),
    max_leaves=30,
)


@FAST
@given(value=st.dictionaries(st.text(max_size=8), document, max_size=5))
def test_dump_writes_what_json_dumps_indented_writes(value: dict[str, Any]) -> None:
    assert dump(value) == oracle.dump(value)


# ---------------------------------------------------------------- SARIF results

RULE_IDS = sorted(CATALOG)
path_text = st.one_of(
    st.sampled_from(["policy/srt-settings.json", "home/.codex/config.toml", "twsrt.toml"]),
    st.sampled_from(["~/.claude/settings.json", "/etc/codex/config.toml", "a b/#c%d.json"]),
    st.text(min_size=1, max_size=12),
)
location = st.builds(
    Location,
    path_text,
    st.integers(-1, 40),
    st.integers(-1, 9),
    st.one_of(st.just(""), st.sampled_from(["/filesystem/denyRead/0", "/a~1b"]), st.text()),
    st.integers(0, 40),  # the end, known (a line) or not (0)
    st.integers(0, 12),
)
finding_value = st.builds(
    lambda rule, message, where, level, agent, related, diff: Finding(
        rule, message, where, level, agent, tuple(related), diff
    ),
    st.sampled_from(RULE_IDS),
    st.text(max_size=30),
    location,
    st.sampled_from(list(Level)),
    st.sampled_from(["", "claude", "codex", "copilot", "deepcode"]),
    st.lists(location, max_size=3),
    st.one_of(st.just(""), st.text(max_size=30)),
)
reason = st.text(min_size=1, max_size=20)


@FAST
@given(
    findings=st.lists(finding_value, max_size=6),
    suppressed=st.lists(st.tuples(finding_value, reason), max_size=3),
    aborted=st.booleans(),
)
def test_sarif_results_equal_the_sarif_om_form(
    findings: list[Finding], suppressed: list[tuple[Finding, str]], aborted: bool
) -> None:
    report = CheckReport(
        findings=findings,
        suppressed=[(item, Suppression("x", why)) for item, why in suppressed],
        root=Path("/repo"),
        aborted=aborted,
    )
    new, old = sarif_log(report), oracle.sarif_whole(report)  # each built once per example
    assert new == old
    assert dump(new) == oracle.dump(old)


# ---------------------------------------------------------------- JUnit XML

# What the XML round trip treats specially: line ends, tabs, stripped and kept control
# characters, noncharacters, markup characters.
awkward_text = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("\r\n\t\x0b\x00\x1f\x7f\x84\x85\x9f\"<>&'\ufdd0\ufffe\U0001fffe é")),
        st.characters(blacklist_categories=("Cs",)),  # lone surrogates break junit_xml itself
    ),
    max_size=20,
)
junit_finding = st.builds(
    lambda rule, message, where, level, agent, diff: Finding(
        rule, message, where, level, agent, (where,), diff
    ),
    st.sampled_from(RULE_IDS),
    awkward_text,
    st.builds(Location, awkward_text, st.integers(-1, 9), st.integers(0, 3), awkward_text),
    st.sampled_from(list(Level)),
    st.sampled_from(["", "codex"]),
    st.one_of(st.just(""), awkward_text),
)
junit_report = st.builds(
    lambda findings, fail_on, checked: CheckReport(
        findings=findings,
        fail_on=fail_on,
        checked=[CheckedFile(path, kind, agent) for path, kind, agent in checked],
    ),
    st.lists(junit_finding, max_size=5),
    st.sampled_from(list(Level)),
    st.lists(
        st.tuples(awkward_text, st.sampled_from(["config", "source", "target"]), awkward_text),
        max_size=3,
    ),
)


@FAST
@given(reports=st.lists(junit_report, max_size=3))
def test_junit_text_equals_junit_xmls_round_trip(reports: list[CheckReport]) -> None:
    suites = [report_suite(report) for report in reports]
    assert xml_text(suites) == oracle.junit_text(suites)


# ---------------------------------------------------------------- schema validation

list_item = st.one_of(
    st.sampled_from(["~/.aws", "/tmp", "./x", "**/*.pem", "github.com", "*.example.com", "ls -l"]),
    st.sampled_from(["", " ", "~user/x", "a b", " ls", "ls ", "\t", "x\ny"]),
    st.text(max_size=4),
    st.sampled_from([5, None, True, ["x"], {"path": "~/x"}, {"path": ""}, {"path": 1}]),
    st.sampled_from([{"path": "~/y", "literal": True}, {"path": "~/y", "extra": 1}]),
)
rule_list = st.one_of(st.lists(list_item, max_size=5), st.sampled_from(["~/.aws", 3, None]))
srt_instance = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.sampled_from([True, False, "yes"]),
        "filesystem": st.one_of(
            st.dictionaries(
                st.sampled_from(["denyRead", "allowRead", "allowWrite", "denyWrite", "bogus"]),
                rule_list,
            ),
            st.just([]),
        ),
        "network": st.dictionaries(
            st.sampled_from(
                ["allowedDomains", "deniedDomains", "allowUnixSockets", "stripResponseHeaders", "x"]
            ),
            rule_list,
        ),
        "unknownKey": st.just(1),
    },
)
bash_instance = st.dictionaries(
    st.sampled_from(["allow", "deny", "ask", "$schema", "bogus"]), rule_list
)


@FAST
@given(
    instance=st.one_of(
        srt_instance.map(lambda i: ("srt", i)), bash_instance.map(lambda i: ("bash", i))
    )
)
@example(instance=("srt", {"network": {"stripResponseHeaders": ["", "x-trace"]}}))
@example(instance=("bash", {"deny": ["rm", " rm"], "ask": ["sudo"]}))
def test_schema_findings_equal_validating_every_list_item(instance: tuple[str, Any]) -> None:
    name, value = instance
    positions = parse_json(json.dumps(value, indent=1))
    found = _validate(name, value, "policy/source.json", positions)
    assert found == oracle.schema_findings(name, value, "policy/source.json", positions)


# ---------------------------------------------------------------- ignore matching

SUPPRESSIBLE = sorted(rule.id for rule in CATALOG.values() if rule.suppressible)[:2]
RULE_KEYS = SUPPRESSIBLE + [CATALOG[rule].name for rule in SUPPRESSIBLE] + ["TWS001", "nope"]
small_location = st.builds(
    Location,
    st.sampled_from(["policy/srt-settings.json", "home/.codex/config.toml"]),
    st.integers(0, 3),
    st.integers(0, 3),
    st.sampled_from(["", "/filesystem/denyRead/0", "/filesystem/denyRead/1", "/network/x"]),
)
small_finding = st.builds(
    Finding,
    st.sampled_from([*SUPPRESSIBLE, "TWS001"]),
    st.sampled_from(["a", "b"]),
    small_location,
    st.sampled_from(list(Level)),
    st.sampled_from(["", "codex", "claude"]),
)
ignore_entry = st.builds(
    Suppression,
    st.sampled_from(RULE_KEYS),
    st.just("a reason that is long enough"),
    st.sampled_from(["", "", "policy/*", "home/.codex/config.toml", "*.toml", "[ph]*"]),
    st.sampled_from(["", "", "/filesystem/denyRead/*", "/network/x", "/*/denyRead/1"]),
    st.sampled_from(["", "", "codex", "claude"]),
)
# one rule suppressed by its id and then by its name: the earlier entry must win
BY_ID_THEN_NAME = [
    Suppression(SUPPRESSIBLE[0], "a reason that is long enough"),
    Suppression(CATALOG[SUPPRESSIBLE[0]].name, "a reason that is long enough", path="policy/*"),
]


@FAST
@given(items=st.lists(small_finding, max_size=8), entries=st.lists(ignore_entry, max_size=8))
@example(
    items=[Finding(SUPPRESSIBLE[0], "a", Location("policy/srt-settings.json"))],
    entries=BY_ID_THEN_NAME,
)
@example(
    items=[Finding(SUPPRESSIBLE[0], "a", Location("policy/srt-settings.json"))],
    entries=BY_ID_THEN_NAME[::-1],
)
def test_indexed_ignore_matching_finds_the_first_matching_entry(
    items: list[Finding], entries: list[Suppression]
) -> None:
    entries = [
        Suppression(e.rule, e.reason, e.path, e.pointer, e.agent, n) for n, e in enumerate(entries)
    ]
    index = _by_rule(entries)
    for item in items:
        assert _first_match(index, item) == oracle.first_suppression(entries, item)


# ---------------------------------------------------------------- validity cache


def test_each_source_is_hashed_and_its_schema_read_once_per_run(
    dotfiles: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The validity cache's key costs a hash of the whole source: once per source and run
    (after a first run has found the sources valid)."""
    from twsrt import schemas

    assert dotfiles.run("check").returncode == 0

    calls: list[str] = []
    marker, text = schemas._cache_marker, schemas.schema_text

    def counted_marker(name: str, instance: Any) -> Any:
        calls.append(f"hash {name}")
        return marker(name, instance)

    def counted_text(name: str) -> str:
        calls.append(f"read {name}")
        return text(name)

    monkeypatch.setattr(schemas, "_cache_marker", counted_marker)
    monkeypatch.setattr(schemas, "schema_text", counted_text)
    for command in (["check"], ["generate", "-n"], ["diff"]):
        calls.clear()
        assert dotfiles.run(*command).returncode == 0
        assert sorted(calls) == sorted(
            f"{what} {name}" for what in ("hash", "read") for name in ("bash", "config", "srt")
        ), command
