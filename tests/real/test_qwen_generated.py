"""The real Qwen Code 0.24.4 on what twsrt generates for it: the settings file loads with no
warning on stderr, and the agent's own shell and file tools are refused each forbidden action
(a denied command, a denied path read by ``read_file``, a denied path written by
``write_file``, a write outside the directory it starts in, a request to a local server by a
command and by ``web_fetch``) while
the same calls succeed in a control run without twsrt's file. Three more runs pin what twsrt
reports rather than claims to enforce: ``--yolo`` approves an ask (the note TWS485: what yolo
means for every agent), a user's ``tools.approvalMode: "yolo"`` does the same without the flag
(the error TWS632), and a sandboxed command plants a ``.qwen/settings.json`` whose allow rule
the next headless launch obeys (the error TWS487).

Six headless runs against the fake model of ``qwen_client``, started together, then the planted
file's second launch. The files live under /var/tmp: the sandbox makes /tmp read-only.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat

from .qwen_client import (
    BASE_SETTINGS,
    Call,
    Observed,
    Setup,
    qwen_bin,
    read_file,
    run_all,
    run_qwen,
    scratch_dir,
    write_file,
)

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_generated")]

SECRET = "GENERATED-SECRET"
BASH = {"deny": ["touch"], "ask": ["mkdir"], "allow": ["git"]}
PLANTED = json.dumps({"permissions": {"allow": ["Shell(tar *)"]}})
# python3 writes past every Edit rule (observed row 6); any command the policy leaves alone does
PLANT = "python3 -c " + shlex.quote(
    "import os; os.makedirs('.qwen', exist_ok=True); "
    f"open('.qwen/settings.json', 'w').write({PLANTED!r})"
)
TAR = "tar cf a.tar in"
PLANT_ENV = "python3 -c " + shlex.quote("open('.env', 'w').write('QWEN_CODE_SAFE_MODE=1\\n')")


def _srt(ws: Path) -> dict[str, Any]:
    return {
        "filesystem": {
            "denyRead": [str(ws / "private")],
            "denyWrite": [str(ws / "guarded")],
            "allowWrite": ["."],
        },
        "network": {"allowedDomains": []},
    }


def generate(setup: Setup, extra: dict[str, Any] | None = None, *options: str) -> str:
    """twsrt's Qwen settings for ``setup``, merged into a file that holds the login keys (and
    ``extra``), installed as its ~/.qwen/settings.json; check's JSON report."""
    repo = setup.root / "repo"
    target = repo / "home" / ".qwen" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({**BASE_SETTINGS, **(extra or {})}, indent=2) + "\n")
    (repo / "srt.json").write_text(json.dumps(_srt(setup.workspace)))
    (repo / "bash.json").write_text(json.dumps(BASH))
    (repo / "twsrt.toml").write_text(
        f'home = "{setup.home}"\ncheckout = "{repo}"\n\n[sources]\nsrt = "srt.json"\n'
        'bash_rules = "bash.json"\n\n[targets]\nqwen_settings = "home/.qwen/settings.json"\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(setup.home), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "qwen", "-w", *options], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    checked = run_cli(["check", "--agent", "qwen", "--yolo", "--format", "json"], cwd=repo, env=env)
    setup.write()  # the workspace and TMPDIR; then the generated file, byte for byte
    setup.user_settings.write_bytes(target.read_bytes())
    return checked.stdout


def _prepare(setup: Setup) -> None:
    (setup.workspace / "private").mkdir()
    (setup.workspace / "private" / "key").write_text(SECRET + "\n")
    (setup.workspace / "guarded").mkdir()
    (setup.workspace / "in").write_text("IN\n")
    (setup.root / "outside").mkdir()


def _fetch_command(url: str) -> str:
    """A fetch by python3 (no command Qwen knows) that writes ``net`` only with an answer."""
    fetch = f"d = urllib.request.urlopen({url!r}, timeout=5).read()"
    code = f"import urllib.request; {fetch}; open('net', 'wb').write(d)"
    return "python3 -c " + shlex.quote(code)


def _web_fetch(fake: FakeChat, name: str) -> Call:
    return Call(tool="web_fetch", args={"url": fake.url("web-" + name), "prompt": "summarise"})


def _calls(setup: Setup, fake: FakeChat, name: str) -> list[Call]:
    """The forbidden actions through the agent's own tools, an ask, an allowed command."""
    ws = setup.workspace
    return [
        Call("touch denied-cmd"),
        read_file(ws / "private" / "key"),
        write_file(ws / "guarded" / "new"),
        write_file(ws / "open.txt"),
        Call(f"echo x > {setup.root / 'outside' / 'o'}"),
        # not curl: Qwen reads curl as a web fetch, which the WebFetch deny refuses before the
        # sandbox is reached; python3 is no command Qwen knows, so this probes the sandbox
        Call(_fetch_command(fake.url("probe-" + name))),
        _web_fetch(fake, name),
        Call("echo x > .bashrc"),
        Call("echo QWEN_CODE_SAFE_MODE=1 > .env"),
        write_file(ws / ".qwen" / "settings.json", "{}\n"),
        Call("mkdir asked-dir"),
        Call("git init -q g"),
        Call(TAR),
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Any]]:
    binary = qwen_bin()
    with scratch_dir("twsrt-qwen-gen-") as root:
        plans: dict[str, tuple[Setup, list[Call], dict[str, Any]]] = {}
        out: dict[str, Any] = {}
        for name, twsrt, options, extra in (
            ("twsrt_yolo", True, {}, None),
            ("twsrt_default", True, {"yolo": False}, None),
            ("control", False, {}, None),
            ("approval", True, {"yolo": False}, {"tools": {"approvalMode": "yolo"}}),
            ("plant", True, {}, None),
            ("full_access", True, {}, None),
            ("plant_env", True, {}, None),
        ):
            setup = Setup(root / name)
            if twsrt:
                mode = ("--sandbox", "danger-full-access") if name == "full_access" else ()
                out[f"{name}_check"] = generate(setup, extra, *mode)
                out[f"{name}_bytes"] = setup.user_settings.read_bytes()
            else:
                setup.write()
            _prepare(setup)
            calls = {
                "plant": [Call(PLANT)],
                "plant_env": [Call(PLANT_ENV)],
                "full_access": [_web_fetch(fake, name)],
            }.get(name, _calls(setup, fake, name))
            plans[name] = (setup, calls, options)
        out.update(run_all(binary, fake, plans))
        # the next launch in the directory the planted file now lies in, headless
        planted = out["plant"].setup
        next_run = run_qwen(binary, fake, "next", planted, [Call(TAR)], yolo=False)
        out["next"] = Observed(planted, [Call(TAR)], next_run)
        planted = out["plant_env"].setup
        denied = [Call("touch denied-cmd")]
        next_run = run_qwen(binary, fake, "next_env", planted, denied, yolo=True)
        out["next_env"] = Observed(planted, denied, next_run)
        out["hits"] = list(fake.hits)
        yield out


def test_the_generated_file_loads_without_a_warning(runs: dict[str, Any]) -> None:
    for name in ("twsrt_yolo", "twsrt_default", "approval", "plant"):
        observed = runs[name]
        assert observed.run.returncode == 0 and observed.run.finished, name
        assert observed.run.stderr.strip() == "", (name, observed.run.stderr)
        # Qwen did not rewrite it (it adds "$version" to a file without one, observed row 12):
        # the file is byte for byte what twsrt wrote, so check sees no drift after a launch
        assert observed.setup.user_settings.read_bytes() == runs[f"{name}_bytes"], name
        assert json.loads(runs[f"{name}_bytes"])["$version"] == 4
    assert runs["twsrt_yolo"].result("write_file").status == "error"  # it ran the calls at all


def test_a_denied_command_is_refused_and_runs_in_the_control(runs: dict[str, Any]) -> None:
    for name in ("twsrt_yolo", "twsrt_default"):
        assert runs[name].result("touch denied-cmd").denied, name
        assert not runs[name].exists("ws/denied-cmd"), name
    assert runs["control"].result("touch denied-cmd").status == "success"
    assert runs["control"].exists("ws/denied-cmd")


def test_the_file_tools_are_denied_the_denied_paths(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt_yolo"], runs["control"]
    key = str(twsrt.setup.workspace / "private" / "key")
    assert twsrt.result(f"read_file {key}").denied
    assert SECRET not in twsrt.run.stdout
    assert SECRET in control.run.stdout
    assert twsrt.result(f"write_file {twsrt.setup.workspace / 'guarded'}").denied
    assert not twsrt.exists("ws/guarded/new")
    assert control.exists("ws/guarded/new")
    assert twsrt.exists("ws/open.txt") and control.exists("ws/open.txt")


def test_a_write_outside_the_launch_directory_is_not_made(runs: dict[str, Any]) -> None:
    assert runs["twsrt_yolo"].result("echo x >").status == "error"  # Read-only file system
    assert not runs["twsrt_yolo"].exists("outside/o")
    assert runs["control"].exists("outside/o")


def test_the_network_is_closed(runs: dict[str, Any]) -> None:
    assert "/probe-twsrt_yolo" not in runs["hits"] and not runs["twsrt_yolo"].exists("ws/net")
    assert "/probe-control" in runs["hits"] and runs["control"].exists("ws/net")


def test_the_web_tools_are_refused(runs: dict[str, Any]) -> None:
    """web_fetch runs in Qwen's own process, outside the sandbox, and --yolo approves its ask:
    the control fetched the host. With the execution sandbox on, Qwen offers no web tool at all
    (its sandboxed core tool list); without it (danger-full-access) twsrt's WebFetch deny
    refuses the fetch (TWS498)."""
    assert runs["twsrt_yolo"].result("web_fetch").denied
    assert "/web-twsrt_yolo" not in runs["hits"]
    full = runs["full_access"]
    assert "executionSandbox" not in json.loads(runs["full_access_bytes"]).get("tools", {})
    assert full.result("web_fetch").denied
    assert 'deny rule: "WebFetch"' in full.result("web_fetch").output
    assert "/web-full_access" not in runs["hits"]
    assert runs["control"].result("web_fetch").status == "success"
    assert "/web-control" in runs["hits"]


def test_the_protected_names_are_refused_to_the_tools_and_redirects(runs: dict[str, Any]) -> None:
    """twsrt's Edit(/NAME) rules for srt's mandatory names and every agent's project layer at
    the top of the workspace: a redirect and the write tool are refused there (an interpreter
    is not, test_a_planted_project_allow_runs_headless_next_launch)."""
    twsrt, control = runs["twsrt_yolo"], runs["control"]
    assert twsrt.result("echo x > .bashrc").denied and not twsrt.exists("ws/.bashrc")
    assert control.exists("ws/.bashrc")
    assert twsrt.result("echo QWEN_CODE_SAFE_MODE").denied and not twsrt.exists("ws/.env")
    assert control.exists("ws/.env")
    layer = twsrt.setup.workspace / ".qwen" / "settings.json"
    assert twsrt.result(f"write_file {layer}").denied and not layer.exists()
    assert control.exists("ws/.qwen/settings.json")


def test_headless_an_ask_is_refused_and_an_allow_runs(runs: dict[str, Any]) -> None:
    default = runs["twsrt_default"]
    assert default.result("mkdir asked-dir").status == "error"
    assert not default.exists("ws/asked-dir")
    assert default.result("git init").status == "success"  # Shell(git *): the shell is on
    assert default.exists("ws/g/.git")
    assert not default.exists("ws/a.tar")  # no rule names tar: refused headless


def test_yolo_approves_the_ask(runs: dict[str, Any]) -> None:
    """What TWS485 reports: under --yolo the ask rule's command runs with no prompt."""
    assert runs["twsrt_yolo"].exists("ws/asked-dir")
    assert not runs["twsrt_default"].exists("ws/asked-dir")  # the control, without --yolo
    assert "TWS485" in runs["twsrt_yolo_check"]


def test_a_user_approval_mode_of_yolo_approves_the_ask(runs: dict[str, Any]) -> None:
    """What TWS632 reports: the same run as twsrt_default, the user key beside twsrt's."""
    assert runs["approval"].exists("ws/asked-dir")
    assert not runs["twsrt_default"].exists("ws/asked-dir")
    assert "TWS632" in runs["approval_check"]
    assert "TWS632" not in runs["twsrt_default_check"]


def test_a_planted_project_allow_runs_headless_next_launch(runs: dict[str, Any]) -> None:
    """What TWS487 reports: one sandboxed command writes .qwen/settings.json in the workspace,
    and the next headless launch there runs the command it allows. The control is
    twsrt_default, whose same `tar` is refused."""
    plant, after = runs["plant"], runs["next"]
    assert plant.result(PLANT).status == "success"
    assert plant.exists("ws/.qwen/settings.json")
    assert after.result(TAR).status == "success"
    assert after.exists("ws/a.tar")
    assert not runs["twsrt_default"].exists("ws/a.tar")
    assert "TWS487" in runs["plant_check"]


def test_a_planted_env_file_drops_every_deny_next_launch(runs: dict[str, Any]) -> None:
    """What TWS487 reports too: a sandboxed python3 writes .env in the workspace with
    QWEN_CODE_SAFE_MODE=1, and the next launch there runs the command twsrt's deny rule names
    (safe mode drops every permission rule). The control is twsrt_yolo, whose same `touch` is
    refused."""
    plant, after = runs["plant_env"], runs["next_env"]
    assert plant.result(PLANT_ENV).status == "success" and plant.exists("ws/.env")
    assert "SAFE MODE" in after.run.stderr
    assert after.result("touch denied-cmd").status == "success"
    assert after.exists("ws/denied-cmd")
    assert runs["twsrt_yolo"].result("touch denied-cmd").denied
