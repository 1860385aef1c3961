"""The real Factory Droid (0.225.2) on two denies that stop its own sandbox runtime
(twsrt/agents/droid/translate.py): a denyRead over the runtime (TWS424) and a denyWrite of the
launch directory (TWS425).

Droid starts every sandboxed command through a seccomp helper in ``~/.factory/sandbox-runtime``.
The file twsrt generates from ``denyRead: ["~/.factory"]`` hides it: Execute runs nothing
("Command not found", exit code 127) and nothing is written, and `check` says so with a note at
the deny. The control, the same policy denying ``~/secret`` instead, runs the command.

Droid's srt masks its protected files (``.gitconfig``, ``.bashrc``, ...) in the launch
directory by creating placeholders; ``denyWrite: ["."]`` makes that directory read-only first, so
no command starts. A deny of the directory above it leaves the launch directory writable and the
command runs (the control).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat

from .droid_client import Call, Setup, droid_bin, run_droid

pytestmark = pytest.mark.real


def _generated(
    root: Path, deny: str, key: str = "denyRead"
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    repo = root / "repo"
    target = repo / "home" / ".factory" / "settings.json"
    target.parent.mkdir(parents=True)
    srt = {"filesystem": {key: [deny], "allowWrite": ["."]}}
    (repo / "srt.json").write_text(json.dumps(srt))
    (repo / "bash.json").write_text("{}")
    (repo / "twsrt.toml").write_text(
        f'home = "{root / "home"}"\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        '[targets]\ndroid_settings = "home/.factory/settings.json"\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "home"), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "droid", "-w"], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    checked = run_cli(["check", "--agent", "droid", "--format", "json"], cwd=repo, env=env)
    return json.loads(target.read_text()), json.loads(checked.stdout)["findings"]


@pytest.mark.parametrize("deny", ["~/.factory", "~/secret"])
def test_a_deny_over_the_runtime_runs_no_command_and_check_says_so(deny: str) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="twsrt-droid-", dir="/var/tmp") as tmp,
        FakeChat().serving() as fake,
    ):
        root = Path(tmp)
        settings, findings = _generated(root, deny)
        setup = Setup(root, settings=settings)
        made = root / "ws" / "made"
        ran = run_droid(droid_bin(), fake, "runtime", setup, [Call(f"echo reached > {made}")])
        told = ran.results[0] or ""
        notes = [(f["level"], f["location"]["line"]) for f in findings if f["rule_id"] == "TWS424"]
        if deny == "~/.factory":
            assert "Command not found" in told and "code 127" in told, told
            assert "/sandbox-runtime/seccomp/apply-seccomp" in told, told
            assert not made.exists()
            assert notes == [("note", 1)]
        else:  # the control: the same file with another deny runs the command
            assert made.read_text() == "reached\n", told
            assert notes == []


@pytest.mark.parametrize("deny", [".", "./**", "{root}"])
def test_a_write_deny_of_the_launch_directory_runs_no_command_and_check_says_so(
    deny: str,
) -> None:
    with (
        tempfile.TemporaryDirectory(prefix="twsrt-droid-", dir="/var/tmp") as tmp,
        FakeChat().serving() as fake,
    ):
        root = Path(tmp)
        settings, findings = _generated(root, deny.format(root=root), key="denyWrite")
        setup = Setup(root, settings=settings)
        made = root / "ws" / "made"
        ran = run_droid(droid_bin(), fake, "launch", setup, [Call(f"echo reached > {made}")])
        told = ran.results[0] or ""
        notes = [(f["level"], f["location"]["line"]) for f in findings if f["rule_id"] == "TWS425"]
        if deny != "{root}":
            assert f"Can't create file at {setup.workspace}/" in told, told
            assert "Read-only file system" in told, told
            assert not made.exists()
            assert notes == [("note", 1)]
        else:  # the control: a deny of the directory above leaves the launch directory open
            assert made.read_text() == "reached\n", told
            assert notes == []
