"""The real Qwen Code 0.24.4 on the project and system settings twsrt generates (project scope:
``.qwen/settings.json``; managed scope: ``/etc/qwen-code/settings.json``, seen in a private
mount namespace, tests/real/private_etc.py). Each file loads with no warning on stderr and
Qwen does not rewrite it; under it the agent's own tools are refused a denied command, a
denied home path, a relative denied path and a denied write, and under the system file also a
request to a local server, although the user's own settings allow the command and open the
sandbox's network. ``control`` makes the same calls under the same user
settings without either file, and each succeeds.

Three headless --yolo runs against the fake model of ``qwen_client``, started together.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat

from .private_etc import private_etc
from .qwen_client import (
    Call,
    Observed,
    Result,
    Setup,
    qwen_bin,
    read_file,
    run_qwen,
    scratch_dir,
    write_file,
)

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_scopes_generated")]

SECRET, HOME_SECRET = "SCOPED-SECRET", "SCOPED-HOME-SECRET"
SRT = {
    "filesystem": {
        "denyRead": ["~/hsecret", "private"],
        "denyWrite": ["guarded"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": []},
}
BASH = {"deny": ["touch"], "ask": [], "allow": ["git"]}
# the user's own settings in every run: a wider sandbox and an allow of the denied command
USER = {
    "tools": {"executionSandbox": {"filesystem": "workspace-write", "network": "open"}},
    "permissions": {"allow": ["Shell(touch *)"]},
}
PROJECT_USER: dict[str, Any] = {}  # the project run: no user rules, no user sandbox
GENERATED: dict[str, bytes] = {}  # the project file as twsrt wrote it, before Qwen started


def generate(root: Path, table: str) -> Path:
    """twsrt's file of ``table``'s scope for ``root/ws`` (``[project]`` or ``[managed]``)."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    (repo / "srt.json").write_text(json.dumps(SRT))
    (repo / "bash.json").write_text(json.dumps(BASH))
    scope = f'root = "{root / "ws"}"' if table == "project" else 'root = "managed"'
    (repo / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        f'[{table}]\n{scope}\nagents = ["qwen"]\n'
    )
    (root / "ws").mkdir(parents=True, exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "home"), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "-w"], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    if table == "project":
        return root / "ws" / ".qwen" / "settings.json"
    return repo / "managed" / "linux" / "etc" / "qwen-code" / "settings.json"


def _prepare(setup: Setup) -> None:
    setup.write()
    (setup.home / "hsecret").write_text(HOME_SECRET + "\n")
    (setup.workspace / "private").mkdir()
    (setup.workspace / "private" / "key").write_text(SECRET + "\n")
    (setup.workspace / "guarded").mkdir()


def _fetch_command(url: str) -> str:
    """A fetch by python3, which Qwen does not read as a web fetch (a ``curl`` would meet the
    ``WebFetch`` deny before the sandbox, row 23): ``net`` is written only with an answer."""
    fetch = f"d = urllib.request.urlopen({url!r}, timeout=5).read()"
    code = f"import urllib.request; {fetch}; open('net', 'wb').write(d)"
    return "python3 -c " + shlex.quote(code)


def _calls(setup: Setup, fake: FakeChat, name: str) -> list[Call]:
    return [
        Call("touch t"),
        read_file(setup.home / "hsecret"),
        read_file(setup.workspace / "private" / "key"),
        write_file(setup.workspace / "guarded" / "new"),
        Call(_fetch_command(fake.url(name))),
        Call("git init -q g"),
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = qwen_bin()
    with scratch_dir("twsrt-qwen-scoped-") as root:
        system = generate(root / "managed", "managed")
        etc = root / "etc-qwen-code"
        etc.mkdir()
        (etc / "settings.json").write_bytes(system.read_bytes())
        project = generate(root / "project", "project")
        GENERATED["project"] = project.read_bytes()
        setups = {
            "system": Setup(root / "managed", USER),
            "project": Setup(root / "project", PROJECT_USER),
            "control": Setup(root / "control", USER),
        }
        for setup in setups.values():
            _prepare(setup)
        with private_etc(binary, {"qwen-code": etc}) as managed:
            binaries = {"system": managed, "project": binary, "control": binary}

            def one(name: str) -> tuple[str, Observed]:
                setup = setups[name]
                calls = _calls(setup, fake, name)
                run = run_qwen(binaries[name], fake, name, setup, calls)
                return name, Observed(setup, calls, run)

            with ThreadPoolExecutor(len(setups)) as pool:
                observed = dict(pool.map(one, setups))
        yield observed


def _of(observed: Observed, key: str) -> Result:
    assert observed.run.finished, observed.run.stderr[-2000:]
    return observed.result(key)


def _refused_by_rules(observed: Observed) -> None:
    """The rule-bound calls: the denied command, both denied reads, the denied write."""
    setup = observed.setup
    assert _of(observed, "touch t").denied and not observed.exists("ws/t")
    for path in (setup.home / "hsecret", setup.workspace / "private" / "key"):
        result = _of(observed, f"read_file {path}")
        assert result.denied, result.output
        assert SECRET not in result.output and HOME_SECRET not in result.output
    assert _of(observed, f"write_file {setup.workspace}/guarded/new").denied
    assert not observed.exists("ws/guarded/new")


def test_the_generated_system_file_binds_the_users_settings(
    runs: dict[str, Observed], fake: FakeChat
) -> None:
    system = runs["system"]
    _refused_by_rules(system)
    # the system sandbox's closed network, not the user's open one
    assert not system.exists("ws/net") and "/system" not in fake.hits
    assert _of(system, "git init").status == "success" and system.exists("ws/g/.git")
    assert "Warning" not in system.run.stderr and "Error" not in system.run.stderr


def test_the_generated_project_file_holds_its_rules(runs: dict[str, Observed]) -> None:
    project = runs["project"]
    _refused_by_rules(project)
    assert project.exists("ws/g/.git")
    # no executionSandbox in it: nothing for Qwen to warn about, and nothing rewritten
    assert "is ignored" not in project.run.stderr and "Warning" not in project.run.stderr
    path = project.setup.workspace / ".qwen" / "settings.json"
    assert path.read_bytes() == GENERATED["project"]
    assert "executionSandbox" not in path.read_text()


def test_the_control_runs_every_call(runs: dict[str, Observed], fake: FakeChat) -> None:
    control = runs["control"]
    assert _of(control, "touch t").status == "success" and control.exists("ws/t")
    assert HOME_SECRET in _of(control, f"read_file {control.setup.home}/hsecret").output
    key = control.setup.workspace / "private" / "key"
    assert SECRET in _of(control, f"read_file {key}").output
    assert control.exists("ws/guarded/new")
    assert (control.setup.workspace / "net").read_text() == "ok" and "/control" in fake.hits
