"""Issue 17's faster drift helpers answer exactly as the implementations they replaced
(``tests/support/oracle_readonce.py``), on drawn drifts that hit the hard cases: a home inside
another home's spelling, a home named twice in one entry, duplicates, entries without a home."""

from __future__ import annotations

import difflib
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import oracle_readonce

from twsrt import diffs
from twsrt.agents.base import Drift, DriftItem
from twsrt.config import Config
from twsrt.drift import first_difference, foreign_home

HERE = "/h"
# homes another machine may have used: ours again, nested in ours, ours nested in them, ...
HOMES = st.sampled_from(["/g", "/h/x", "/hh", "/x/h", "/h", "h", "/", "/g/h"])
# entry spellings: {} is where a home goes
SPELLINGS = st.lists(
    st.sampled_from(["{}", "{}/a", "Read({}/.ssh)", "{}{}", "x{}/y{}", "a", "/h", "{}/h", "h{}"]),
    min_size=1,
    max_size=6,
)


def _config(home: str, pinned: str | None = None) -> Config:
    path = Path("/r/twsrt.toml")
    return Config(path, "twsrt.toml", Path(home), path, path, pinned_home=pinned)


def _spell(key: str, value: str, home: str) -> DriftItem:
    return DriftItem(key.replace("{}", home), value.replace("{}", home))


@st.composite
def drifts(draw: st.DrawFn) -> Drift:
    """A drift between our spelling of some entries and another machine's, then perturbed: an
    entry dropped, added or repeated, or a second home mixed in."""
    keys = draw(SPELLINGS)
    values = draw(st.lists(st.sampled_from(["{}", "x", "{}/k", "R({})"]), min_size=len(keys)))
    theirs_home = draw(HOMES)
    spelled = list(zip(keys, values, strict=False))
    missing = [_spell(k, v, HERE) for k, v in spelled]
    extra = [_spell(k, v, theirs_home) for k, v in spelled]
    change = draw(st.sampled_from(["none", "drop", "add", "repeat", "mix"]))
    if change == "drop" and len(extra) > 1:
        extra.pop(draw(st.integers(0, len(extra) - 1)))
    elif change == "add":
        extra.append(DriftItem(draw(SPELLINGS)[0].replace("{}", "/z"), "x"))
    elif change == "repeat":
        missing.append(missing[0])
        extra.append(extra[0])
    elif change == "mix":
        other = draw(HOMES)
        index = draw(st.integers(0, len(extra) - 1))
        k, v = spelled[index]
        extra[index] = _spell(k, v, other)
    # the drift lists hold what is on one side only
    missing_set, extra_set = set(missing), set(extra)
    missing = [item for item in missing if item not in extra_set]
    extra = [item for item in extra if item not in missing_set]
    assume(missing and extra)
    return Drift("f", missing=missing, extra=extra)


@settings(max_examples=400, deadline=None)
@given(drift=drifts(), here=st.sampled_from([HERE, HERE + "/", "/"]), pinned=st.booleans())
def test_foreign_home_answers_as_before(drift: Drift, here: str, pinned: bool) -> None:
    config = _config(here, "/p" if pinned else None)
    assert foreign_home(drift, config) == oracle_readonce.foreign_home(drift, config)


def test_foreign_home_finds_the_other_machines_home() -> None:
    """The property above is not vacuous: a plain home swap is explained."""
    drift = Drift(
        "f",
        missing=[DriftItem("deny", "Read(/h/.ssh)"), DriftItem("/h/a", "x")],
        extra=[DriftItem("deny", "Read(/g/.ssh)"), DriftItem("/g/a", "x")],
    )
    assert foreign_home(drift, _config(HERE)) == "/g"


# ---------------------------------------------------------------- diffs at any size

# few distinct lines, so lines repeat (no anchors), plus unique ones (anchors)
LINE = st.one_of(
    st.sampled_from(["a\n", "b\n", "c\n", "  ],\n", "x"]),
    st.integers(0, 40).map(lambda n: f"{n}\n"),
)
LINES = st.lists(LINE, max_size=40)


@st.composite
def line_pairs(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Two versions of a text: drawn apart, or one edited from the other (alternating changes,
    a block moved, lines repeated), the cases difflib is slow on or anchors get wrong."""
    a = draw(LINES)
    edit = draw(st.sampled_from(["apart", "alternate", "move", "repeat", "drop"]))
    if edit == "apart":
        return a, draw(LINES)
    if edit == "alternate":
        return a, [line if index % 2 else f"~{line}" for index, line in enumerate(a)]
    if edit == "move":
        cut = draw(st.integers(0, len(a)))
        return a, a[cut:] + a[:cut]
    if edit == "repeat":
        return a, a + a[: draw(st.integers(0, len(a)))]
    return a, [line for index, line in enumerate(a) if index % 3]


@settings(max_examples=300, deadline=None)
@given(pair=line_pairs(), new_file=st.booleans())
def test_render_diff_answers_as_difflib_up_to_the_plain_size(
    pair: tuple[list[str], list[str]], new_file: bool
) -> None:
    a, b = pair
    old = None if new_file else "".join(a)
    new = "".join(b)
    assert diffs.render_diff("f", old, new, diffs.whole) == oracle_readonce.render_diff(
        "f", old, new, diffs.whole
    )


@settings(max_examples=300, deadline=None)
@given(pair=line_pairs(), context=st.integers(0, 4))
def test_unified_diff_formats_hunks_as_difflib(
    pair: tuple[list[str], list[str]], context: int
) -> None:
    """The hunk formatting is difflib's for any opcodes: with difflib's own matching at every
    size, the output is difflib's to the byte."""
    a, b = pair
    got = list(diffs.unified_diff(a, b, "a/f", "b/f", context, plain_up_to=10**9))
    assert got == list(difflib.unified_diff(a, b, "a/f", "b/f", n=context))


@settings(max_examples=500, deadline=None)
@given(pair=line_pairs(), plain_up_to=st.integers(0, 12))
def test_anchored_opcodes_turn_a_into_b(
    pair: tuple[list[str], list[str]], plain_up_to: int
) -> None:
    """Above the plain size the opcodes are anchored, not difflib's: still an edit script that
    turns ``a`` into ``b``, each opcode non-empty and true to its tag, neighbours merged."""
    a, b = pair
    codes = diffs.line_opcodes(a, b, plain_up_to)
    at_i = at_j = 0
    rebuilt: list[str] = []
    previous = ""
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (at_i, at_j)
        assert i1 < i2 or j1 < j2
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        else:
            assert tag == ("replace" if i1 < i2 and j1 < j2 else "delete" if i1 < i2 else "insert")
        assert (tag == "equal") != (previous == "equal") or not previous
        rebuilt += b[j1:j2]
        at_i, at_j, previous = i2, j2, tag
    assert (at_i, at_j) == (len(a), len(b))
    assert rebuilt == b


def test_alternating_changes_are_matched_at_the_anchors() -> None:
    """The case that made difflib quadratic: every other line changed. The unchanged lines are
    anchors, so the diff keeps them as context instead of replacing the whole text."""
    a = [f"{n}\n" for n in range(3000)]
    b = [line if n % 2 else f"~{line}" for n, line in enumerate(a)]
    codes = diffs.line_opcodes(a, b)
    assert sum(i2 - i1 for tag, i1, i2, _j1, _j2 in codes if tag == "equal") == 1500


@settings(max_examples=300, deadline=None)
@given(pair=line_pairs())
def test_first_difference_answers_as_before(pair: tuple[list[str], list[str]]) -> None:
    old, new = "".join(pair[0]), "".join(pair[1])
    assert first_difference(old, new) == oracle_readonce.first_difference(old, new)
