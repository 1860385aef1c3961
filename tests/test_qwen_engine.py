"""The qwen engine without the real tools: the sandbox it admits from the settings, the bwrap
arguments it builds (as Qwen Code 0.24.4's ``executeBwrap`` does), the mask Qwen makes, the
system file it will not model, and its gap table. tests/real/test_qwen_engine.py pins the
arguments against the real agent."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support.policies import fs

from twsrt.agents.qwen.engine import (
    SYSTEM_ENV,
    QwenEngine,
    execution_sandbox,
    mask_problem,
    qwen_bwrap_args,
    run_as_qwen,
    system_sandbox,
)
from twsrt.findings import Finding
from twsrt.locations import Location
from twsrt.testing.engines import EngineUnavailable, engine_class
from twsrt.testing.model import Action, Attack, Outcome, Probe
from twsrt.testing.registry import ENGINES
from twsrt.testing.verdicts import explain_gap

WRITE = {"backend": "auto", "filesystem": "workspace-write", "network": "closed"}
READ_ONLY = {"filesystem": "read-only", "network": "open"}
AT = Location("s")


def _settings(value: Any) -> dict[str, Any]:
    return {"tools": {"executionSandbox": value}}


def test_the_sandbox_qwen_admits() -> None:
    assert execution_sandbox(_settings(WRITE)) == WRITE
    assert execution_sandbox(_settings(READ_ONLY)) == READ_ONLY
    assert execution_sandbox(_settings({**WRITE, "backend": "bwrap"})) is not None


@pytest.mark.parametrize(
    "value",
    [
        None,
        "workspace-write",
        {"filesystem": "workspace-write"},  # network is required
        {**WRITE, "filesystem": "full"},
        {**WRITE, "network": "proxied"},
        {**WRITE, "backend": "docker"},
        {**WRITE, "bwrapPath": "/tmp/bwrap"},  # no member beyond the three
    ],
)
def test_no_sandbox_for_a_value_qwen_refuses(value: Any) -> None:
    """Missing, Qwen runs unsandboxed; invalid, it refuses to start: either way no probe runs
    in a sandbox, so the engine runs them unsandboxed (they FAIL, never PASS)."""
    settings = {"tools": {}} if value is None else _settings(value)
    assert execution_sandbox(settings) is None


def test_workspace_write_with_the_network_closed(tmp_path: Path) -> None:
    work, scratch = tmp_path / "work", tmp_path / "tmp" / "qwen-sandbox-x"
    work.mkdir()
    scratch.mkdir(parents=True)
    assert qwen_bwrap_args(WRITE, work, scratch) == [
        "--ro-bind", "/", "/", "--unshare-pid", "--proc", "/proc", "--dev", "/dev",
        "--die-with-parent", "--bind", str(scratch), str(scratch),
        "--bind", str(work), str(work), "--tmpfs", str(work / ".qwen" / "review-leases"),
        "--unshare-net", "--chdir", str(work),
    ]  # fmt: skip


def test_read_only_with_the_network_open(tmp_path: Path) -> None:
    """No workspace bind, no network unshare; the mask only when it is already there."""
    work, scratch = tmp_path / "work", tmp_path / "scratch"
    work.mkdir()
    scratch.mkdir()
    args = qwen_bwrap_args(READ_ONLY, work, scratch, work)
    assert str(work) not in args[:-1] and "--unshare-net" not in args and "--tmpfs" not in args
    (work / ".qwen" / "review-leases").mkdir(parents=True)
    assert "--tmpfs" in qwen_bwrap_args(READ_ONLY, work, scratch)
    assert qwen_bwrap_args(None, work, scratch) == []


def test_paths_are_real_paths(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    args = qwen_bwrap_args(WRITE, tmp_path / "link", tmp_path)
    real = str(tmp_path / "real")
    assert args[args.index("--chdir") + 1] == real and ["--bind", real, real] == args[12:15]


def test_qwen_makes_the_mask_only_in_a_writable_workspace(tmp_path: Path) -> None:
    mask = tmp_path / ".qwen" / "review-leases"
    assert mask_problem(READ_ONLY, tmp_path) == "" and not mask.exists()
    assert mask_problem(WRITE, tmp_path) == "" and mask.is_dir()


def test_a_mask_that_is_no_directory_or_leaves_the_workspace_refuses_the_call(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    (work / ".qwen").mkdir(parents=True)
    (work / ".qwen" / "review-leases").write_text("x")
    assert "directories" in mask_problem(WRITE, work)
    other = tmp_path / "other"
    (other / ".qwen").mkdir(parents=True)
    os.rmdir(other / ".qwen")
    (other / ".qwen").symlink_to(tmp_path)
    assert "inside the workspace" in mask_problem(WRITE, other)


def test_the_unsandboxed_run_is_plain_sh(tmp_path: Path) -> None:
    ran = run_as_qwen(None, None, tmp_path, tmp_path, "pwd", {"PATH": "/usr/bin:/bin"}, 10.0)
    assert ran.exit_code == 0 and ran.output.strip() == str(tmp_path)


def test_a_system_sandbox_is_not_modelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/etc/qwen-code/settings.json outranks the user's sandbox: the engine does not run."""
    system = tmp_path / "settings.json"
    monkeypatch.setenv(SYSTEM_ENV, str(system))
    assert system_sandbox() == ""
    system.write_text('{"general": {}}')
    assert system_sandbox() == ""
    system.write_text('{"tools": {"executionSandbox": {}}}')
    assert system_sandbox() == str(system)
    engine = QwenEngine("/bin/true")
    with pytest.raises(EngineUnavailable, match="not modelled"):
        engine.check_available(None)  # type: ignore[arg-type]
    system.write_text("{")
    assert "not JSON" in system_sandbox()


def test_a_missing_bwrap_is_unavailable_with_the_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SYSTEM_ENV, str(tmp_path / "none.json"))
    with pytest.raises(EngineUnavailable) as info:
        QwenEngine(str(tmp_path / "no-bwrap")).check_available(None)  # type: ignore[arg-type]
    assert "apt-get install -y bubblewrap" in info.value.hint


def test_the_engine_is_registered_through_the_declaration() -> None:
    from twsrt.agents import spec_of

    assert ENGINES["qwen"] == "twsrt.agents.qwen.engine"
    assert engine_class("qwen") is QwenEngine and spec_of("qwen").no_engine == ""


def _gap(probe: Probe, observed: Outcome, reported: tuple[Finding, ...] = ()) -> str | None:
    found = explain_gap("qwen", probe, observed, fs(), "linux", reported)
    return found.rule_id if found else None


def test_the_gap_table() -> None:
    read = Probe("deny-read", "~/.ssh", AT, Action.READ, Outcome.DENIED, "home/.ssh")
    inside = Probe("deny-write", "locked", AT, Action.APPEND, Outcome.DENIED, "work/locked")
    outside = Probe("deny-write", "~/.bashrc", AT, Action.APPEND, Outcome.DENIED, "home/.bashrc")
    root = Probe("allow-write", "~/out", AT, Action.CREATE, Outcome.ALLOWED, "home/out")
    domain = Probe("allow-domain", "a.test", AT, Action.FETCH, Outcome.ALLOWED)
    denied = Probe("deny-domain", "b.test", AT, Action.FETCH, Outcome.DENIED)
    assert _gap(read, Outcome.ALLOWED) == "TWS483"
    assert _gap(inside, Outcome.ALLOWED) == "TWS484"
    assert _gap(outside, Outcome.ALLOWED) is None  # outside the launch directory it must hold
    assert _gap(root, Outcome.DENIED) == "TWS408"
    assert _gap(domain, Outcome.DENIED) == "TWS486"
    assert _gap(denied, Outcome.ALLOWED) is None  # twsrt writes the network closed


def test_an_attack_across_launches_is_tws487_only_where_check_reports_it() -> None:
    from twsrt.agents.qwen.rules import QWEN_PROJECT_LAYER_OPEN
    from twsrt.findings import finding

    attack = Attack(
        "mandatory", ".zshrc", AT, Action.APPEND, Outcome.DENIED, "work/.zshrc",
        attack="append", form="launch top", subject="work/.zshrc",
    )  # fmt: skip
    reported = (finding(QWEN_PROJECT_LAYER_OPEN, "writable", Location("p", 6, 20)),)
    assert _gap(attack, Outcome.ALLOWED) is None
    assert _gap(attack, Outcome.ALLOWED, reported) == "TWS487"
    assert _gap(attack, Outcome.DENIED, reported) is None
