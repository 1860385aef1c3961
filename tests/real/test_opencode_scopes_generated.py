"""The real OpenCode 1.18.33 and Kilo Code CLI 7.7.7 on the project file twsrt generates for
them (``opencode_project``: ``opencode.json``; ``kilo_project``: ``kilo.jsonc``): started in the
project root, beside a user file that names the fake model and carries no rules, each agent
refuses the policy's denied command, a read of the denied path, a write into the denied tree
and a write of the project file itself, while an allowed command and a write inside the
project run; started in a subdirectory of the project (TWS670), the denied command is still
refused. The control is the same workspace without twsrt's file, where every call runs.

The managed scope (``opencode_managed_linux``, ``kilo_managed_linux``): the generated file is
bound at ``/etc/opencode`` (``/etc/kilo``) in a private mount namespace (``private_etc``), under
a user file that allows ``touch`` and reads. Its denies hold against that user file (the
control: the same user file without the managed one). Two runs pin what TWS673 reports: the
agent's ``*_PERMISSION`` variable lifts the managed deny, and a user object that already has
the managed pattern (``"touch *"``) followed by a more specific allow lifts it too.

Headless runs against the fake model of ``opencode_client`` (three at a time), under /var/tmp.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat

from .opencode_client import (
    KILO,
    OPENCODE,
    Agent,
    Call,
    Observed,
    Setup,
    bash,
    read,
    run_all,
    scratch_dir,
    write,
)
from .private_etc import private_etc

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("opencode_scopes")]

SECRET = "PROJECT-SECRET"
BASH = {"deny": ["touch"], "allow": ["echo"]}
SRT = {
    "filesystem": {"denyRead": ["private"], "denyWrite": ["guarded"], "allowWrite": ["."]},
    "network": {"allowedDomains": []},
}
AGENTS = {"opencode": OPENCODE, "kilo": KILO}


def generate(ws: Path, agent: Agent, home: Path) -> str:
    """twsrt's project file for ``agent`` in the workspace ``ws`` (its own twsrt.toml there);
    the file's text as written."""
    (ws / "srt.json").write_text(json.dumps(SRT))
    (ws / "bash.json").write_text(json.dumps(BASH))
    (ws / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        f'[project]\nagents = ["{agent.name}"]\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "-w"], cwd=ws, env=env)
    assert wrote.returncode == 0, wrote.stderr
    return (ws / agent.project_file).read_text()


def _prepare(setup: Setup) -> None:
    (setup.workspace / "private").mkdir()
    (setup.workspace / "private" / "key").write_text(SECRET + "\n")
    (setup.workspace / "guarded").mkdir()


def _calls(setup: Setup) -> list[Call]:
    ws = setup.workspace
    return [
        bash("touch denied-cmd"),
        read(ws / "private" / "key"),
        write(ws / "guarded" / "new"),
        write(ws / setup.agent.project_file, "{}\n"),
        write(ws / "open.txt"),
        bash("echo allowed-ran"),
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Any]]:
    with scratch_dir("twsrt-opencode-scopes-") as root:
        plans: dict[str, Any] = {}
        generated: dict[str, str] = {}
        for name, agent in AGENTS.items():
            project = Setup(root / name, agent)
            project.write(fake.base_url(name))
            _prepare(project)
            generated[name] = generate(project.workspace, agent, project.home)
            plans[name] = (project, _calls(project), {"binary": agent.binary()})
            control = Setup(root / f"{name}-control", agent)
            control.write(fake.base_url(f"{name}-control"))
            _prepare(control)
            plans[f"{name}-control"] = (control, _calls(control), {"binary": agent.binary()})
            # a launch in a subdirectory of the project: its own HOME below it, no git of its own
            sub = Setup(project.workspace / "sub", agent, git=False)
            sub.write(fake.base_url(f"{name}-sub"))
            plans[f"{name}-sub"] = (sub, [bash("touch sub-denied")], {"binary": agent.binary()})
        observed: dict[str, Any] = run_all("", fake, plans)
        observed["generated"] = generated
        yield observed


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_runs_report_every_call(runs: dict[str, Any], name: str) -> None:
    for run_name in (name, f"{name}-control", f"{name}-sub"):
        run = runs[run_name].run
        assert all(r.verdict is not None for r in run.results), (run_name, run.stdout[-2000:])


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_project_file_is_twsrts(runs: dict[str, Any], name: str) -> None:
    """The generated file carries the policy's rules (and for Kilo no sandbox, TWS672)."""
    from twsrt.jsonpos import parse_jsonc

    value = parse_jsonc(runs["generated"][name]).value
    assert value["permission"]["bash"]["touch *"] == "deny"
    assert "sandbox" not in value


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_denied_command_is_refused_in_the_root_and_below(
    runs: dict[str, Any], name: str
) -> None:
    twsrt: Observed = runs[name]
    control: Observed = runs[f"{name}-control"]
    assert twsrt.verdict("touch denied-cmd") == "denied"
    assert not twsrt.exists("ws/denied-cmd")
    assert control.verdict("touch denied-cmd") == "ran"
    assert control.exists("ws/denied-cmd")
    sub: Observed = runs[f"{name}-sub"]
    assert sub.verdict("touch sub-denied") == "denied"
    assert not sub.exists("ws/sub-denied")


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_denied_read_and_writes_are_refused(runs: dict[str, Any], name: str) -> None:
    twsrt: Observed = runs[name]
    control: Observed = runs[f"{name}-control"]
    assert twsrt.verdict("read WS/private/key") == "denied"
    assert SECRET not in twsrt.told("read WS/private/key")
    assert control.verdict("read WS/private/key") == "ran"
    assert twsrt.verdict("write WS/guarded/new") == "denied"
    assert not twsrt.exists("ws/guarded/new")
    assert control.verdict("write WS/guarded/new") == "ran"
    assert control.exists("ws/guarded/new")


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_project_file_cannot_be_rewritten(runs: dict[str, Any], name: str) -> None:
    twsrt: Observed = runs[name]
    control: Observed = runs[f"{name}-control"]
    project_file = AGENTS[name].project_file
    assert twsrt.verdict(f"write WS/{project_file}") == "denied"
    text = (twsrt.setup.workspace / project_file).read_text()
    assert '"touch *": "deny"' in text
    # Kilo's own defaults ask before it writes its config (rejected headless, approved by
    # --auto); twsrt's deny refuses it in every mode
    assert control.verdict(f"write WS/{project_file}") == ("asked" if name == "kilo" else "ran")


@pytest.mark.parametrize("name", list(AGENTS))
def test_allowed_calls_run(runs: dict[str, Any], name: str) -> None:
    twsrt: Observed = runs[name]
    assert twsrt.verdict("write WS/open.txt") == "ran"
    assert twsrt.exists("ws/open.txt")
    assert twsrt.verdict("echo allowed-ran") == "ran"


# the user file of the managed runs: the shell and reads allowed (twsrt's managed file denies)
USER_ALLOWS = {"permission": {"bash": {"*": "allow", "touch *": "allow"}, "read": "allow"}}
# the user object has the managed pattern, then a more specific allow: the key-by-key merge
USER_ORDERED = {"permission": {"bash": {"*": "allow", "touch *": "ask", "touch inner*": "allow"}}}
MANAGED_DIR = {"opencode": "opencode", "kilo": "kilo"}


def generate_managed(cfg: Path, agent: Agent) -> Path:
    """twsrt's managed tree for ``agent``; the Linux directory that goes to /etc/<agent>."""
    cfg.mkdir(parents=True)
    (cfg / "srt.json").write_text(json.dumps(SRT))
    (cfg / "bash.json").write_text(json.dumps(BASH))
    (cfg / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        f'[managed]\nroot = "out"\nagents = ["{agent.name}"]\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cfg), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "-w"], cwd=cfg, env=env)
    assert wrote.returncode == 0, wrote.stderr
    return cfg / "out" / "linux" / "etc" / MANAGED_DIR[agent.name]


@pytest.fixture(scope="module")
def managed_runs(fake: FakeChat) -> Iterator[dict[str, Observed]]:
    with scratch_dir("twsrt-opencode-managed-") as root, ExitStack() as stack:
        plans: dict[str, Any] = {}
        for name, agent in AGENTS.items():
            etc = generate_managed(root / f"{name}-cfg", agent)
            wrapper = stack.enter_context(private_etc(agent.binary(), {agent.name: etc}))
            calls = [bash("touch denied-cmd"), read("WS/private/key"), bash("echo allowed-ran")]
            variable = {f"{agent.env}_PERMISSION": json.dumps({"bash": {"touch *": "allow"}})}
            for run, user, options in (
                ("managed", USER_ALLOWS, {"binary": wrapper}),
                ("control", USER_ALLOWS, {"binary": agent.binary()}),
                ("env", USER_ALLOWS, {"binary": wrapper, "extra_env": variable}),
                ("ordered", USER_ORDERED, {"binary": wrapper}),
            ):
                setup = Setup(root / f"{name}-{run}", agent, user=user)
                setup.write(fake.base_url(f"{name}-{run}"))
                _prepare(setup)
                probes = [bash("touch inner-ran")] if run == "ordered" else calls
                plans[f"{name}-{run}"] = (setup, probes, options)
        yield run_all("", fake, plans)


@pytest.mark.parametrize("name", list(AGENTS))
def test_managed_runs_report_every_call(managed_runs: dict[str, Observed], name: str) -> None:
    for run in ("managed", "control", "env", "ordered"):
        observed = managed_runs[f"{name}-{run}"]
        assert all(r.verdict is not None for r in observed.run.results), (
            run,
            observed.run.stdout[-2000:],
            observed.run.stderr[-2000:],
        )


@pytest.mark.parametrize("name", list(AGENTS))
def test_a_user_file_cannot_lift_a_managed_deny(
    managed_runs: dict[str, Observed], name: str
) -> None:
    managed, control = managed_runs[f"{name}-managed"], managed_runs[f"{name}-control"]
    assert managed.verdict("touch denied-cmd") == "denied"
    assert not managed.exists("ws/denied-cmd")
    assert managed.verdict("read WS/private/key") == "denied"
    assert SECRET not in managed.told("read WS/private/key")
    assert managed.verdict("echo allowed-ran") == "ran"
    assert control.verdict("touch denied-cmd") == "ran"
    assert control.exists("ws/denied-cmd")
    assert control.verdict("read WS/private/key") == "ran"


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_permission_variable_lifts_the_managed_deny(
    managed_runs: dict[str, Observed], name: str
) -> None:
    """TWS673: the variable is merged after the managed file."""
    assert managed_runs[f"{name}-env"].verdict("touch denied-cmd") == "ran"
    assert managed_runs[f"{name}-env"].exists("ws/denied-cmd")
    assert managed_runs[f"{name}-managed"].verdict("touch denied-cmd") == "denied"


@pytest.mark.parametrize("name", list(AGENTS))
def test_a_user_rule_after_the_managed_pattern_lifts_it(
    managed_runs: dict[str, Observed], name: str
) -> None:
    """TWS673: the managed "touch *" takes the user's place, before the user's more specific
    allow, which wins (the last matching rule)."""
    ordered = managed_runs[f"{name}-ordered"]
    assert ordered.verdict("touch inner-ran") == "ran"
    assert ordered.exists("ws/inner-ran")
