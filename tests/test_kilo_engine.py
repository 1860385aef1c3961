"""The kilo engine's model of Kilo 7.7.7's bubblewrap argv and its gap table (pure: no
sandbox runs here; tests/real/test_kilo_engine.py holds the model to the real agent)."""

from __future__ import annotations

from pathlib import Path

from support.policies import fs

from twsrt.agents.kilo.engine import PROXY_PROBLEM, kilo_bwrap_args, kilo_dirs, kilo_sandbox
from twsrt.locations import Location
from twsrt.testing.engines import engine_class
from twsrt.testing.model import Action, Outcome, Probe
from twsrt.testing.verdicts import explain_gap

AT = Location("s")


def test_the_sandbox_is_on_only_when_enabled_is_true() -> None:
    assert kilo_sandbox({}) is None
    assert kilo_sandbox({"sandbox": {"enabled": False}}) is None
    on = kilo_sandbox({"sandbox": {"enabled": True, "writable_paths": ["/w"]}})
    assert on == {"mode": "deny", "writable": ["/w"]}
    hosts = {"enabled": True, "network": "deny", "allowed_hosts": ["a.example"]}
    assert kilo_sandbox({"sandbox": hosts}) == {"mode": "proxy", "writable": []}
    assert kilo_sandbox({"sandbox": {"enabled": True, "network": "allow"}})["mode"] == "allow"  # type: ignore[index]


def test_the_argv_has_kilos_shape(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    (work / "sub" / ".git").mkdir(parents=True)
    dirs = kilo_dirs(home, tmp_path / "t")
    for path in dirs.values():
        path.mkdir(parents=True)
    missing = str(tmp_path / "missing")
    args = kilo_bwrap_args(
        {"mode": "deny", "writable": [missing]}, work, dirs, "/usr/bin/bwrap", None
    )
    assert isinstance(args, list)
    head = ["--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-net"]
    assert args[:4] == head and args[-4:] == ["--proc", "/proc", "--chdir", str(work)]
    binds = [args[i + 1] for i, a in enumerate(args) if a == "--bind"]
    assert binds[0] == str(work) and missing not in binds and binds == sorted(binds, key=len)
    locked = [args[i + 1] for i, a in enumerate(args) if a == "--ro-bind"]
    assert str(work / "sub" / ".git") in locked and str(dirs["config"]) in locked
    assert args.index("--ro-bind", args.index("--bind")) > args.index("--bind")
    opened = kilo_bwrap_args({"mode": "allow", "writable": []}, work, dirs, "/usr/bin/bwrap", None)
    assert "--unshare-net" not in opened
    assert (
        kilo_bwrap_args({"mode": "proxy", "writable": []}, work, dirs, "b", None) == PROXY_PROBLEM
    )


def test_the_gaps_name_kilos_rules() -> None:
    assert engine_class("kilo").name == "kilo"
    read = Probe("deny-read", "~/.ssh", AT, Action.READ, Outcome.DENIED)
    inside = Probe("deny-write", "locked", AT, Action.APPEND, Outcome.DENIED)
    home = Probe("deny-write", "~/.bashrc", AT, Action.APPEND, Outcome.DENIED)

    def rule(probe: Probe, observed: Outcome) -> str | None:
        gap = explain_gap("kilo", probe, observed, fs(), "linux")
        return gap.rule_id if gap else None

    assert rule(read, Outcome.ALLOWED) == "TWS460"
    assert rule(inside, Outcome.ALLOWED) == "TWS461"
    assert rule(home, Outcome.ALLOWED) is None  # outside every root the deny must hold
