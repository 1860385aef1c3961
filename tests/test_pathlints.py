"""The path lints (twsrt/pathlints.py, TWS230-TWS234) and literal braces (issue 29, items 13
and 15): exact findings on small policies, the cases that must stay quiet, and a property that
a covered entry really lies inside the entry named as covering it."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st
from support.policies import fs, make_policy

from twsrt.agents.claude.translate import translate
from twsrt.pathlints import path_lints
from twsrt.policy import is_glob


def lints(**lists: list) -> list[tuple[str, str, str]]:
    """(rule id, pointer, message) of each path lint of the policy ``lists`` make."""
    found = path_lints(fs(**lists))
    return [(f.rule_id, f.location.pointer, f.message) for f in found]


def test_an_entry_inside_a_broader_one_is_a_note_at_the_narrower() -> None:
    assert lints(deny_read=["~/.ssh/id_rsa", "~/.ssh"]) == [
        (
            "TWS230",
            "/filesystem/denyRead/0",
            "'~/.ssh/id_rsa' in denyRead lies inside '~/.ssh' (at srt.json:5:7), which already "
            "covers it; remove it",
        )
    ]
    [finding] = path_lints(fs(deny_read=["~/.ssh/id_rsa", "~/.ssh"]))
    assert [str(place) for place in finding.related] == ["srt.json:5:7"]


def test_covering_entries_in_each_spelling_and_shape() -> None:
    covered = {
        ("~/.ssh", "~/.ssh/id_rsa"),
        ("~/.ssh/", "~/.ssh/a/b"),
        ("~/.ssh", "~/.ssh/*.pem"),  # a glob below a directory deny
        ("~/.ssh", "~/.ssh/**"),
        ("/etc", "/etc/shadow"),
        ("secrets", "secrets/x"),
    }
    for broad, narrow in covered:
        found = lints(deny_write=[broad, narrow])
        assert [rule for rule, _p, _m in found] == ["TWS230"], (broad, narrow, found)
        assert found[0][1] == "/filesystem/denyWrite/1"


def test_entries_that_are_not_covered_stay_quiet() -> None:
    quiet = [
        ["~/.ssh", "/home/user/.ssh/id_rsa"],  # compared as written: no guess at the home
        ["~/.ssh", "~/.sshx"],  # a sibling with the same prefix
        ["~/.ssh/*.pem", "~/.ssh/*.pem/x"],  # below a glob: not a tree
        ["~/.ssh/*", "~/.ssh/id_rsa"],
        ["~/a", "~/a"],  # a duplicate is TWS208's
        # covers some agent narrows or refuses: the narrower entry still protects there
        ["~/.ssh/**", "~/.ssh/id_rsa"],
        ["/", "/etc/shadow"],
        ["~", "~/.aws"],
    ]
    for entries in quiet:
        assert lints(deny_read=entries) == [], entries
    # different lists never cover each other (denyRead does not deny writes), nor do grants
    assert lints(deny_read=["~/.ssh"], deny_write=["~/.ssh/x"]) == []
    assert lints(allow_write=["~/dev", "~/dev/x"], allow_read=["~/a", "~/a/b"]) == []


def test_a_variable_no_agent_expands_is_a_warning_in_a_deny() -> None:
    assert lints(deny_read=["${HOME}/.aws"], deny_write=["$XDG_CONFIG_HOME/gh"]) == [
        (
            "TWS231",
            "/filesystem/denyRead/0",
            "'${HOME}/.aws' in denyRead holds '${HOME}', which no agent expands: it names a "
            "directory literally called so, and the directory it means stays unprotected; "
            "write '~/' for the home directory",
        ),
        (
            "TWS231",
            "/filesystem/denyWrite/0",
            "'$XDG_CONFIG_HOME/gh' in denyWrite holds '$XDG_CONFIG_HOME', which no agent "
            "expands: it names a directory literally called so, and the directory it means "
            "stays unprotected",
        ),
    ]


def test_a_variable_in_a_grant_is_a_note() -> None:
    found = lints(allow_write=["$HOME/dev"], allow_read=["${HOME}/x"])
    assert [(rule, pointer) for rule, pointer, _m in found] == [
        ("TWS232", "/filesystem/allowWrite/0"),
        ("TWS232", "/filesystem/allowRead/0"),
    ]


def test_dollars_that_are_no_variable_stay_quiet() -> None:
    assert lints(deny_read=["~/a$", "~/$1x", "~/price$/x", "~/${unclosed"]) == []


def test_a_set_that_admits_no_character_is_a_warning() -> None:
    assert lints(deny_read=["~/.ssh/id_[z-a]*"]) == [
        (
            "TWS233",
            "/filesystem/denyRead/0",
            "'~/.ssh/id_[z-a]*' in denyRead can match no path: the set '[z-a]' admits no "
            "character, so it denies nothing",
        )
    ]
    for fine in ("~/id_[a-z]*", "~/id_[a-a]", "~/id_[!z-a]", "~/id_[z-ab]", "~/[]]x*"):
        assert lints(deny_read=[fine]) == [], fine
    # a literal entry is no glob at all
    assert (
        path_lints(
            make_policy({"filesystem": {"denyRead": [{"path": "~/[z-a]", "literal": True}]}})
        )
        == []
    )


def test_an_allow_read_glob_is_a_note_and_a_tree_glob_is_not() -> None:
    assert lints(deny_read=["~/.ssh"], allow_read=["~/.ssh/*.pub", "~/.ssh/conf/**"]) == [
        (
            "TWS234",
            "/filesystem/allowRead/0",
            "allowRead glob '~/.ssh/*.pub' is expanded when srt starts: a matching file created "
            "later in the session stays unreadable",
        )
    ]


def test_braces_are_literal_so_a_plain_path_gets_its_tree_rule_too() -> None:
    """``${HOME}`` and ``{a,b}`` are no globs (srt's glob characters are ``*?[]``): Claude
    gets the path and the tree below it, as for any plain path (it was one glob rule)."""
    assert not is_glob("${HOME}/.aws") and not is_glob("/x/{a,b}")
    managed, _findings = translate(fs(deny_read=["${HOME}/.aws", "/x/{a,b}"]), False, {})
    deny = managed.deny
    for path in ("${HOME}/.aws", "//x/{a,b}"):
        for tool in ("Read", "Edit"):
            assert f"{tool}({path})" in deny and f"{tool}({path}/**)" in deny, (tool, path)


SEGMENT = st.sampled_from(["a", "b", ".ssh", "x y", "*", "id_*", "**"])


@given(
    anchor=st.sampled_from(["~", "", "/srv"]),
    broad=st.lists(SEGMENT, min_size=0, max_size=3),
    narrow=st.lists(SEGMENT, min_size=1, max_size=4),
)
def test_a_covered_entry_lies_inside_its_cover(anchor: str, broad: list, narrow: list) -> None:
    """Whenever TWS230 names a cover, every path the narrower entry matches lies inside the
    cover's tree: the note never tells a user to remove an entry that protects more."""
    first = "/".join([anchor, *broad]) if anchor else "/".join(broad)
    second = "/".join([anchor, *broad, *narrow]) if anchor else "/".join([*broad, *narrow])
    assume(first and second and first != second)
    assume(second.removesuffix("/**") != first)  # one tree spelled twice: not "inside"
    found = lints(deny_read=[first, second])
    if found:
        assert [rule for rule, _p, _m in found] == ["TWS230"]
        assert not is_glob(first) and first not in ("~", "/")  # only a concrete tree covers
        assert second.startswith(first + "/")
    elif not is_glob(first) and first not in ("~", "/"):
        # a concrete cover always is found
        raise AssertionError((first, second))
