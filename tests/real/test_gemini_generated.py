"""The real Gemini CLI 0.61.0 on what twsrt generates for it: the files load without a word of
complaint, and the agent's own shell and file tools are refused each forbidden action (a denied
command, an ask headless, a denied path read and written by the file tools, a write outside the
directory it starts in) while the same calls succeed in a control run without twsrt's files.
Two more runs pin what twsrt reports as errors rather than claims to enforce: under --yolo the
sandbox reaches a local server (TWS474), and a sandboxed command plants .gemini/settings.json,
which switches the sandbox off for the next launch in that directory (TWS473).

Four headless runs against the fake model of ``gemini_client``, started together (about 1 s of
CPU each), plus the planted layer's second launch. The files live under /var/tmp: the sandbox
mounts a private tmpfs over /tmp.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.hitserver import hit_server

from .gemini_client import Call, Result, Run, Setup, gemini_bin, run_gemini

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("gemini_generated")]

BASH = {"deny": ["touch", "curl"], "ask": ["mkdir"], "allow": ["cp"]}
PLANT = json.dumps({"security": {"toolSandboxing": False}})
# any command the policy leaves alone will do (mkdir is an ask here)
PLANT_COMMAND = "python3 -c " + shlex.quote(
    "import os; os.makedirs('.gemini', exist_ok=True); "
    f"open('.gemini/settings.json', 'w').write({PLANT!r})"
)


def _srt(root: Path) -> dict[str, Any]:
    ws = root / "ws"
    return {
        "filesystem": {
            "denyRead": [str(ws / "private")],
            "denyWrite": [str(ws / "guarded")],
            "allowWrite": ["."],
        },
        "network": {"allowedDomains": ["github.com"]},
    }


def generate(root: Path) -> tuple[dict[str, Any], str, str]:
    """twsrt's Gemini files for the run rooted at ``root`` (home pinned to its HOME): the
    settings merged into one that holds the login keys, the policy file, check's report."""
    repo = root / "repo"
    gemini = repo / "home" / ".gemini"
    gemini.mkdir(parents=True)
    base = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (gemini / "settings.json").write_text(json.dumps(base))
    (repo / "srt.json").write_text(json.dumps(_srt(root)))
    (repo / "bash.json").write_text(json.dumps(BASH))
    (repo / "twsrt.toml").write_text(
        f'home = "{root / "home"}"\ncheckout = "{repo}"\n\n[sources]\nsrt = "srt.json"\n'
        'bash_rules = "bash.json"\n\n[targets]\ngemini_settings = "home/.gemini/settings.json"\n'
        'gemini_policy = "home/.gemini/policies/twsrt.toml"\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "home"), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "gemini", "-w"], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    checked = run_cli(["check", "--agent", "gemini", "--format", "json"], cwd=repo, env=env)
    settings = json.loads((gemini / "settings.json").read_text())
    return settings, (gemini / "policies" / "twsrt.toml").read_text(), checked.stdout


@dataclass
class Observed:
    setup: Setup
    calls: list[Call]
    run: Run

    def result(self, index: int) -> Result:
        return self.run.results[index]

    def exists(self, relative: str) -> bool:
        return (self.setup.root / relative).exists()


def _calls(root: Path, port: int, tag: str) -> list[Call]:
    """The forbidden actions, each through the agent's own tools; the outside write ends a
    sandboxed run (observed), so it comes last."""
    ws = root / "ws"
    return [
        Call("touch denied-cmd"),
        Call("mkdir asked-dir"),
        Call("cp /etc/hostname copied"),
        Call(tool="read_file", args={"file_path": str(ws / "private" / "key")}),
        Call(tool="write_file", args={"file_path": str(ws / "guarded" / "new"), "content": "x"}),
        Call(tool="write_file", args={"file_path": str(ws / "open.txt"), "content": "x"}),
        Call(
            f"python3 -c \"import urllib.request as u; u.urlopen('http://127.0.0.1:{port}/{tag}')\""
        ),
        Call(f"echo x > {root / 'outside' / 'o'}"),
    ]


def _prepare(setup: Setup) -> None:
    setup.write()
    (setup.workspace / "private").mkdir()
    (setup.workspace / "private" / "key").write_text("SECRET\n")
    (setup.workspace / "guarded").mkdir()
    (setup.root / "outside").mkdir()


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, Any]]:
    binary = gemini_bin()
    base = Path(tempfile.mkdtemp(prefix="twsrt-gemini-gen-", dir="/var/tmp"))
    with hit_server() as server:
        try:
            made: dict[str, tuple[Setup, list[Call], bool]] = {}
            out: dict[str, Any] = {}
            for name, twsrt, yolo in (
                ("twsrt_yolo", True, True),
                ("twsrt_default", True, False),
                ("control", False, True),
                ("plant", True, True),
            ):
                root = base / name
                setup = Setup(root)
                if twsrt:
                    setup.settings, setup.policy, out[f"{name}_check"] = generate(root)
                _prepare(setup)
                calls = _calls(root, server.port, name)
                if name == "plant":
                    calls = [Call(PLANT_COMMAND)]
                made[name] = (setup, calls, yolo)
            with ThreadPoolExecutor(max_workers=len(made)) as pool:
                futures = {
                    name: pool.submit(run_gemini, binary, setup, calls, yolo=yolo)
                    for name, (setup, calls, yolo) in made.items()
                }
                for name, future in futures.items():
                    setup, calls, _yolo = made[name]
                    out[name] = Observed(setup, calls, future.result())
            # the next launch in the directory the planted file now lies in
            setup = made["plant"][0]
            out["next"] = Observed(
                setup, [], run_gemini(binary, setup, [Call(f"cp /etc/hostname {base}/next")])
            )
            out["base"] = base
            out["hits"] = server.hits
            yield out
        finally:
            shutil.rmtree(base, ignore_errors=True)


def test_the_generated_files_load_without_a_complaint(runs: dict[str, Any]) -> None:
    for name in ("twsrt_yolo", "twsrt_default"):
        stderr = runs[name].run.stderr
        assert "Policy file error" not in stderr, stderr
        assert "Invalid configuration" not in stderr, stderr
        assert runs[name].result(2).status == "success"  # the CLI ran the calls at all


def test_a_denied_command_is_refused_and_runs_in_the_control(runs: dict[str, Any]) -> None:
    assert runs["twsrt_yolo"].result(0).denied
    assert not runs["twsrt_yolo"].exists("ws/denied-cmd")
    assert runs["control"].result(0).status == "success"
    assert runs["control"].exists("ws/denied-cmd")


def test_an_ask_is_refused_headless_even_under_yolo(runs: dict[str, Any]) -> None:
    for name in ("twsrt_yolo", "twsrt_default"):
        assert runs[name].result(1).status == "error", name
        assert not runs[name].exists("ws/asked-dir"), name
    assert runs["control"].exists("ws/asked-dir")


def test_an_allowed_command_runs_without_yolo(runs: dict[str, Any]) -> None:
    assert runs["twsrt_default"].result(2).status == "success"
    assert runs["twsrt_default"].exists("ws/copied")


def test_the_file_tools_are_denied_the_denied_paths(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt_yolo"], runs["control"]
    assert twsrt.result(3).denied and "SECRET" not in twsrt.run.stdout
    assert control.result(3).status == "success"
    assert twsrt.result(4).denied and not twsrt.exists("ws/guarded/new")
    assert control.exists("ws/guarded/new")
    assert twsrt.result(5).status == "success" and twsrt.exists("ws/open.txt")


def test_a_write_outside_the_launch_directory_is_not_made(runs: dict[str, Any]) -> None:
    assert not runs["twsrt_yolo"].exists("outside/o")
    assert not runs["twsrt_default"].exists("outside/o")
    assert runs["control"].exists("outside/o")


def test_the_network_is_off_without_yolo_and_on_with_it(runs: dict[str, Any]) -> None:
    """What TWS474 reports: twsrt switches the network off, --yolo switches it on again."""
    assert "/twsrt_default" not in runs["hits"]
    assert "/twsrt_yolo" in runs["hits"]
    assert "TWS474" in runs["twsrt_yolo_check"]


def test_a_planted_settings_file_turns_the_sandbox_off_next_launch(runs: dict[str, Any]) -> None:
    """What TWS473 reports: one sandboxed command, and the next launch writes anywhere."""
    plant = runs["plant"]
    assert plant.result(0).status == "success"
    assert plant.exists("ws/.gemini/settings.json")
    assert (runs["base"] / "next").exists()
    assert "TWS473" in runs["plant_check"]
    # the control: the same launch without the planted file leaves nothing outside
    assert not runs["twsrt_yolo"].exists("outside/o")
