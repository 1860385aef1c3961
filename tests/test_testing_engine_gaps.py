"""The claude and deepcode engines' documented gaps, the UNMODELLED verdict, and the DeepCode
engine's view of its own sandbox (pure: no sandbox runs here)."""

from __future__ import annotations

from pathlib import Path

from support.policies import fs

from twsrt.agents.deepcode.engine import DeepcodeEngine, _throwaway_read_only
from twsrt.locations import Location
from twsrt.testing.model import Action, Outcome, Probe, ProbeReport, Result, Verdict
from twsrt.testing.registry import ENGINES
from twsrt.testing.verdicts import explain_gap

AT = Location("s")
GLOB_WRITE = Probe("deny-write", "**/.env", AT, Action.APPEND, Outcome.DENIED, glob=True)
PLAIN_WRITE = Probe("deny-write", "~/.bashrc", AT, Action.APPEND, Outcome.DENIED)
DENY_READ = Probe("deny-read", "~/.ssh", AT, Action.READ, Outcome.DENIED)
SOCKET = Probe("allow-unix-socket", "/run/x.sock", AT, Action.CONNECT, Outcome.ALLOWED)


def rule(engine: str, probe: Probe, observed: Outcome, platform: str = "linux") -> str | None:
    gap = explain_gap(engine, probe, observed, fs(), platform)
    return gap.rule_id if gap else None


def test_every_engine_is_registered_in_run_order() -> None:
    assert list(ENGINES) == [
        "srt",
        "codex",
        "claude",
        "deepcode",
        "gemini",
        "qwen",
        "kilo",
        "pi",
        "droid",
    ]


def test_claude_runs_srt_so_srts_linux_gaps_are_claudes() -> None:
    assert rule("claude", GLOB_WRITE, Outcome.ALLOWED) == "TWS501"
    assert rule("claude", SOCKET, Outcome.DENIED) == "TWS502"
    assert rule("claude", GLOB_WRITE, Outcome.ALLOWED, "darwin") is None
    assert rule("claude", PLAIN_WRITE, Outcome.ALLOWED) is None  # a literal deny must hold


def test_claude_launch_directory_is_writable_under_read_only() -> None:
    root = Probe("read-only-root", ".", AT, Action.CREATE, Outcome.DENIED)
    other = Probe("read-only-root", "~/.cache", AT, Action.CREATE, Outcome.DENIED)
    assert rule("claude", root, Outcome.ALLOWED) == "TWS413"
    assert rule("claude", other, Outcome.ALLOWED) is None
    assert rule("srt", root, Outcome.ALLOWED) is None


def test_deepcode_linux_applies_no_deny_entry() -> None:
    assert rule("deepcode", GLOB_WRITE, Outcome.ALLOWED) == "TWS432"
    assert rule("deepcode", DENY_READ, Outcome.ALLOWED) == "TWS432"
    assert rule("deepcode", DENY_READ, Outcome.ALLOWED, "darwin") is None
    allow = Probe("allow-write", ".", AT, Action.CREATE, Outcome.ALLOWED)
    assert rule("deepcode", allow, Outcome.DENIED) is None


def test_unmodelled_never_passes_and_fails_only_when_strict() -> None:
    result = Result("deepcode", DENY_READ, Verdict.UNMODELLED, "not modelled")
    assert ProbeReport(results=[result]).exit_code == 0
    assert ProbeReport(results=[result], strict=True).exit_code == 1


def test_deepcode_throwaway_mounts_become_read_only() -> None:
    args = ["--ro-bind-try", "/usr", "/usr", "--tmpfs", "/tmp", "--bind", "/w", "/w"]
    assert _throwaway_read_only(args) == ["--remount-ro", "/", "--remount-ro", "/tmp"]
    # a bind of the host's /tmp over DeepCode's tmpfs stays writable
    bound = [*args, "--bind-try", "/tmp", "/tmp"]
    assert _throwaway_read_only(bound) == ["--remount-ro", "/"]


def test_deepcode_probe_commands_use_a_python_its_sandbox_mounts() -> None:
    engine = DeepcodeEngine("node", "bwrap")
    assert engine.python is None or engine.python.startswith(("/usr/", "/bin/"))


def test_deepcode_unmodelled(tmp_path: Path) -> None:
    from twsrt.testing.model import Attack

    engine = DeepcodeEngine("node", "bwrap")
    engine.root = tmp_path
    engine.args = ["--bind", str(tmp_path / "work"), str(tmp_path / "work")]
    assert engine.unsandboxed is False
    base = dict(rule=".", origin=AT, action=Action.CREATE, expect=Outcome.ALLOWED)
    outside = Attack("allow-write", links=(("outside/tw-root-work", "work"),), **base)
    inside = Attack("allow-write", links=(("work/tw-root-x", "home/.cache"),), **base)
    assert "outside/tw-root-work" in engine.unmodelled(outside)
    assert engine.unmodelled(inside) == ""
    engine.not_modelled = {"fetch": "no DNS proxy"}
    fetch = Probe("allow-domain", "a.test", AT, Action.FETCH, Outcome.ALLOWED)
    assert engine.unmodelled(fetch) == "no DNS proxy"
    engine.args = []
    assert engine.unsandboxed is True
