"""What the real Qwen Code 0.24.4 does with system settings, ``/etc/qwen-code/settings.json``
on Linux (the managed scope of the Qwen target, agents/qwen/managed.py). Each run with the
file sees it in a private mount namespace (tests/real/private_etc.py), never in the real /etc.

Two runs start at once, with the same user settings (an execution sandbox that writes the
workspace and opens the network, and an allow rule on ``touch``): ``system``, under a system
file with a read-only, closed sandbox and deny rules (``touch``, ``Read(~/hsecret)``,
``Edit(/prot/**)``), and ``control``, the same run without the system file. Both use --yolo.
docs/agents/qwen-observed.md rows 29-32 name the tests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.fake_chat import FakeChat

from .private_etc import private_etc
from .qwen_client import (
    Call,
    Observed,
    Result,
    Setup,
    permissions,
    qwen_bin,
    read_file,
    run_qwen,
    scratch_dir,
    write_file,
)

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_managed_observed")]

HOME_SECRET = "HOME-SECRET"
SYSTEM = {
    "tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}},
    **permissions(deny=["Bash(touch *)", "Read(~/hsecret)", "Edit(/prot/**)"]),
}
USER = {
    "tools": {"executionSandbox": {"filesystem": "workspace-write", "network": "open"}},
    **permissions(allow=["Shell(touch *)"]),
}


def _calls(fake: FakeChat, name: str) -> list[Call]:
    return [
        Call("touch t"),
        Call("mkdir d"),
        Call(f"curl -s -m 5 -o net {fake.url(name)}"),
        read_file("HOME/hsecret"),
        write_file("WS/prot/p"),
        write_file("WS/q"),
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = qwen_bin()
    with scratch_dir("twsrt-qwen-managed-") as root:
        etc = root / "etc-qwen-code"
        etc.mkdir()
        (etc / "settings.json").write_text(json.dumps(SYSTEM, indent=2) + "\n")
        with private_etc(binary, {"qwen-code": etc}) as managed:
            binaries = {"system": managed, "control": binary}
            plans = {}
            for name in binaries:
                setup = Setup(root / name, USER)
                setup.write()
                (setup.home / "hsecret").write_text(HOME_SECRET + "\n")
                plans[name] = (setup, [setup.resolve(c) for c in _calls(fake, name)])

            def one(name: str) -> tuple[str, Observed]:
                setup, calls = plans[name]
                run = run_qwen(binaries[name], fake, name, setup, calls)
                return name, Observed(setup, calls, run)

            with ThreadPoolExecutor(len(plans)) as pool:
                yield dict(pool.map(one, plans))


def _of(observed: Observed, tool: str, relative: str) -> Result:
    base = observed.setup.home if relative.startswith("HOME/") else observed.setup.workspace
    path = Path(base) / relative.split("/", 1)[1]
    assert observed.run.finished, observed.run.stderr[-2000:]
    return observed.result(f"{tool} {path}")


def test_the_system_sandbox_holds_against_the_users(
    runs: dict[str, Observed], fake: FakeChat
) -> None:
    """The user's sandbox writes the workspace and opens the network; the system file's
    read-only, closed one wins: ``mkdir`` in the workspace and ``curl`` fail. Without the
    system file the user's sandbox lets both through."""
    system, control = runs["system"], runs["control"]
    assert system.run.finished, system.run.stderr[-2000:]
    assert not system.exists("ws/d") and not system.exists("ws/net")
    assert "/system" not in fake.hits
    assert control.exists("ws/d") and (control.setup.workspace / "net").read_text() == "ok"
    assert "/control" in fake.hits


def test_a_system_deny_holds_against_a_user_allow(runs: dict[str, Observed]) -> None:
    """The user allows ``Shell(touch *)``; the system denies ``Bash(touch *)``: refused."""
    system, control = runs["system"], runs["control"]
    assert system.result("touch t").denied
    assert 'Matching deny rule: "Bash(touch *)"' in system.result("touch t").output
    assert not system.exists("ws/t")
    assert control.exists("ws/t")


def test_a_system_home_rule_expands_with_the_running_users_home(
    runs: dict[str, Observed],
) -> None:
    """``Read(~/hsecret)`` in the system file refuses ``read_file`` of ``$HOME/hsecret`` for
    the run's own HOME (a fresh directory): ``~/`` expands per user at match time."""
    refused = _of(runs["system"], "read_file", "HOME/hsecret")
    assert refused.denied and HOME_SECRET not in refused.output
    assert HOME_SECRET in _of(runs["control"], "read_file", "HOME/hsecret").output


def test_a_system_relative_rule_anchors_at_the_launch_directory(
    runs: dict[str, Observed],
) -> None:
    """``Edit(/prot/**)`` in the system file refuses ``write_file`` of ``<launch dir>/prot/p``
    by the rule (``q`` beside it is refused by the read-only sandbox instead, not by a rule);
    without the system file both are written."""
    system, control = runs["system"], runs["control"]
    refused = _of(system, "write_file", "WS/prot/p")
    assert refused.denied and 'Matching deny rule: "Edit(/prot/**)"' in refused.output
    beside = _of(system, "write_file", "WS/q")
    assert not beside.denied and "read-only sandbox policy" in beside.output
    assert not system.exists("ws/prot/p") and not system.exists("ws/q")
    assert control.exists("ws/prot/p") and control.exists("ws/q")
