"""What Qwen Code 0.24.4's launch switches do to the rules and the sandbox twsrt writes: with
``--safe-mode`` or ``--bare`` (or their variables ``QWEN_CODE_SAFE_MODE`` and ``QWEN_CODE_SIMPLE``)
Qwen drops every permission rule of every settings file, the deny rules included, while the
execution sandbox stays on. The control is the same launch without the switch, whose deny
rules refuse the same calls. docs/agents/qwen-observed.md row 22; docs/agents/qwen.md "Traps".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat

from .qwen_client import Call, Observed, Setup, qwen_bin, read_file, run_all, scratch_dir

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_launch_flags")]

SECRET = "FLAGS-SECRET"
SANDBOX = {"backend": "bwrap", "filesystem": "workspace-write", "network": "closed"}
LAUNCHES: dict[str, dict[str, Any]] = {
    "control": {},
    "safe_flag": {"flags": ["--safe-mode"]},
    "safe_env": {"extra_env": {"QWEN_CODE_SAFE_MODE": "1"}},
    "bare_flag": {"flags": ["--bare"]},
    "bare_env": {"extra_env": {"QWEN_CODE_SIMPLE": "1"}},
}


def _settings(ws: Path) -> dict[str, Any]:
    private = f"//{str(ws).lstrip('/')}/private"
    deny = ["Bash(touch)", "Bash(touch *)", f"Read({private})", f"Read({private}/**)"]
    return {"permissions": {"deny": deny}, "tools": {"executionSandbox": SANDBOX}}


def _calls(setup: Setup) -> list[Call]:
    return [
        Call("touch denied-cmd"),
        read_file(setup.workspace / "private" / "key"),
        Call(f"echo x > {setup.root / 'outside' / 'o'}"),
    ]


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, Observed]]:
    binary = qwen_bin()
    with FakeChat().serving() as fake, scratch_dir("twsrt-qwen-flags-") as root:
        plans = {}
        for name, options in LAUNCHES.items():
            setup = Setup(root / name)
            setup.settings = _settings(setup.workspace)
            setup.write()
            (setup.workspace / "private").mkdir()
            (setup.workspace / "private" / "key").write_text(SECRET + "\n")
            (setup.root / "outside").mkdir()
            plans[name] = (setup, _calls(setup), options)
        yield run_all(binary, fake, plans)


def test_the_control_keeps_the_deny_rules(runs: dict[str, Observed]) -> None:
    control = runs["control"]
    assert control.run.finished, control.run.stderr
    assert control.result("touch denied-cmd").denied and not control.exists("ws/denied-cmd")
    assert SECRET not in control.run.stdout


@pytest.mark.parametrize("name", [n for n in LAUNCHES if n != "control"])
def test_the_switch_drops_the_deny_rules_and_keeps_the_sandbox(
    runs: dict[str, Observed], name: str
) -> None:
    observed = runs[name]
    assert observed.run.finished, observed.run.stderr
    assert observed.result("touch denied-cmd").status == "success"
    assert observed.exists("ws/denied-cmd")
    assert SECRET in observed.run.stdout  # read_file of the denied path
    assert observed.result("echo x >").status == "error"  # Read-only file system
    assert not observed.exists("outside/o")
