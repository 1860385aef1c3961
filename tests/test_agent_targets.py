"""The shared target machinery (twsrt/agents/targets.py): full/yolo resolution, drift set
difference, managed members as drift items, and the one new-file mode policy, which is checked
for every agent in the registry (a new agent is covered without touching this file)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from twsrt.agents import AGENTS
from twsrt.agents.base import Context, DriftItem
from twsrt.agents.targets import (
    NEW_FILE_MODE,
    Members,
    compare,
    mode_files,
    mode_target,
    project,
)
from twsrt.config import Config
from twsrt.diffs import whole
from twsrt.jsonpos import parse_json
from twsrt.locations import display_path
from twsrt.protection import protected_context, with_root_names
from twsrt.sources import build_policy
from twsrt.writes import FileWrite, apply

# ---------------------------------------------------------------- full/yolo resolution

FULL = Path("/d/settings.full.json")
YOLO = Path("/e/mine.yolo.json")


@pytest.mark.parametrize(
    ("targets", "yolo", "expected"),
    [
        ({"full": FULL}, False, ("full", FULL)),
        # no yolo key: the full file's variant, named by the full key
        ({"full": FULL}, True, ("full", Path("/d/settings.yolo.json"))),
        ({"full": FULL, "yolo": YOLO}, True, ("yolo", YOLO)),
        ({"full": FULL, "yolo": YOLO}, False, ("full", FULL)),
        # only the yolo file: nothing to write in full mode
        ({"yolo": YOLO}, False, None),
        ({"yolo": YOLO}, True, ("yolo", YOLO)),
        ({}, True, None),
        ({"full": Path("/d/flags")}, True, ("full", Path("/d/flags.yolo"))),
        ({"full": Path("/d/flags.sh")}, True, ("full", Path("/d/flags.yolo.sh"))),
    ],
)
def test_mode_target(targets: dict[str, Path], yolo: bool, expected: Any) -> None:
    assert mode_target(targets, "full", "yolo", yolo) == expected


def test_mode_target_without_a_yolo_key() -> None:
    assert mode_target({"full": FULL}, "full", None, True) == (
        "full",
        FULL.with_name("settings.yolo.json"),
    )
    assert mode_target({}, "full", None, False) is None


def test_mode_files_are_both_files_of_the_pair() -> None:
    assert mode_files({"full": FULL}, "full", "yolo") == (FULL, Path("/d/settings.yolo.json"))
    assert mode_files({"full": FULL, "yolo": YOLO}, "full", "yolo") == (FULL, YOLO)
    assert mode_files({"yolo": YOLO}, "full", "yolo") == (YOLO,)


# ---------------------------------------------------------------- drift set difference


def _words(text: str) -> list[DriftItem]:
    return [DriftItem("word", word) for word in text.split()]


def test_missing_file_is_drift_and_nothing_else() -> None:
    drift = compare("f", "key", None, "a b", _words)
    assert drift.missing_file and drift.drifted
    assert (drift.missing, drift.extra, drift.reordered) == ([], [], False)
    assert (drift.display, drift.target_key, drift.old_text, drift.new_text) == (
        "f",
        "key",
        None,
        "a b",
    )


def test_missing_and_extra_items_in_their_files_order() -> None:
    drift = compare("f", "key", "x a y", "a c b", _words)
    assert drift.missing == [DriftItem("word", "c"), DriftItem("word", "b")]
    assert drift.extra == [DriftItem("word", "x"), DriftItem("word", "y")]
    assert drift.drifted and not drift.reordered  # reordered only when the sets agree


def test_same_items_in_another_order_are_reordered() -> None:
    drift = compare("f", "key", "b a", "a b", _words)
    assert (drift.missing, drift.extra, drift.reordered) == ([], [], True)


def test_same_items_in_the_same_order_are_no_drift() -> None:
    drift = compare("f", "key", "a  b\n", "a b", _words)
    assert not drift.drifted


def test_a_file_generated_whole_drifts_in_form() -> None:
    assert compare("f", "key", "a  b\n", "a b", _words, whole, form=True).reordered
    assert not compare("f", "key", "a b", "a b", _words, whole, form=True).drifted


def test_drift_keeps_the_view_for_reports() -> None:
    members = Members({"a": True})
    drift = compare("f", "key", "{}", '{"a": 1}', members.text_items, members.view)
    assert drift.missing == [DriftItem("a", "1")]
    assert drift.view('{"a": 1, "token": "s3cret"}') == '{\n  "a": 1\n  … 1 unmanaged key …\n}\n'


# ---------------------------------------------------------------- managed members as items


def _is_fetch(rule: Any) -> bool:
    return isinstance(rule, str) and rule.startswith("Fetch(")


SPEC: Any = {
    "permissions": {"deny": True, "allow": _is_fetch},
    "sandbox": {"enabled": True, "net": {"hosts": True, "tls": True}},
}
DOCUMENT = {
    "sandbox": {"net": {"tls": {"b": 1, "a": [2]}, "hosts": ["x.org", "é.org"]}, "enabled": True},
    "hooks": {"secret": "s3cret"},
    "permissions": {
        "allow": ["Read", "Fetch(a)", 3],
        "deny": ["Bash(rm)", {"odd": 1}],
        "ask": ["q"],
    },
}


def test_items_follow_the_spec_not_the_document() -> None:
    items = Members(SPEC).items(DOCUMENT)
    assert items == [
        DriftItem("permissions.deny", '"Bash(rm)"'),
        DriftItem("permissions.deny", '{"odd": 1}'),
        DriftItem("permissions.allow", '"Fetch(a)"'),  # only the entries the predicate owns
        DriftItem("sandbox.enabled", "true"),
        DriftItem("sandbox.net.hosts", '"x.org"'),
        DriftItem("sandbox.net.hosts", '"é.org"'),  # not escaped
        DriftItem("sandbox.net.tls", '{"a": [2], "b": 1}'),  # an object is one item, keys sorted
    ]


def test_rule_lists_are_items_as_written() -> None:
    members = Members(SPEC, rule_lists=("permissions.deny", "permissions.allow"))
    assert members.items(DOCUMENT)[:3] == [
        DriftItem("permissions.deny", "Bash(rm)"),
        DriftItem("permissions.deny", '{"odd": 1}'),  # not a string: JSON still
        DriftItem("permissions.allow", "Fetch(a)"),
    ]


def test_an_empty_list_is_an_item_only_when_declared() -> None:
    document = {"sandbox": {"net": {"hosts": []}}}
    assert Members(SPEC).items(document) == []
    assert Members(SPEC, empty_list=True).items(document) == [DriftItem("sandbox.net.hosts", "[]")]


def test_members_of_the_wrong_type_hold_no_items() -> None:
    members = Members(SPEC)
    assert members.items([1, 2]) == []
    assert members.items({"permissions": "all", "sandbox": {"net": 5}}) == []
    assert members.text_items("{not json") == []


def test_toml_members_split_tables_into_items() -> None:
    members = Members({"top": True, "permissions": {"p": True}}, kind="toml")
    text = (
        'top = "x"\nother = 1\n[permissions.p]\nlist = [1, 2]\n'
        '[permissions.p.fs]\n"~/.ssh" = "deny"\n'
    )
    assert members.text_items(text) == [
        DriftItem("top", '"x"'),
        DriftItem("permissions.p.list", "[1, 2]"),  # a TOML array is one value
        DriftItem("permissions.p.fs.~/.ssh", '"deny"'),
    ]
    assert members.view(text).startswith('top = "x"\n# … 1 unmanaged key …')


def test_project_keeps_only_the_managed_members() -> None:
    assert project(DOCUMENT, SPEC) == {
        "permissions": {"deny": ["Bash(rm)", {"odd": 1}], "allow": ["Fetch(a)"]},
        "sandbox": {
            "enabled": True,
            "net": {"hosts": ["x.org", "é.org"], "tls": {"b": 1, "a": [2]}},
        },
    }
    # a partly managed table without a managed member is left out
    assert project({"permissions": {"ask": []}, "sandbox": 3}, SPEC) == {}
    assert project([1], SPEC) == {}


# ---------------------------------------------------------------- the new-file mode policy


def _policy(extra_deny: bool = False) -> Any:
    srt: dict[str, Any] = {
        "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": []},
        "network": {"allowedDomains": ["github.com"], "deniedDomains": []},
    }
    bash = {"allow": [], "deny": ["sudo"], "ask": []}
    if extra_deny:  # a changed policy: every managed file changes
        srt["filesystem"]["denyRead"].append("~/.aws")
        bash["deny"].append("rm")
    return with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )


def _config(tmp: Path, targets: dict[str, Path]) -> Config:
    return Config(
        path=tmp / "twsrt.toml",
        display="twsrt.toml",
        home=tmp / "home",
        srt=tmp / "srt.json",
        bash_rules=tmp / "bash.json",
        targets=targets,
        pinned_home="/home/u",
    )


def _context(tmp: Path, name: str, extra_deny: bool) -> Context:
    targets = {key: tmp / "out" / key for key in AGENTS[name].target_keys}
    return protected_context(_config(tmp, targets), _policy(extra_deny))


def _generate(tmp: Path, name: str, extra_deny: bool) -> list[FileWrite]:
    """Full then yolo, each applied as ``generate -w`` would: the file writes made."""
    written: list[FileWrite] = []
    for yolo in (False, True):
        ctx = _context(tmp, name, extra_deny)
        result = AGENTS[name].compile(protected_context(ctx.config, ctx.policy, yolo=yolo))
        written += [c for c in apply(result.changes) if isinstance(c, FileWrite)]
    return written


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask, under which a file created without a mode would be 0644."""
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.parametrize("name", sorted(AGENTS))
@pytest.mark.usefixtures("umask_022")
def test_new_files_are_private_and_existing_modes_are_kept(tmp_path: Path, name: str) -> None:
    created = _generate(tmp_path, name, extra_deny=False)
    assert created, f"{name} wrote no file"
    for change in created:
        assert change.old is None
        assert stat.S_IMODE(change.path.stat().st_mode) == NEW_FILE_MODE, change.display
        change.path.chmod(0o640)
    updated = _generate(tmp_path, name, extra_deny=True)
    # the extra deny changes a file of each agent (Gemini's settings do not hold denies)
    assert updated and {c.path for c in updated} <= {c.path for c in created}
    for change in updated:
        assert change.old is not None
    for change in created:  # rewritten or left alone, each keeps the mode it was given
        assert stat.S_IMODE(change.path.stat().st_mode) == 0o640, change.display


# ---------------------------------------------------------------- every agent's yolo file

YOLO_TWINS = [
    (name, target.yolo_of, target.key)
    for name in sorted(AGENTS)
    for target in AGENTS[name].spec.targets
    if target.yolo_of is not None
]


@pytest.mark.parametrize(("name", "full_key", "yolo_key"), YOLO_TWINS)
@pytest.mark.parametrize("yolo_configured", [False, True], ids=["derived", "configured"])
def test_every_agent_writes_the_yolo_file_the_shared_way(
    tmp_path: Path, name: str, full_key: str, yolo_key: str, yolo_configured: bool
) -> None:
    """A yolo run writes the yolo key's file, else the full file's variant under the full
    key, and never the full file."""
    full = tmp_path / "out" / "agent.full.conf"
    targets = {full_key: full}
    if yolo_configured:
        targets[yolo_key] = tmp_path / "elsewhere" / "mine.conf"
    expected_key, expected = (
        (yolo_key, targets[yolo_key])
        if yolo_configured
        else (full_key, tmp_path / "out" / "agent.yolo.conf")
    )
    ctx = protected_context(_config(tmp_path, targets), _policy(), yolo=True)
    result = AGENTS[name].compile(ctx)
    written = {c.path for c in result.changes if isinstance(c, FileWrite)}
    assert expected in written and full not in written
    drift = {(d.display, d.target_key) for d in result.drift}
    assert (display_path(expected), expected_key) in drift
