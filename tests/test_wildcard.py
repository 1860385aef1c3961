"""Issue 26 item 4: a crafted wildcard in a target (``Bash(a*a*…*b)`` against a long deny) used
to make ``check`` and ``diff`` backtrack for minutes; every match of user text is now linear in
the pattern times the text (twsrt/wildcard.py), and agrees with what it replaced."""

from __future__ import annotations

import fnmatch as stdlib
import json
import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from support.sandbox import Sandbox

from twsrt.effective import command_reaches
from twsrt.wildcard import fnmatch, star_match

STARS = 1_000
BOUND = 2.0  # seconds, generous: the linear matcher takes milliseconds, the regex years


class TooSlow(Exception):
    pass


@contextmanager
def bounded(seconds: float) -> Iterator[Callable[[], float]]:
    """Fail (not hang) when the block runs longer than ``seconds``: SIGALRM interrupts even
    a regex match in C, and repeats (an in-process CLI run turns the first into exit 1); yields
    the elapsed time so far."""

    def expire(signum: int, frame: object) -> None:
        raise TooSlow(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, seconds / 4)
    start = time.perf_counter()
    try:
        yield lambda: time.perf_counter() - start
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def crafted(stars: int = STARS) -> str:
    return "a*" * stars + "b"


def test_a_thousand_star_rule_against_a_long_command_is_bounded() -> None:
    with bounded(BOUND) as elapsed:
        assert not command_reaches(crafted(), "a" * 20_000)
        assert not star_match(crafted(), "a" * 20_000)
        assert not fnmatch("a" * 20_000, crafted())
        assert fnmatch("a" * 20_000 + "b", crafted())
    assert elapsed() < BOUND


def test_a_thousand_star_allow_rule_in_a_target_keeps_check_and_diff_bounded(
    sandbox: Sandbox,
) -> None:
    deny = "a" * 5_000
    sandbox.write("bash-rules.json", {"allow": [], "deny": [deny], "ask": []})
    assert sandbox.run("generate", "-w").returncode == 0
    target = sandbox.repo / "home/.claude/settings.full.json"
    settings = json.loads(target.read_text())
    settings["permissions"]["allow"].append(f"Bash({crafted()})")
    settings["permissions"]["allow"].append(f"Bash({'a*' * STARS})")  # this one covers the deny
    target.write_text(json.dumps(settings, indent=2) + "\n")
    with bounded(4 * BOUND) as elapsed:
        checked = sandbox.run("check", "--format", "json")
        diffed = sandbox.run("diff")
    assert elapsed() < 4 * BOUND
    assert "Traceback" not in checked.stderr + diffed.stderr
    shadowed = [f for f in json.loads(checked.stdout)["findings"] if f["rule_id"] == "TWS609"]
    covering = len(settings["permissions"]["allow"]) - 1  # only the covering rule is reported
    assert [f["location"]["pointer"] for f in shadowed] == [f"/permissions/allow/{covering}"]


def test_a_star_is_any_run_of_characters() -> None:
    assert star_match("git *", "git push")
    assert star_match("*push*", "git push --force")
    assert star_match("a*a", "aa")
    assert not star_match("a*a", "a")
    assert star_match("*", "")
    assert star_match("x", "x") and not star_match("x", "xy")
    assert star_match("a*b", "a\nb")  # a newline is a character like any other


def test_fnmatch_sets_and_question_marks() -> None:
    assert fnmatch("/home/u/.ssh/id", "/home/u/.ss[gh]/*")
    assert not fnmatch("/home/u/.ssx/id", "/home/u/.ss[gh]/*")
    assert fnmatch("a]", "[]]]") is stdlib.fnmatchcase("a]", "[]]]")
    assert fnmatch("[", "[") and fnmatch("b", "[!a]") and not fnmatch("a", "[!a]")
    assert fnmatch("x", "?") and not fnmatch("", "?")


ALPHABET = "ab/-!]["
PATTERN_ALPHABET = ALPHABET + "*?"


@given(st.text(PATTERN_ALPHABET, max_size=8), st.text(ALPHABET + "\n", max_size=8))
def test_fnmatch_agrees_with_the_standard_library(pattern: str, name: str) -> None:
    assert fnmatch(name, pattern) is stdlib.fnmatchcase(name, pattern)


def old_regex(spec: str) -> re.Pattern[str]:
    """What command_reaches used to compile: literal parts joined by ``.*``."""
    return re.compile(".*".join(re.escape(part) for part in spec.split("*")))


@given(st.text("ab *.", max_size=8), st.text("ab *.", max_size=10))
def test_star_match_agrees_with_the_old_regex(spec: str, command: str) -> None:
    assume(spec.count("*") <= 4)  # the old regex stays fast on these
    assert star_match(spec, command) is (old_regex(spec).fullmatch(command) is not None)


@pytest.mark.parametrize("stars", [1, 12, STARS])
def test_the_work_grows_with_the_pattern_not_exponentially(stars: int) -> None:
    with bounded(BOUND):
        assert not fnmatch("a" * 2_000, crafted(stars))


# ---------------------------------------------------------------- git-style globs (twsrt test)


def old_glob_regex(pattern: str) -> re.Pattern[str]:
    """What twsrt test compiled before: ``**/`` as ``(?:[^/]*/)*``, exponential when repeated."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append(r"(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(r".*")
            i += 2
            continue
        if char == "*":
            out.append(r"[^/]*")
        elif char == "?":
            out.append(r"[^/]")
        elif char == "[" and pattern.find("]", i + 2) >= 0:
            end = pattern.find("]", i + 2)
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end
        elif char == "{" and pattern.find("}", i) >= 0:
            end = pattern.find("}", i)
            alternatives = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(old_glob_regex(a).pattern[:-2] for a in alternatives) + ")")
            i = end
        elif char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(char))
        i += 1
    import warnings

    with warnings.catch_warnings():  # a [ inside a set: literal today, the oracle's own matter
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile("".join(out) + r"\Z", re.S)


GLOB_PARTS = st.sampled_from(["a", "b", "/", "*", "**", "**/", "?", "[ab]", "[!a]", "{a,b}"])
GLOB_PARTS |= st.sampled_from(["{a/,*}", "\\*", "[", "{", "x", "."])


@given(st.lists(GLOB_PARTS, max_size=5).map("".join), st.text("ab/x*[{.", max_size=8))
def test_git_globs_match_what_the_regex_matched(pattern: str, path: str) -> None:
    from twsrt.testing.globs import glob_regex

    assume(pattern.count("**") <= 3)  # the old regex stays fast on these
    assert glob_regex(pattern).match(path) is (old_glob_regex(pattern).match(path) is not None)


def test_a_crafted_policy_glob_is_bounded() -> None:
    from twsrt.testing.globs import glob_regex

    crafted = "**/" * STARS + "x"
    spread = "**/a" * 100 + "/x"
    with bounded(BOUND) as elapsed:
        assert not glob_regex(crafted).match("a/" * 2_000 + "y")
        assert glob_regex(crafted).match("a/" * 2_000 + "x")
        assert not glob_regex(spread).match("a/" * 300 + "y")
    assert elapsed() < BOUND


# --------------------------------------------------------------------------- git [...] sets

SET_CHARS = st.sampled_from(["a", "b", "c", "z", "-", "\\", "^", "!", "]", ".", "/", "é"])


def regex_set(body: str) -> re.Pattern[str] | None:
    """The character class the old matcher compiled from ``body``; None where the regex engine
    refused it or warned that a later Python reads it otherwise."""
    import warnings

    negate = body[:1] in ("!", "^")
    inner = body[1:] if negate else body
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return re.compile("[" + ("^" if negate else "") + inner.replace("\\", "\\\\") + "]")
        except (re.error, FutureWarning):
            return None


@given(st.text(SET_CHARS, min_size=1, max_size=6), SET_CHARS)
def test_a_git_set_matches_what_its_character_class_matched(body: str, char: str) -> None:
    from twsrt.wildcard import GitGlob

    assume("]" not in body)  # the glob's own set ends at the first ]
    old = regex_set(body)
    assume(old is not None)
    assert GitGlob(f"[{body}]").match(char) == (old.fullmatch(char) is not None)


@pytest.mark.parametrize(
    ("pattern", "matched", "unmatched"),
    [
        ("[z-a]", [], ["a", "m", "z", "-"]),  # a reversed range: nothing, as in git; no re.error
        ("[[a]", ["[", "a"], ["b"]),  # a [ inside a set is itself (the regex warned: nested set)
        ("[a&&b]", ["a", "&", "b"], ["c"]),  # && is no set intersection
        ("[!a-c]", ["d", "-"], ["a", "b", "c"]),
    ],
)
def test_a_git_set_is_its_characters_only(
    pattern: str, matched: list[str], unmatched: list[str]
) -> None:
    from twsrt.wildcard import GitGlob

    glob = GitGlob(pattern)
    assert [c for c in matched + unmatched if glob.match(c)] == matched
