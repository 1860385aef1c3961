"""Issue 17's faster drift helpers answer exactly as the implementations they replaced
(``tests/support/oracle_readonce.py``), on drawn drifts that hit the hard cases: a home inside
another home's spelling, a home named twice in one entry, duplicates, entries without a home."""

from __future__ import annotations

from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import oracle_readonce

from twsrt.agents.base import Drift, DriftItem
from twsrt.config import Config
from twsrt.run import foreign_home

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
