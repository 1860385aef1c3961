"""`twsrt check` at scale (issue 28): the work per rule is a constant, proved by counting work,
never by timing (benchmarks/bench.py measures the times)."""

from __future__ import annotations

import importlib.util
import json
import sys
import tomllib
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import FrameType, ModuleType

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support.sandbox import REPO_ROOT

import twsrt.checking as checking
import twsrt.rules as rules
from twsrt.agents import REGISTRY
from twsrt.agents.abspaths import PathIndex, inside
from twsrt.agents.settingsmerge import same_json
from twsrt.api import check
from twsrt.findings import Finding
from twsrt.jsonpos import parse_json, walk
from twsrt.policy import has_dots
from twsrt.report import Suppression
from twsrt.rules import CATALOG, lookup
from twsrt.sources import _CONTROL, control_characters
from twsrt.tomlpos import _RUN, BULK
from twsrt.tomlpos import loads as toml_loads

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


# ---------------------------------------------------------------- check's work per rule


# Calls a linear step may add beyond 5x: a step whose first few calls go another way (LineIndex
# counts newlines for its first lookups per text, then bisects). A quadratic one is far beyond
# it: 6 rules per list make 36 pairs, 30 make 900.
SLACK = 50


def _make_policy() -> ModuleType:
    """benchmarks/make_policy.py (a script directory, not a package), as a module."""
    spec = importlib.util.spec_from_file_location(
        "make_policy", REPO_ROOT / "benchmarks" / "make_policy.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _calls_of_check(repo: Path) -> Counter[tuple[str, int, str]]:
    """Every Python function call (by code object) and C function call (by name) of one
    in-process ``twsrt check`` of ``repo``."""
    calls: Counter[tuple[str, int, str]] = Counter()

    def count(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            code = frame.f_code
            calls[(code.co_filename, code.co_firstlineno, code.co_name)] += 1
        elif event == "c_call":
            calls[("C", 0, getattr(arg, "__qualname__", repr(arg)))] += 1

    sys.setprofile(count)
    try:
        report = check(repo / "twsrt.toml")
    finally:
        sys.setprofile(None)
    assert report.exit_code == 0, [item.render() for item in report.findings]
    return calls


def test_check_calls_every_function_at_most_five_times_as_often_for_five_times_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linearity by counting work, not by timing: a check of 5n rules (make_policy's repository,
    all four agents) calls no function more than 5 times as often as a check of n rules (plus
    SLACK calls), so no step scans all the rules for each rule, re-parses a file per
    entry or searches the catalog per finding. (A quadratic loop in C, ``x in list``, is not a
    call: benchmarks/bench.py's 50k/10k ratio watches for that.)"""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    make_policy = _make_policy()
    small, large = 48, 240  # 6 and 30 rules per list
    counted = {}
    for size in (small, large):
        repo = tmp_path / str(size)
        make_policy.write_repo(repo, size)
        monkeypatch.chdir(repo)
        counted[size] = _calls_of_check(repo)
    grown = {
        key: (calls, counted[small][key])
        for key, calls in counted[large].items()
        if calls > 5 * counted[small][key] + SLACK
    }
    assert not grown, "called more than 5x as often: " + ", ".join(
        f"{name} ({path}:{line}) {calls} vs {before}"
        for (path, line, name), (calls, before) in sorted(grown.items())
    )
    # the per-rule steps ran, dozens of calls per rule more at the larger size (~34 today, ~400
    # before issue 28 cut the work per rule)
    added = sum(counted[large].values()) - sum(counted[small].values())
    assert added > 20 * (large - small)


# ---------------------------------------------------------------- Copilot's names under roots

_PATHS = st.lists(st.sampled_from(["a", "b", "ab", ".", "", "~"]), min_size=0, max_size=4).map(
    "/".join
) | st.lists(st.sampled_from(["a", "b", "ab", ""]), max_size=4).map(lambda p: "/" + "/".join(p))


@settings(max_examples=300, deadline=None)
@given(st.lists(_PATHS, max_size=6), _PATHS, _PATHS)
def test_no_root_holds_a_path_below_one_it_neither_holds_nor_may_hold_below(
    roots: list[str], path: str, name: str
) -> None:
    """What lets Copilot's protected names cost a lookup or two per write root instead of one
    per name (settings._protected_names): a path below P is held only if P is, or some root
    stands at or below P, the same verdict as ``inside`` over every root."""
    index = PathIndex(roots)
    below = f"{path.rstrip('/')}/{name}"
    scanned = any(inside(below, root) for root in roots)
    assert index.holds(below) == scanned
    if not index.holds(path) and not index.may_hold_below(path):
        assert not scanned
    index.add(below)  # the sorted stems are made again after an addition
    assert index.may_hold_below(path)


# ---------------------------------------------------------------- dots in policy paths


@given(st.lists(st.sampled_from(["", ".", "..", "...", ".a", "a.", "a", "~", "*"]), max_size=6))
def test_has_dots_finds_a_dot_component_as_the_split_does(parts: list[str]) -> None:
    """has_dots tests substrings (it is asked of every policy path); the meaning is the split's:
    a ``.`` or ``..`` component after the first, or a leading ``..``."""
    path = "/".join(parts)
    split = path.split("/")
    assert has_dots(path) == (any(p in (".", "..") for p in split[1:]) or split[0] == "..")


# ---------------------------------------------------------------- control characters in sources


@given(
    st.lists(st.text(st.characters(max_codepoint=0xA0), max_size=4), max_size=3),
    st.booleans(),
)
def test_control_characters_skips_only_texts_whose_strings_hold_none(
    entries: list[str], ascii_only: bool
) -> None:
    """control_characters walks the document only when the text has a backslash or a raw DEL
    or C1 character (json.loads refuses a raw one below U+0020 in a string); the findings are
    those of the walk over every key and string."""
    text = json.dumps({"network": {"allowedDomains": entries}}, ensure_ascii=ascii_only)
    parsed = parse_json(text)
    walked = [
        p for p, _, node in walk(parsed.value) if isinstance(node, str) and _CONTROL.search(node)
    ]
    assert [item.location.pointer for item in control_characters(parsed, "x.json")] == walked


# ---------------------------------------------------------------- bulk TOML (Codex's config.toml)


def _run(header: str, size: int, duplicate: bool) -> str:
    pairs = [f'"/tmp/r-{index:03d}/.git" = "read"\n' for index in range(size)]
    if duplicate and pairs:
        pairs.append(pairs[0])
    return f"[{header}]\n" + "".join(pairs)


_FRAGMENTS = st.one_of(
    st.builds(
        _run,
        st.sampled_from(["p.fs", "p", "true", "inf.x", "p.fs.sub", "1.5", "q-1"]),
        st.sampled_from([0, BULK - 1, BULK, BULK + 5]),
        st.booleans(),
    ),
    st.sampled_from(
        [
            "a = [\n",  # a multi-line array left open: a run inside it is no table
            "]\n",
            "x = 1\n",
            'p.fs.k = "v"\n',
            '"/tmp/r-000/.git" = "read"\n',
            "[p.fs.sub]\n",
            "[[p]]\n",
            's = """\n',
            "# comment\n",
            "\n",
            "[other]\n",
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=7))
# the table has a key from elsewhere: its order after the cut would differ
@example([_run("p.fs", BULK, False), "[p.fs.sub]\n"])
# a header that is an array element (true): without the run the array would be valid
@example(["[true]\n", "[other]\n", "a = [\n", _run("true", BULK, False), "]\n"])
# a run inside a multi-line string, the table declared empty elsewhere
@example(["[p]\n", "[other]\n", 's = """\n', _run("p", BULK, False), '"""\n'])
@example([_run("p.fs", BULK, True)])  # a duplicate pair
def test_bulk_toml_is_read_as_tomllib_reads_it(fragments: list[str]) -> None:
    """tomlpos.loads cuts runs of plain string pairs out of what tomllib reads and sets them
    itself: the same value, key order included, or tomllib's own error, for texts that put
    runs inside arrays and strings, under headers that are values, twice, and after keys."""
    text = "".join(fragments)
    try:
        expected: object = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        expected = repr(exc)
    try:
        got: object = toml_loads(text)
    except tomllib.TOMLDecodeError as exc:
        got = repr(exc)
    assert repr(got) == repr(expected)  # repr: dict order counts


def test_codex_config_of_a_large_policy_takes_the_bulk_path(tmp_path: Path) -> None:
    """The bulk path is taken for Codex's generated tables (make_policy's shape), so the test
    above covers what a large check runs."""
    text = "[p.fs]\n" + "".join(f'"/tmp/b-{i:05d}" = "write"\n' for i in range(BULK))
    assert toml_loads(text) == tomllib.loads(text)
    assert len(_RUN.findall(text)) == 1


# ---------------------------------------------------------------- suppressions per finding


def test_only_findings_of_a_rule_an_ignore_entry_names_are_matched_against_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check asks once per rule whether an entry may suppress it; the ~43,000 notes of a 50k
    check that no entry names never reach first_match (make_policy's six entries)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    _make_policy().write_repo(repo, 48)
    monkeypatch.chdir(repo)
    asked: list[str] = []
    match = checking.first_match

    def counted(ignores: dict[str, list[Suppression]], item: Finding) -> Suppression | None:
        asked.append(item.rule_id)
        return match(ignores, item)

    monkeypatch.setattr(checking, "first_match", counted)
    report = check(repo / "twsrt.toml")
    named = {
        entry["rule"]
        for entry in tomllib.loads((repo / "twsrt.toml").read_text())["check"]["ignore"]
    }
    every = [*report.findings, *(item for item, _ in report.suppressed)]
    assert report.suppressed and len(every) > len(asked)
    assert sorted(asked) == sorted(
        item.rule_id for item in every if {item.rule_id, item.rule.name} & named
    )


_JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "a", "b", "1", "true"]),
)
_JSON = st.recursive(
    _JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
        st.dictionaries(st.sampled_from([1, "1", True]), inner, max_size=2),
    ),
    max_leaves=12,
)


@settings(max_examples=500, deadline=None)
@given(_JSON, _JSON)
@example(["a", "b"], ("a", "b"))
@example({"a": 1, "b": 2}, {"b": 2, "a": 1})
@example([1, True, 1.0], [1, 1, 1])
@example([-0.0], [0.0])
@example({1: "x"}, {"1": "x"})
def test_same_json_is_the_comparison_of_the_two_renderings(a: object, b: object) -> None:
    """splice_settings keeps a file whose managed members are already right without rendering
    them (two json.dumps per member were most of a 50k splice): the answer stays json.dumps'."""
    assert same_json(a, b) == (json.dumps(a) == json.dumps(b))
    assert same_json(a, a)


def test_what_the_approval_mode_does_not_change_is_compiled_once_per_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check compiles Claude and Copilot in both modes (make_policy configures both yolo
    files): Copilot's sandbox settings and Claude's deny rules are made once (Context.once),
    and each mode's file still matches (exit 0, no drift)."""
    import twsrt.agents.claude.translate as claude
    import twsrt.agents.copilot.agent as copilot

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    _make_policy().write_repo(repo, 48)
    monkeypatch.chdir(repo)
    made: Counter[str] = Counter()
    for module, name in ((claude, "_deny_rules"), (copilot, "compile_sandbox")):
        original = getattr(module, name)

        def counted(*args: object, _name: str = name, _f: object = original) -> object:
            made[_name] += 1
            return _f(*args)  # type: ignore[operator]

        monkeypatch.setattr(module, name, counted)
    report = check(repo / "twsrt.toml")
    assert report.exit_code == 0, [item.render() for item in report.findings]
    assert made == {"_deny_rules": 1, "compile_sandbox": 1}


def test_the_registry_is_asked_as_often_for_five_times_the_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """check's loop over every finding (suppressions ask each one's rule) runs with the catalog
    settled: the registry questions of a lookup are asked a constant number of times, not per
    finding."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    asked = Counter[int]()
    declarations = rules._declarations

    def counted() -> tuple[object, ...] | None:
        asked[size] += 1
        return declarations()

    monkeypatch.setattr(rules, "_declarations", counted)
    for size in (48, 240):
        repo = tmp_path / str(size)
        _make_policy().write_repo(repo, size)
        monkeypatch.chdir(repo)
        asked[size] = 0  # write_repo's own generate asked too
        report = check(repo / "twsrt.toml")
        assert report.exit_code == 0 and report.suppressed
    assert asked[240] == asked[48] < 20


_TOML = st.recursive(
    st.one_of(st.booleans(), st.integers(-1, 1), st.floats(-1, 1), st.sampled_from(["", "a"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner)
    ),
    max_leaves=10,
)


def _depth_by_walk(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth_by_walk, value.values()), default=-1)
    if isinstance(value, list):
        return 1 + max(map(_depth_by_walk, value), default=-1)
    return 0


def _same_by_walk(old: object, new: object) -> bool:
    if type(old) is not type(new):
        return False
    if isinstance(new, dict):
        assert isinstance(old, dict)
        return old.keys() == new.keys() and all(_same_by_walk(old[k], v) for k, v in new.items())
    if isinstance(new, list):
        assert isinstance(old, list)
        return len(old) == len(new) and all(map(_same_by_walk, old, new))
    return bool(old == new)


@settings(max_examples=300, deadline=None)
@given(_TOML, _TOML)
@example(["a", "b"], ["a", "b"])
@example(["a", 1], ["a", True])
@example([], [[[["a"]] * 2]] * 3)
@example({}, json.loads("[" * 70 + '"a"' + "]" * 70))
def test_codex_depth_and_sameness_skip_the_scalars_and_keep_their_answers(
    old: object, new: object
) -> None:
    """Codex's config check stacks only containers and compares lists of strings at C speed:
    the depth and the sameness (types too) are the walk's."""
    from twsrt.agents.codex.files import _SAFE_DEPTH, _depth, _same

    assert _depth(new) == min(_depth_by_walk(new), _SAFE_DEPTH + 1)  # no deeper than it looks
    assert _same(old, new) == _same_by_walk(old, new)
    assert _same(new, new)
