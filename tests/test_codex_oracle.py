"""The indexed Codex translation gives exactly what the quadratic code before issue 17 gave
(``tests/support/oracle_codex.py``), on policies drawn to hit its hard cases: nested and
overlapping paths, ``~`` against absolute spellings of the same directory, relative paths below
``.``, globs, trailing ``/**``, duplicates, and write roots inside denied paths."""

from __future__ import annotations

from importlib import import_module
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import oracle_codex
from tests.support.policies import make_policy
from twsrt.agents import codex
from twsrt.findings import TwsrtError

HOME = "/home/u"

# the module, not the function ``codex.translate`` that shadows it
TRANSLATE = import_module("twsrt.agents.codex.translate")

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
    ):
        old = _translate(srt, home)
    assert new == old
    if isinstance(new, tuple):
        assert codex.merged_config(None, new[0]) == codex.merged_config(None, old[0])
