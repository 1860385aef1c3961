"""The indexed searches of ``twsrt.agents.deepcode.overlaps`` answer exactly what the pairwise
searches they replaced answered (``tests/support/oracle_deepcode.py``), on inputs drawn to hit
the hard cases: wildcards, ports, IPs, case, duplicates, nested and trailing-slash paths."""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import oracle_deepcode as oracle

from twsrt.agents.deepcode import agent as deepcode
from twsrt.agents.deepcode import overlaps
from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy

label = st.sampled_from(["a", "b", "ab", "A", "x-1"])
name = st.lists(label, min_size=1, max_size=4).map(".".join)
host = st.one_of(
    name,
    name.map(lambda n: "*." + n),
    name.map(lambda n: n + "."),
    st.sampled_from(["*", "*.", "*.*.a", "localhost", "[::1]", "[::1]:443", "a:b:c", "1.2.3.4"]),
    st.text(alphabet="ab.*:[]", max_size=6),
)
entry = st.one_of(host, st.tuples(host, st.sampled_from(["80", "443", "", "x"])).map(":".join))


def pooled_lists(item: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[list[str], list[str]]]:
    """Two lists drawn from one small pool of items, so that they overlap and repeat."""
    pools = st.lists(item, min_size=1, max_size=8).map(st.sampled_from)
    return pools.flatmap(lambda pick: st.tuples(*[st.lists(pick, max_size=10)] * 2))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pooled_lists(entry))
def test_first_overlaps_equals_the_pairwise_search(lists: tuple[list[str], list[str]]) -> None:
    allowed, denied = lists
    expected = oracle.first_overlaps(allowed, denied)
    assert overlaps.first_overlaps(allowed, denied) == expected


segment = st.sampled_from(["a", "b", "ab", ".", "~", "a*"])
path = st.tuples(
    st.sampled_from(["", "/", "//", "~/"]),
    st.lists(segment, max_size=4).map("/".join),
    st.sampled_from(["", "", "/", "//"]),
).map("".join)
any_path = st.one_of(path, st.text(alphabet="/a~.", max_size=8))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pooled_lists(any_path))
def test_first_mounts_equals_the_pairwise_search(lists: tuple[list[str], list[str]]) -> None:
    mounts, paths = lists
    expected = oracle.first_mounts(mounts, paths)
    assert overlaps.first_mounts(mounts, paths) == expected


grant = st.tuples(
    st.sampled_from(["/", "~/", "/a/", "~"]),
    st.lists(st.sampled_from(["a", "b", "ab"]), max_size=3).map("/".join),
    st.sampled_from(["", "/", "/**", "/*.b"]),
).map("".join)


@st.composite
def overlapping_policies(draw: st.DrawFn) -> dict[str, Any]:
    """srt settings whose paths nest in one another and whose domains overlap."""
    paths = st.lists(st.sampled_from(draw(st.lists(grant, min_size=1, max_size=6))), max_size=6)
    hosts = st.lists(st.sampled_from(draw(st.lists(entry, min_size=1, max_size=6))), max_size=6)
    return {
        "filesystem": {
            key: draw(paths)
            for key in ("denyRead", "denyWrite", "allowWrite", "allowRead")
            if draw(st.booleans())
        },
        "network": {"allowedDomains": draw(hosts), "deniedDomains": draw(hosts)},
    }


def _translate(srt: dict[str, Any]) -> tuple[Any, list[Any]]:
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt, indent=2)), "srt.json", parse_json("{}"), "bash.json"
        )
    )
    return deepcode.translate(policy, False, "workspace-write", "/home/u")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(overlapping_policies())
def test_translation_equals_the_one_with_pairwise_searches(srt: dict[str, Any]) -> None:
    """The wiring too: the whole translation (managed content and every finding) is the same
    as with the old searches put in place of the indexed ones."""
    new = _translate(srt)
    with patch.multiple(
        "twsrt.agents.deepcode.translate",
        first_mounts=oracle.first_mounts,
        first_overlaps=oracle.first_overlaps,
    ):
        old = _translate(srt)
    assert new == old
