"""The indexed Copilot translation equals the list-scanning one it replaced (issue 17).

``tests/support/oracle_copilot.py`` keeps the old code; these properties draw inputs that hit its
hard cases (nested and overlapping paths, ``~`` and absolute spellings of the same place,
relative paths, globs, duplicates, allowWrite under denyRead/denyWrite, domains with ports,
quotes and escapes in a snippet) and demand the same output, findings, origins and errors.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support import oracle_copilot as old
from support.policies import make_policy, named

from twsrt.agents.abspaths import PathIndex, inside
from twsrt.agents.copilot.declaration import Compiled
from twsrt.agents.copilot.flags import _flag_items, parse_snippet, render_snippet
from twsrt.agents.copilot.rules import COPILOT_MANDATORY_NAMES_OPEN
from twsrt.agents.copilot.settings import compile_sandbox, merge
from twsrt.agents.rootnames import under
from twsrt.findings import TwsrtError
from twsrt.rules import LOSSY_WRITE_ROOT

HOME = "/home/user"

# ---------------------------------------------------------------- the path index

# raw spellings, not normalised: trailing and doubled slashes, "/", "", ~ and relative paths
raw_root = st.lists(
    st.sampled_from(["", "/", "//", "a", "b", "ab", "~", ".", "a/", "/a", "/b", "/ab"]),
    max_size=5,
).map("".join)


@given(roots=st.lists(raw_root, max_size=6), path=raw_root)
def test_path_index_finds_the_first_root_a_scan_finds(roots: list[str], path: str) -> None:
    index = PathIndex(roots)
    holding = next((i for i, root in enumerate(roots) if inside(path, root)), None)
    assert index.first_holding(path) == holding
    assert index.holds(path) == (holding is not None)


@given(roots=st.lists(raw_root, min_size=1, max_size=6), data=st.data())
def test_path_index_finds_roots_above_a_root(roots: list[str], data: Any) -> None:
    """Queries built from the roots themselves, so most of them do match something."""
    root = data.draw(st.sampled_from(roots))
    path = root + data.draw(st.sampled_from(["", "/", "/x", "//x/", "x"]))
    holding = next((i for i, r in enumerate(roots) if inside(path, r)), None)
    assert PathIndex(roots).first_holding(path) == holding


# ---------------------------------------------------------------- the sandbox compile

# few names, so that paths nest, overlap and repeat; the home spelled as ~ and as /home/user
segment = st.sampled_from(["a", "b", ".c", "user"])
tail = st.lists(segment, max_size=3).map("/".join)
tail_1 = st.lists(segment, min_size=1, max_size=3).map("/".join)
home_or_tmp_path = st.tuples(st.sampled_from(["/tmp/", "~/", "/home/user/"]), tail_1).map("".join)
anchor = st.sampled_from(["~/", "/home/user/", "/", "", "./", "/tmp/"])
glob = st.sampled_from(["", "", "", "/**", "/*", "/*.pem", "/**/x"])
spelled = st.tuples(anchor, tail, glob, st.sampled_from(["", "", "/"])).map("".join)
path_item = st.one_of(
    spelled.filter(bool),
    spelled.filter(bool).map(lambda p: {"path": p, "literal": True}),
    st.sampled_from([".", "~", "/"]),
)
domain = st.one_of(
    st.sampled_from(["a.com", "*.a.com", "b.org", "*", "[::1]", "127.0.0.1"]),
    st.tuples(st.sampled_from(["a.com", "*.a.com", "*", "[::1]"]), st.integers(1, 65535)).map(
        lambda t: f"{t[0]}:{t[1]}"
    ),
)


@st.composite
def nested_srt(draw: st.DrawFn, refusals: bool = True) -> dict[str, Any]:
    filesystem = {
        key: draw(st.lists(path_item, max_size=6))
        for key in ("denyRead", "denyWrite", "allowWrite", "allowRead")
    }
    network = {
        key: draw(st.lists(domain, max_size=4)) for key in ("allowedDomains", "deniedDomains")
    }
    srt: dict[str, Any] = {"filesystem": filesystem, "network": network}
    # the refusals, now and then (each refuses the whole compile)
    if refusals and draw(st.integers(0, 19)) == 0:
        srt["enabled"] = False
    if refusals and draw(st.integers(0, 19)) == 0:
        filesystem[draw(st.sampled_from(sorted(filesystem)))].append("/~/x")
    return srt


def _outcome(compile_sandbox: Any, srt: dict[str, Any], mode: str) -> tuple[Any, ...]:
    """Everything one compile gives: the output, the findings and origins in order, or the
    refusal."""
    origins: dict[str, Any] = {}
    try:
        sandbox, urls, home_used, findings = compile_sandbox(make_policy(srt), HOME, origins, mode)
    except TwsrtError as error:
        return ("refused", error.findings)
    return (sandbox, urls, home_used, findings, list(origins.items()))


MODES = st.sampled_from(["workspace-write", "read-only", "danger-full-access"])


def _new(srt: dict[str, Any], mode: str, old_outcome: tuple[Any, ...]) -> tuple[Any, ...]:
    """The new compile without what the old one never did: the protected names under each
    write root (agents/rootnames.py) that the old output lacks, and their finding (TWS471)."""
    outcome = _outcome(compile_sandbox, srt, mode)
    if outcome[0] == "refused":
        return outcome
    sandbox, urls, home_used, findings, origins = outcome
    filesystem = sandbox["userPolicy"]["filesystem"]
    added = {p for root in filesystem["readwritePaths"] for p in under(root, named())}
    kept = set()
    if old_outcome[0] != "refused":
        kept = set(old_outcome[0]["userPolicy"]["filesystem"]["readonlyPaths"])
    filesystem["readonlyPaths"] = [
        p for p in filesystem["readonlyPaths"] if p not in added or p in kept
    ]
    findings = [f for f in findings if f.rule_id != COPILOT_MANDATORY_NAMES_OPEN.id]
    return (sandbox, urls, home_used, findings, origins)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(srt=nested_srt(), mode=MODES)
def test_sandbox_compile_equals_the_old_scans(srt: dict[str, Any], mode: str) -> None:
    expected = _outcome(old.compile_sandbox, srt, mode)
    assert _new(srt, mode, expected) == expected


@settings(max_examples=100)
@given(
    srt=nested_srt(),
    base=home_or_tmp_path,
    key=st.sampled_from(["denyRead", "denyWrite"]),
    below=segment,
)
def test_sandbox_compile_hits_the_nested_cases(
    srt: dict[str, Any], base: str, key: str, below: str
) -> None:
    """A grant under a deny, always: both versions refuse it alike (lossy-write-root), so the
    property above is not only passing on policies without nesting."""
    srt.pop("enabled", None)
    srt["filesystem"][key].append(base)
    srt["filesystem"]["allowWrite"].append(f"{base}/{below}")
    expected = _outcome(old.compile_sandbox, srt, "workspace-write")
    new = _new(srt, "workspace-write", expected)
    assert new == expected
    assume(new[0] != "refused")  # a malformed path elsewhere in the policy
    assert LOSSY_WRITE_ROOT.id in [f.rule_id for f in new[3]]


@settings(max_examples=100)
@given(srt=nested_srt(refusals=False), base=home_or_tmp_path, below=segment, deeper=segment)
def test_sandbox_compile_hits_read_grants_under_a_read_only_path(
    srt: dict[str, Any], base: str, below: str, deeper: str
) -> None:
    """allowRead under denyWrite under allowWrite: the read grant is left out (it would take
    writes away inside the root), unless something the policy denies holds it."""
    filesystem = srt["filesystem"]
    filesystem["allowWrite"].insert(0, base)
    filesystem["denyWrite"].insert(0, f"{base}/{below}")
    filesystem["allowRead"].insert(0, f"{base}/{below}/{deeper}")
    expected = _outcome(old.compile_sandbox, srt, "workspace-write")
    assert _new(srt, "workspace-write", expected) == expected


# ---------------------------------------------------------------- merging into the user's file

user_value = st.one_of(
    st.booleans(), st.text(max_size=3), st.lists(st.text(max_size=3), max_size=3)
)
user_keys = st.dictionaries(st.sampled_from(["x", "proxy", "allowedHosts", "enabled"]), user_value)


@st.composite
def user_settings(draw: st.DrawFn) -> dict[str, Any]:
    """A settings file as a user may have it: managed keys stale or missing, user keys beside
    them at every level."""
    doc: dict[str, Any] = draw(
        st.dictionaries(st.sampled_from(["model", "allowedUrls"]), user_value)
    )
    if draw(st.booleans()):
        sandbox = draw(user_keys)
        if draw(st.booleans()):
            sandbox["userPolicy"] = {
                section: draw(user_keys)
                for section in ("filesystem", "network", "seatbelt")
                if draw(st.booleans())
            }
        doc["sandbox"] = sandbox
    return doc


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(srt=nested_srt(refusals=False), existing=user_settings())
def test_merge_equals_the_deep_copying_one(srt: dict[str, Any], existing: dict[str, Any]) -> None:
    compiled = Compiled()
    compiled.sandbox, compiled.urls, _, _ = compile_sandbox(make_policy(srt), HOME, {})
    before = copy.deepcopy(existing)
    merged = merge(existing, compiled)
    assert merged == old.merge(copy.deepcopy(existing), compiled)
    assert existing == before  # the user's document is not changed
    # nothing the result holds is the compiled output's own list (a later edit stays local)
    filesystem = merged["sandbox"]["userPolicy"]["filesystem"]
    assert (
        filesystem["deniedPaths"] is not compiled.sandbox["userPolicy"]["filesystem"]["deniedPaths"]
    )


# ---------------------------------------------------------------- reading a snippet back

snippet_text = st.lists(
    st.sampled_from(
        ["a", "--f", " ", "\t", "\n", "\r", "\x0b", "'", '"', "\\", "\\\n", "x y", "é", "*", ")"]
        # escapes inside double quotes: \" and \\ lose the backslash, \a keeps it
        + ['"\\""', '"\\\\"', '"\\a"', "'\\'"]
    ),
    max_size=16,
).map("".join)


def _split(parse: Any, text: str) -> tuple[str, Any]:
    try:
        return ("ok", parse(text))
    except ValueError as error:
        return ("error", str(error))


@settings(max_examples=500)
@given(text=snippet_text)
def test_parse_snippet_splits_as_shlex(text: str) -> None:
    assert _split(parse_snippet, text) == _split(old.parse_snippet, text)
    assert _flag_items(text) == old._flag_items(text)


values = st.text(alphabet=st.sampled_from("ab '\"\\\n\t$*()é-,"), max_size=8)


@given(pairs=st.lists(st.tuples(st.sampled_from(["--deny-tool", "--allow-url"]), values)))
def test_a_rendered_snippet_reads_back_as_before(pairs: list[tuple[str, str]]) -> None:
    argv = [item for pair in pairs for item in pair]
    text = render_snippet(argv)
    assert _split(parse_snippet, text) == _split(old.parse_snippet, text)
    assert _flag_items(text) == old._flag_items(text)
