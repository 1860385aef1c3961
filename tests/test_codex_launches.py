"""Codex's protections between launches (agents/codex/launches.py): the protected names at the
top of every write root, the launch pins, and that no write entry re-opens a read-only one.
The real runs behind them are in tests/real/test_codex_launches.py."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.policies import make_policy, named
from support.strategies import compilable_srt_settings, tree_policy

from twsrt.agents.codex.agent import translate
from twsrt.agents.codex.declaration import WORKSPACE
from twsrt.agents.codex.launches import CODEX_KEEPS, LAUNCH_DEPTH, protected_names
from twsrt.findings import TwsrtError

HELD = ("read", "deny")

# names that collide: the protected ones, Codex's own, and plain ones in several places
_segment = st.sampled_from(
    ["a", "app", "dev", "src", ".git", ".codex", ".vscode", ".claude", ".bashrc"]
)
_path = st.lists(_segment, min_size=1, max_size=4).map("/".join)


@st.composite
def _colliding(draw: st.DrawFn) -> dict[str, Any]:
    """Write roots and denies spelled from the same few names, so a pin, a protection and a
    deny meet."""
    roots = draw(st.lists(st.sampled_from([".", "src", "~/dev", "/srv", "~/dev/app"]), max_size=3))
    anchors = st.sampled_from(["~/", "/", "", "~/dev/", "/srv/", "./"])
    denies = draw(st.lists(st.tuples(anchors, _path).map("".join), max_size=4))
    for deny in list(denies):  # an absolute deny ending in a relative one's first name
        if not deny.startswith(("~", "/")) and draw(st.booleans()):
            denies.append(draw(st.sampled_from(["~/x/", "/srv/", "~/"])) + deny.split("/")[0])
    for root in roots:  # a deny below one of a root's protected names
        if draw(st.booleans()):
            name = draw(st.sampled_from(protected_names(named())))
            below = "" if root == "." else root + "/"
            denies.append(f"{below}{name}/{draw(_path)}")
    split = draw(st.integers(0, len(denies)))
    return {
        "filesystem": {
            "allowWrite": sorted(set(roots)),
            "denyWrite": denies[:split],
            "denyRead": denies[split:],
        }
    }


def _entries(profile: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """(absolute key -> mode, launch-relative sub -> mode) of a compiled profile."""
    absolute: dict[str, str] = {}
    relative: dict[str, str] = {}
    for key, value in profile.get("filesystem", {}).items():
        if key == "glob_scan_max_depth" or (key.startswith(":") and key != WORKSPACE):
            continue
        scoped = value if isinstance(value, dict) else {".": value}
        if key == WORKSPACE:
            relative.update(scoped)
        elif "." in scoped:
            absolute[key] = scoped["."]
    return absolute, relative


def _inside(path: str, held: set[str]) -> bool:
    parts = path.split("/")
    return any("/".join(parts[:n]) in held for n in range(1, len(parts)))


def _lands_on(entry: str, pin: list[str], held: set[str]) -> bool:
    """Whether Codex started somewhere finds ``pin`` on or below ``entry``, from a directory
    that no held entry covers (inside one, the launch directory's own write wins already)."""
    base, _, rest = entry.partition("/") if entry.startswith("~/") else ("", "", entry[1:])
    parts = rest.split("/")
    for n in range(1, min(len(pin), len(parts)) + 1):
        if parts[-n:] != pin[:n]:
            continue
        start = parts[:-n]
        spelled = [
            (f"{base}/" if base else "/") + "/".join(start[:k]) for k in range(1, len(start) + 1)
        ]
        if not any(s in held for s in spelled):
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(srt=st.one_of(_colliding(), tree_policy(), compilable_srt_settings()))
def test_no_write_entry_reopens_a_read_only_one(srt: dict[str, Any]) -> None:
    try:
        compiled, _ = translate(make_policy(srt))
    except TwsrtError:
        assume(False)
    absolute, relative = _entries(compiled.profile)
    held_abs = {k for k, m in absolute.items() if m in HELD}
    held_rel = {s for s, m in relative.items() if m in HELD}
    roots = {k for k, m in absolute.items() if m == "write"}
    roots_rel = {s for s, m in relative.items() if m == "write"}
    for key in roots:
        assert not _inside(key, held_abs), key
    for sub in roots_rel:
        assert not _inside(sub, held_rel), sub
    policy_roots = {
        rule.path.removesuffix("/**").removeprefix("./") for rule in make_policy(srt).allow_write
    }
    for sub in roots_rel - {"."} - policy_roots:  # a launch pin or a pin below a root
        pin = sub.split("/")
        assert not set(pin) & set(CODEX_KEEPS), sub
        for entry in held_abs:
            # wherever Codex starts, a pin never lands on or below a read-only entry
            assert not _lands_on(entry, pin, held_abs), (sub, entry)


@settings(max_examples=100, deadline=None)
@given(srt=st.one_of(_colliding(), tree_policy(), compilable_srt_settings()))
def test_every_write_root_gets_the_protected_names(srt: dict[str, Any]) -> None:
    try:
        compiled, findings = translate(make_policy(srt))
    except TwsrtError:
        assume(False)
    absolute, relative = _entries(compiled.profile)
    names = protected_names(named())
    for key, mode in absolute.items():
        if mode == "write" and any(
            f.rule_id == "TWS465" and f"'{key}'" in f.message for f in findings
        ):
            for name in names:
                assert absolute.get(f"{key.rstrip('/')}/{name}") in HELD, (key, name)
    if relative.get(".") == "write":
        for name in names:
            assert relative.get(name) in HELD, name


def test_the_launch_pins_of_a_deny() -> None:
    srt = {"filesystem": {"allowWrite": ["."], "denyWrite": ["~/dev/app/locked"]}}
    compiled, findings = translate(make_policy(srt))
    _, relative = _entries(compiled.profile)
    pins = {s for s, m in relative.items() if m == "write" and s != "."}
    assert pins == {"dev", "dev/app", "app"}
    (note,) = [f for f in findings if f.rule_id == "TWS467"]
    assert note.level.value == "note" and note.location.pointer == "/filesystem/denyWrite/0"
    # an absolute deny pins from /, a root other than "." pins below itself only
    srt = {"filesystem": {"allowWrite": ["src"], "denyWrite": ["/srv/src/x/locked"]}}
    compiled, _ = translate(make_policy(srt))
    _, relative = _entries(compiled.profile)
    assert {s for s, m in relative.items() if m == "write" and s != "src"} == {"src/x"}


def test_a_pin_that_could_land_on_a_read_only_entry_is_left_out() -> None:
    srt = {
        "filesystem": {
            "allowWrite": ["."],
            "denyWrite": ["~/dev/app/locked", "/srv/other/app"],
            "denyRead": ["~/.codex-like/.git/x"],
        }
    }
    compiled, _ = translate(make_policy(srt))
    _, relative = _entries(compiled.profile)
    pins = {s for s, m in relative.items() if m == "write" and s != "."}
    # 'app' would land on /srv/other/app when Codex starts in /srv/other; '.git' is Codex's own
    assert "app" not in pins and "dev/app" in pins and "dev" in pins
    assert not any(".git" in pin.split("/") for pin in pins)


def test_a_deny_too_deep_to_pin_everywhere_is_an_error() -> None:
    deep = "~/" + "/".join(f"d{n}" for n in range(LAUNCH_DEPTH + 3)) + "/locked"
    _, findings = translate(make_policy({"filesystem": {"allowWrite": ["."], "denyWrite": [deep]}}))
    (found,) = [f for f in findings if f.rule_id == "TWS466"]
    assert found.level.value == "error" and found.location.pointer == "/filesystem/denyWrite/0"
    shallow = {"filesystem": {"allowWrite": ["."], "denyWrite": ["~/a/b/locked"]}}
    assert not [f for f in translate(make_policy(shallow))[1] if f.rule_id == "TWS466"]


def test_a_write_root_inside_a_protected_name_is_skipped() -> None:
    srt = {"filesystem": {"allowWrite": [".", ".vscode/x", "~/dev", "~/dev/.claude/y"]}}
    compiled, findings = translate(make_policy(srt))
    absolute, relative = _entries(compiled.profile)
    assert ".vscode/x" not in relative and "~/dev/.claude/y" not in absolute
    skipped = [f.location.pointer for f in findings if f.rule_id == "TWS408"]
    assert skipped == ["/filesystem/allowWrite/1", "/filesystem/allowWrite/3"]
