"""Packaging: light imports, schemas inside the wheel, the registry and CLI in step."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("jsonschema", "tomlkit", "sarif_om", "junit_xml")

# one worker builds the module fixture once (tests/run.sh: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("wheel")


def test_version_does_not_import_heavy_modules() -> None:
    code = (
        "import sys\n"
        "sys.argv = ['twsrt', '--version']\n"
        "from twsrt.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "[]"
    assert out.splitlines()[0].startswith("twsrt, version ")


def test_cli_agent_names_match_registry() -> None:
    from twsrt.agents import AGENTS
    from twsrt.cli import cli

    for command in ("generate", "diff", "check"):
        (agent,) = [p for p in cli.commands[command].params if p.name == "agent"]
        names = ("claude", "codex", "copilot", "deepcode", "gemini", "qwen", "opencode", "kilo")
        assert agent.type.choices == tuple(AGENTS) == names


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
    )
    return next(out.glob("twsrt_policy-*.whl"))


@pytest.mark.tool
def test_wheel_is_our_distribution_with_the_twsrt_command(wheel: Path) -> None:
    """`twsrt` on PyPI is an unrelated project: ours is published as `twsrt-policy`, and keeps
    the `twsrt` command and the `twsrt` import package."""
    archive = zipfile.ZipFile(wheel)
    info = sorted({n.split("/")[0] for n in archive.namelist() if ".dist-info/" in n})
    assert info == [f"twsrt_policy-{wheel.name.split('-')[1]}.dist-info"]
    metadata = archive.read(f"{info[0]}/METADATA").decode()
    assert "\nName: twsrt-policy\n" in metadata
    scripts = archive.read(f"{info[0]}/entry_points.txt").decode()
    assert "[console_scripts]\ntwsrt = twsrt.cli:main\n" in scripts
    assert {n.split("/")[0] for n in archive.namelist()} == {"twsrt", info[0]}


@pytest.mark.tool
def test_wheel_ships_schemas(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for schema in ("srt-settings", "bash-rules", "config"):
        assert f"twsrt/schemas/{schema}.schema.json" in names


@pytest.mark.tool
def test_wheel_ships_deepcode_sandbox_code(wheel: Path) -> None:
    """The deepcode engine of ``twsrt test`` runs DeepCode's own code: it ships with its MIT
    license beside it."""
    names = zipfile.ZipFile(wheel).namelist()
    for name in ("sandbox-policy.ts", "sandbox-profile.ts", "LICENSE"):
        assert f"twsrt/agents/deepcode/sandbox/{name}" in names


@pytest.mark.tool
def test_installed_wheel_works_without_the_repository(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--quiet",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    work = tmp_path / "elsewhere"
    (work / ".git").mkdir(parents=True)
    (work / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        '[targets]\nclaude_settings = "out/settings.full.json"\n'
    )
    (work / "srt.json").write_text('{"filesystem": {"denyRaed": []}}')
    (work / "bash.json").write_text("{}")
    env = {**os.environ, "PYTHONPATH": str(target), "HOME": str(tmp_path)}
    env.pop("TWSRT_CONFIG", None)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # -P: do not put the working directory (or the repo) on sys.path
        return subprocess.run(
            [sys.executable, "-P", "-m", "twsrt", *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        )

    where = run("schema", "srt")
    assert where.returncode == 0
    assert json.loads(where.stdout)["$id"] == "https://twsrt.dev/schemas/srt-settings.schema.json"
    located = subprocess.run(
        [sys.executable, "-P", "-c", "import twsrt; print(twsrt.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert located.startswith(str(target))
    bad = run("generate", "claude")
    assert bad.returncode == 2
    assert "srt.json:1:17: error[TWS101] unknown key 'denyRaed'" in bad.stderr
    (work / "srt.json").write_text('{"filesystem": {"denyRead": ["~/.aws"]}}')
    good = run("generate", "claude", "-w")
    assert good.returncode == 0, good.stderr
    assert "Read(~/.aws)" in (work / "out" / "settings.full.json").read_text()
