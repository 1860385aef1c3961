"""The library API (twsrt/api.py) on the dotfiles example, using nothing but the API: the compiled
text is `twsrt generate AGENT`'s preview, byte for byte, and the findings are `check --format
json`'s, in order."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import run_cli

from twsrt import api

DOTFILES = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The example's directory and an environment without TWSRT_*, for the API and the CLI."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    clean["TWSRT_NO_CACHE"] = "1"
    for name in os.environ:
        if name.startswith("TWSRT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("TWSRT_NO_CACHE", "1")
    monkeypatch.chdir(DOTFILES)
    return clean


@pytest.mark.parametrize("agent", ["claude", "codex", "copilot", "deepcode"])
@pytest.mark.parametrize("yolo", [False, True])
def test_compile_is_the_generate_preview(env: dict[str, str], agent: str, yolo: bool) -> None:
    compiled = api.compile_policy(DOTFILES / "twsrt.toml", agent, yolo=yolo)
    args = ["generate", agent, *(["--yolo"] if yolo else [])]
    proc = run_cli(args, cwd=DOTFILES, env=env)
    assert proc.returncode == 0, proc.stderr
    assert compiled.preview == proc.stdout
    assert compiled.agent == agent and compiled.files  # every target's text, nothing written
    for name, text in compiled.files.items():
        assert (DOTFILES.parent.parent / name).read_text(encoding="utf-8") == text


@pytest.mark.parametrize("args", [(), ("--yolo",)])
def test_check_findings_are_the_json_reports(env: dict[str, str], args: tuple[str, ...]) -> None:
    report = api.check(DOTFILES / "twsrt.toml", yolo=bool(args))
    proc = run_cli(["check", "--format", "json", *args], cwd=DOTFILES, env=env)
    cli = json.loads(proc.stdout)
    found = [
        (f.rule_id, f.level.value, f.message, f.location.path, f.location.line, f.agent)
        for f in report.findings
    ]
    shown = [
        (f["rule_id"], f["level"], f["message"], f["location"]["path"], f["location"]["line"])
        + (f["agent"],)
        for f in cli["findings"]
    ]
    assert found == shown and found  # the example has notes
    assert report.exit_code == proc.returncode == 0


def test_a_broken_config_raises_its_findings(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "twsrt.toml").write_text("[targets\n", encoding="utf-8")
    with pytest.raises(api.TwsrtError) as raised:
        api.compile_policy(tmp_path / "twsrt.toml", "claude")
    assert raised.value.findings[0].rule_id == "TWS001"
    assert api.check(tmp_path / "twsrt.toml").exit_code == 2  # an aborted report, as check's
