"""The Gemini target's translation on its own terms: every rule of every golden policy file is
one Gemini loads (an explicit priority in range, a known decision, one matcher), the priorities
keep every deny above every ask above anything a user tier writes on its own, and each file-tool
pattern matches, in Node's regex engine as Gemini runs it, exactly the path and what lies below
it, whatever the path holds (quotes, backslashes, regex characters, non-ASCII)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.tools import locate_tool, require_tool

from twsrt.agents.gemini.declaration import ALLOW_PRIORITY, ASK_PRIORITY, DENY_PRIORITY
from twsrt.agents.gemini.translate import path_pattern, toml_value

GOLDEN = Path(__file__).resolve().parent / "golden" / "gemini"
# the user files and the managed admin files alike
POLICY_FILES = sorted(GOLDEN.parent.glob("gemini*/*/*expected.twsrt.toml"))
# what Gemini 0.61.0 puts at the user tier on its own (observed, docs/agents/gemini.md):
# an "allow for all future sessions" rule at 950, and tools.allowed, which scores like 300
AUTO_SAVED, TOOLS_ALLOWED = 950, 300


def test_the_golden_cases_hold_policy_files() -> None:
    assert len(POLICY_FILES) >= 20


@pytest.mark.parametrize("path", POLICY_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_rule_is_one_gemini_loads(path: Path) -> None:
    rules = tomllib.loads(path.read_text(encoding="utf-8"))["rule"]
    assert rules
    for rule in rules:
        assert set(rule) <= {"toolName", "commandPrefix", "argsPattern", "decision", "priority"}
        assert isinstance(rule["priority"], int) and 0 <= rule["priority"] <= 999
        assert rule["decision"] in ("deny", "ask_user", "allow")
        assert not ("commandPrefix" in rule and "argsPattern" in rule)
        if "commandPrefix" in rule:
            assert rule["toolName"] == "run_shell_command"


def test_every_deny_outranks_every_ask_and_every_ask_what_gemini_adds() -> None:
    assert DENY_PRIORITY == 999  # the top of the user tier: nothing there outranks it
    assert DENY_PRIORITY > ASK_PRIORITY > AUTO_SAVED > ALLOW_PRIORITY > TOOLS_ALLOWED


def test_toml_strings_are_read_back_as_written() -> None:
    text = 'a"b\\c\td\x7fe\x00f\u00e9\U0001f600'
    assert tomllib.loads(f"v = {toml_value(text)}")["v"] == text
    assert tomllib.loads(f"v = {toml_value(['x', text])}")["v"] == ["x", text]


_NODE_CHECK = r"""
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(([pattern, argument, value]) =>
  new RegExp(pattern).test(JSON.stringify({ [argument]: value })));
process.stdout.write(JSON.stringify(out));
"""

_PART = st.text(
    st.one_of(
        st.characters(codec="utf-8", exclude_characters="/\x00"), st.sampled_from(".*+?(|\\")
    ),
    min_size=1,
    max_size=8,
).filter(lambda part: part not in (".", ".."))


@settings(max_examples=5, deadline=None)
@given(st.lists(st.lists(_PART, min_size=1, max_size=4), min_size=40, max_size=40))
def test_a_path_pattern_matches_the_path_and_below_it_only(paths: list[list[str]]) -> None:
    node = require_tool("node", locate_tool("node", "TWSRT_NODE_BIN"))
    cases, expected = [], []
    for parts in paths:
        path = "/" + "/".join(parts)
        for argument in ("file_path", "dir_path"):
            pattern = path_pattern(argument, path)
            for value, hit in (
                (path, True),
                (path + "/below", True),
                (path + "x", False),  # a sibling that only starts the same
                (path.rsplit("/", 1)[0] or "/", False),  # its parent
            ):
                cases.append([pattern, argument, value])
                expected.append(hit)
            mutant = "".join("a" if char in ".*+?[]{}()|^$\\" else char for char in path)
            if mutant != path:  # what an unescaped regex character would also match
                cases.append([pattern, argument, mutant])
                expected.append(False)
            other = "dir_path" if argument == "file_path" else "file_path"
            cases.append([pattern, other, path])  # another argument of the same value
            expected.append(False)
    run = subprocess.run(
        [node, "-e", _NODE_CHECK], input=json.dumps(cases), capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == expected
