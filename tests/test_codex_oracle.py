"""The indexed Codex translation gives exactly what the quadratic code before issue 17 gave
(``tests/support/oracle_codex.py``), on policies drawn to hit its hard cases: nested and
overlapping paths, ``~`` against absolute spellings of the same directory, relative paths below
``.``, globs, trailing ``/**``, duplicates, and write roots inside denied paths."""

from __future__ import annotations

import tomllib
from importlib import import_module
from typing import Any
from unittest import mock

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from tests.support import oracle_codex
from tests.support.policies import make_policy
from twsrt.agents.codex import agent as codex
from twsrt.agents.codex.project import translate_project
from twsrt.findings import TwsrtError

HOME = "/home/u"

# the module, not the function ``codex.translate`` that shadows it
TRANSLATE = import_module("twsrt.agents.codex.translate")
FILES = import_module("twsrt.agents.codex.files")

# few names, so that paths nest and overlap often
_name = st.sampled_from(["a", "b", "c", "u"])
_below = st.lists(_name, min_size=1, max_size=4).map("/".join)
_path = st.one_of(
    _below.map(lambda p: "~/" + p),
    _below.map(lambda p: "/home/u/" + p),  # the same directories as ~/, spelled absolute
    _below.map(lambda p: "/" + p),
    _below,
    _below.map(lambda p: "./" + p),
    st.sampled_from([".", "/home/u", "/home", "~/a/*.pem", "a/**", "~/b/[ab]", "**/*.key"]),
    st.tuples(_below, st.sampled_from(["*", "?", "[ab]", "[", "{a,b}", "*/c", "**/b"])).map(
        lambda t: t[0] + t[1]  # a wildcard inside a name: the literal start ends mid-name
    ),
)
_entry = st.tuples(_path, st.sampled_from(["", "", "", "/**", "/"])).map(lambda t: t[0] + t[1])
_entries = st.lists(_entry, max_size=8)


def _translate(srt: dict[str, Any], home: str | None) -> tuple[Any, list[Any]] | str:
    try:
        compiled, findings = codex.translate(make_policy(srt), "workspace-write", home)
    except TwsrtError as exc:
        return str(exc)
    return compiled, findings


@settings(max_examples=400, deadline=None)
@given(_entries, _entries, _entries, st.sampled_from([HOME, HOME + "/", None]))
# a write root matched by a glob deny whose wildcard is a class, or inside a name
@example(["~/b/[ab]"], [], ["~/b/a", "~/b/c"], HOME)
@example([], ["/a/b*"], ["/a/bc/d", "/a/c"], None)
def test_indexed_paths_equal_the_quadratic_oracle(
    deny_read: list[str], deny_write: list[str], allow_write: list[str], home: str | None
) -> None:
    srt = {
        "filesystem": {"denyRead": deny_read, "denyWrite": deny_write, "allowWrite": allow_write}
    }
    new = _translate(srt, home)
    with (
        mock.patch.object(TRANSLATE, "_write_access", oracle_codex.write_access),
        mock.patch.object(TRANSLATE, "_mixed_spellings", oracle_codex.mixed_spellings),
        mock.patch.object(TRANSLATE, "_deny_index", oracle_codex.deny_index),
    ):
        old = _translate(srt, home)
    assert new == old
    if isinstance(new, tuple):
        assert codex.merged_config(None, new[0]) == oracle_codex.merged_config(None, old[0])


def _compiled(srt: dict[str, Any], mode: str = "workspace-write", project: bool = False) -> Any:
    if project:  # the project layer: its own profile name (agents/codex/project.py)
        return translate_project(make_policy(srt), mode)[0]
    return codex.translate(make_policy(srt), mode)[0]


# what twsrt may merge: stale and current profiles, with and without the network proxy, none
COMPILED = [
    _compiled({"filesystem": {"denyRead": ["~/.aws", "./x"], "allowWrite": ["."]}}),
    _compiled({"filesystem": {"denyRead": ["~/.ssh"]}, "network": {"allowedDomains": ["a.com"]}}),
    _compiled({"filesystem": {"denyWrite": ["~/.ssh/*.pem", "/etc/é"]}}),
    _compiled({"network": {"deniedDomains": ["b.com"]}}, "danger-full-access"),
    _compiled({}, "danger-full-access"),
    _compiled({"filesystem": {"denyRead": ["**/*.pem"], "allowWrite": ["."]}}, project=True),
    _compiled({"filesystem": {"denyRead": ["~/.ssh", "./x"]}}, project=True),
]


_owned: dict[int, tuple[Any, list[str]]] = {}  # holds each compiled, so no id is reused


def _owned_lines(compiled: Any) -> list[str]:
    """What the merge writes for ``compiled``: its top keys, features table and profile (the
    oracle's tomlkit merge once per compiled profile, not once per drawn config)."""
    hit = _owned.get(id(compiled))
    if hit is None or hit[0] is not compiled:
        fresh = oracle_codex.merged_config(None, compiled)
        top, _, tables = fresh.partition("\n\n")
        lines = [*top.splitlines(), *(f"[{t}" for t in f"\n{tables}".split("\n[")[1:])]
        hit = _owned[id(compiled)] = (compiled, lines)
    return list(hit[1])


_value = st.sampled_from(['"o3"', "true", "false", "1", '"twsrt"', '"on-request"', '"user"'])
_owned_key = st.sampled_from([*codex.OWNED_TOP, "model", "sandbox_mode_x", '"approval_policy"'])
_top_line = st.tuples(_owned_key, _value).map(lambda t: f"{t[0]} = {t[1]}")
_comment = st.sampled_from(["# hand-maintained", "", "# twsrt: keep"])
_table = st.sampled_from(
    [
        "[features]\nnetwork_proxy = true",
        "[features]\nnetwork_proxy = false\nother = 1",
        "[features]\nnetwork_proxy = false",
        "[features]\nother = 1",
        "[features]\nnetwork_proxy = true # why",
        "[features]\nnetwork_proxy = 1",
        '[permissions.other]\nextends = ":read-only"',
        '[permissions.other.filesystem]\n"~/x" = "deny"',
        '[permissions]\nother = { extends = ":workspace" }',
        '[mcp_servers.x]\nenv = { TOKEN = "s" }\nargs = ["a", "b"]',
        '[profiles.p]\nmodel = "o3"',
        '[projects."/home/u/src"]\ntrust_level = "trusted"',
        '[[skills]]\nname = "a"',
        '[permissions.twsrt]\nextends = ":workspace"',
        '[permissions.twsrt-project]\nextends = ":workspace"',
        '[permissions.twsrt-project.workspace_roots]\n"." = true',
        "[permissions.twsrt]\ndescription = 'mine'\n\n[permissions.twsrt.network]\nx = 1",
        *(line for compiled in COMPILED for line in _owned_lines(compiled) if line[0] == "["),
    ]
)


@st.composite
def user_config(draw: st.DrawFn, compiled: Any) -> str:
    """A config.toml a user may have, around what ``compiled`` merges: comments, plain and
    owned keys, dotted keys, tables and inline tables, the current or a stale twsrt profile,
    or a file twsrt merged before."""
    owned = _owned_lines(compiled)
    top = [line for line in owned if line[0] != "["]
    lines = draw(st.permutations(top)) if draw(st.booleans()) else []
    lines += draw(st.lists(st.one_of(_top_line, _comment), max_size=3))
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["features.network_proxy = true", "features.x = 1"])))
    tables = [line for line in owned if line[0] == "["] if draw(st.booleans()) else []
    tables += draw(st.lists(_table, max_size=4))
    tables = list(dict.fromkeys(draw(st.permutations(tables))))
    assume(len({table.split("\n")[0] for table in tables}) == len(tables))
    text = "\n".join(lines + tables) + draw(st.sampled_from(["\n", "", "\n\n"]))
    assume(_valid(text))  # e.g. [features] after features.x: check refuses it before merging
    if draw(st.booleans()):
        merged = _outcome(oracle_codex.merged_config, text, draw(st.sampled_from(COMPILED)))
        assume(_valid(merged))  # not a tomlkit error message
        text = merged
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


def _valid(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


def _outcome(merge: Any, text: str, compiled: Any) -> str:
    from tomlkit.exceptions import ParseError

    try:
        return merge(text, compiled)
    except (ParseError, ValueError, KeyError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=500, deadline=None)
@given(st.data(), st.sampled_from(COMPILED))
def test_merged_config_equals_the_tomlkit_oracle(data: st.DataObject, compiled: Any) -> None:
    text = data.draw(user_config(compiled))
    old = _outcome(oracle_codex.merged_config, text, compiled)
    assert _outcome(codex.merged_config, text, compiled) == old
    assert _outcome(lambda t, c: codex.merged_config(t, c, tomllib.loads(t)), text, compiled) == old


def _in_sync_out_of_order(compiled: Any) -> list[str]:
    """Files whose values are in sync but whose tables tomlkit lays out again (or refuses)."""
    top, *tables = "\n".join(_owned_lines(compiled)).split("\n[")
    other = '[permissions]\nother = { extends = ":workspace" }\n'
    return [
        "\n[".join([top, *tables[:-1]]) + "\n" + other + "[" + tables[-1],
        "\n[".join([top, *tables[1:]]) + "\n[" + tables[0],
        "\n[".join([top, tables[-1], *tables[:-1]]) + '\n[model]\nx = "y"\n',
    ]


@pytest.mark.parametrize("compiled", COMPILED[:3])
def test_tables_out_of_order_are_merged_as_tomlkit_does(compiled: Any) -> None:
    for text in _in_sync_out_of_order(compiled):
        assert _valid(text)
        expected = _outcome(oracle_codex.merged_config, text, compiled)
        assert _outcome(codex.merged_config, text, compiled) == expected


@pytest.mark.parametrize("compiled", COMPILED)
@pytest.mark.parametrize("stale", [COMPILED[0], COMPILED[1]])
@pytest.mark.parametrize("after", ["", "\n", "\n\n", "\n[b]\n", "\n\n\n[b]\n", "[b]\n"])
def test_stale_profile_is_replaced_as_tomlkit_does(compiled: Any, stale: Any, after: str) -> None:
    """The blank lines after a stale profile: tomlkit drops or keeps them depending on whether
    the profile's last table is a sub-table, which the stub must mirror."""
    profile = (
        "[permissions.twsrt]"
        + oracle_codex.merged_config(None, stale).split("[permissions.twsrt]", 1)[1]
    )
    for text in (profile + after, 'model = "o3"\n' + profile.split("\n\n[")[0] + "\n" + after):
        for eol in ("\n", "\r\n"):
            text = text.replace("\n", eol)
            expected = _outcome(oracle_codex.merged_config, text, compiled)
            assert _outcome(codex.merged_config, text, compiled) == expected


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=" \t\r\n\x0b\x0c\xa0\u2003ab-=*'\"\\#;|", max_size=12),
        st.text(max_size=12),
    )
)
def test_rule_words_equal_shlex(command: str) -> None:
    import shlex

    try:
        expected: Any = tuple(shlex.split(command))
    except ValueError as exc:
        expected = str(exc)
    try:
        words: Any = TRANSLATE._words(command)
    except ValueError as exc:
        words = str(exc)
    assert words == expected


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet='aZ09_-."\\\x00\x1f\x7f é\n\u2028/~*:', max_size=6) | st.text(max_size=6))
def test_profile_keys_and_values_render_as_before(text: str) -> None:
    from twsrt.diffs import toml_key

    values = {text: text, "x": {text: True}}
    assert FILES._key(text) == toml_key(text)
    assert FILES._toml_text(values, "t") == oracle_codex._toml_text(values, "t")


def test_a_deep_path_is_looked_up_only_where_a_root_could_end() -> None:
    """A path of 20,000 parts below a write root: the roots are looked up at the lengths some
    root has, not at every slash (one slice per slash made a 400 kB path take 4 s)."""
    from twsrt.agents.codex.paths import _Roots

    roots = _Roots(["/srv/a", "/srv/a/b/c", "/elsewhere"])
    asked: list[str] = []

    class Counting(dict):  # type: ignore[type-arg]
        def get(self, key: Any, default: Any = None) -> Any:
            asked.append(key)
            return super().get(key, default)

    roots.by_prefix = Counting(roots.by_prefix)
    path = "/srv/a/b/c/" + "x/" * 20_000 + "leaf"
    around = roots.around(path)
    assert asked == ["/srv/a", "/srv/a/b/c"]
    assert [position for position, _ in around] == [0, 1]
    assert around[0][1][:2] == ["/srv/a/b", "/srv/a/b/c"]
