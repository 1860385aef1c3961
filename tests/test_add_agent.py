"""The add-an-agent experiment (docs/architecture.md, "How to add an agent"): a toy fifth agent
(tests/support/toyagent/, an srt-document target as pi's sandbox extension reads one) is one
package plus one registry line, and every command takes it with no other edit."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from support.sandbox import Sandbox

from twsrt.agents import REGISTRY

EXPECTED = Path(__file__).resolve().parent / "support" / "toyagent" / "expected.json"
TARGET = "home/.toy/sandbox.json"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox) -> Sandbox:
    """Step 2: one line in the registry. The repository's config names only the toy target."""
    monkeypatch.setitem(REGISTRY, "toy", "support.toyagent")
    sandbox.write("srt.json", {"filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."]}})
    sandbox.write("bash.json", {"deny": ["sudo"]})
    sandbox.write(
        "twsrt.toml",
        'checkout = "~/dotfiles"\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        f'[targets]\ntoy_sandbox = "{TARGET}"\n',
    )
    return sandbox


def test_generate_writes_the_toy_document(toy: Sandbox) -> None:
    expected = EXPECTED.read_text("utf-8")  # step 4: its golden case
    result = toy.run("generate", "toy")
    assert (result.returncode, result.stdout) == (0, expected), result.stderr
    assert toy.run("diff").returncode == 2  # the target is missing

    result = toy.run("generate", "-w")
    assert result.returncode == 0, result.stderr
    target = toy.repo / TARGET
    assert target.read_text("utf-8") == expected
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    result = toy.run("diff", "toy")
    assert (result.returncode, result.stdout) == (0, f"toy: {TARGET}: no drift\n")
    assert toy.run("check").returncode == 0

    target.write_text(expected.replace("true", "false"), "utf-8")
    assert toy.run("diff").returncode == 1
    assert toy.run("check").returncode == 1


def test_check_runs_the_toy_effective_check(toy: Sandbox) -> None:
    assert toy.run("generate", "-w").returncode == 0
    local = toy.repo / "home/.toy/sandbox.local.json"
    local.write_text('{\n  "enabled": false\n}\n', "utf-8")
    result = toy.run("check", "--format", "json")
    assert result.returncode == 1, result.stdout
    (found,) = [f for f in json.loads(result.stdout)["findings"] if f["agent"] == "toy"]
    assert (found["rule_id"], found["rule_name"], found["level"]) == (
        "TWS699",
        "toy-sandbox-off",
        "error",
    )
    assert (found["location"]["path"], found["location"]["line"]) == (
        "home/.toy/sandbox.local.json",
        2,
    )
    result = toy.run("explain", "toy-sandbox-off")
    assert result.returncode == 0 and result.stdout.startswith("TWS699 toy-sandbox-off (error)")


def test_show_and_init_take_the_toy_agent(toy: Sandbox) -> None:
    result = toy.run("show")
    assert result.returncode == 0 and "~/.ssh" in result.stdout
    repo = toy.home / "dots"
    (repo / ".git").mkdir(parents=True)
    result = toy.run("init", "--repo", str(repo))
    assert result.returncode == 0, result.stderr
    config = (repo / "twsrt.toml").read_text("utf-8")
    assert "\ntoy_sandbox = " not in config and "# toy_sandbox = " in config  # not a default
    result = toy.run("init", "--repo", str(toy.home / "all"), "--agents", "all")
    assert result.returncode == 0, result.stderr
    assert "\ntoy_sandbox = " in (toy.home / "all" / "twsrt.toml").read_text("utf-8")


def test_twsrt_test_runs_the_toy_engine(toy: Sandbox) -> None:
    assert toy.run("generate", "-w").returncode == 0
    result = toy.run("test", "--engine", "toy")
    # the toy engine is no sandbox at all: its denied probes are allowed, so it fails them
    assert result.returncode == 1, result.stderr
    assert "twsrt test: toy: 54 probes (4 pass, 50 fail)" in result.stdout
