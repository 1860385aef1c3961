"""No report names the absolute path of the machine running twsrt (issue 26 item 10): every
format of `check`, the report files, `diff` and `generate -n`, run on every broken example and
on a source outside the repository from a directory with a distinctive absolute path, never
print that path (CI logs, SARIF and job summaries are public)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.sandbox import REPO_ROOT, Sandbox

MARK = "ZZrunnerZZ"
BROKEN = sorted(p.name for p in (REPO_ROOT / "examples" / "broken").iterdir() if p.is_dir())
FORMATS = ("text", "json", "github", "sarif", "junit")


@pytest.fixture
def workspace(tmp_path: Path) -> Sandbox:
    """The examples in a checkout below a distinctive directory (a git root above examples/,
    as CI checks them out), with a HOME elsewhere, so `~/` names none of it."""
    root = tmp_path / MARK / "work" / "checkout"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(REPO_ROOT / "examples", root / "examples", symlinks=True)
    home = tmp_path / "home"
    home.mkdir()
    return Sandbox(home, root)


def outputs(box: Sandbox, cwd: Path, reports: Path) -> list[str]:
    texts = []
    for fmt in FORMATS:
        result = box.run("check", "-v", "--format", fmt, cwd=cwd)
        assert "Traceback" not in result.stderr
        texts += [result.stdout, result.stderr]
    files = {"json": reports / "r.json", "sarif": reports / "r.sarif", "junit": reports / "r.xml"}
    result = box.run("check", *(a for k, p in files.items() for a in (f"--{k}", str(p))), cwd=cwd)
    texts += [
        result.stdout,
        result.stderr,
        *(p.read_text(encoding="utf-8") for p in files.values()),
    ]
    for command in (("diff",), ("generate", "-n")):
        result = box.run(*command, cwd=cwd)
        assert "Traceback" not in result.stderr
        texts += [result.stdout, result.stderr]
    return texts


@pytest.mark.parametrize("example", BROKEN)
def test_no_broken_example_names_the_runner_path(
    workspace: Sandbox, tmp_path: Path, example: str
) -> None:
    texts = outputs(workspace, workspace.repo / "examples" / "broken" / example, tmp_path)
    assert any("TWS" in text for text in texts)
    for text in texts:
        assert MARK not in text and str(tmp_path) not in text, text


def test_a_source_outside_the_repository_is_named_from_home(
    workspace: Sandbox, tmp_path: Path
) -> None:
    """As on a GitHub runner, the checkout lies in HOME (/home/runner/work/...): a path outside
    the repository is named from `~/`, as twsrt names every file in HOME."""
    workspace = Sandbox(tmp_path / MARK, workspace.repo)
    example = workspace.repo / "examples" / "dotfiles"
    outside = tmp_path / MARK / "work" / "elsewhere"
    shutil.copytree(example / "policy", outside)
    config = example / "twsrt.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('"policy/srt-settings.json"', '"../../../elsewhere/srt-settings.json"')
    )
    texts = outputs(workspace, example, tmp_path)
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    messages = [f["message"] for f in report["findings"] if f["rule_id"] == "TWS005"]
    assert messages == [
        "the srt source (~/work/elsewhere/srt-settings.json) resolves to "
        "~/work/elsewhere/srt-settings.json, outside the repository; in repo mode twsrt reads and "
        "writes only files inside it"
    ]
    for text in texts:
        assert MARK not in text and str(tmp_path) not in text, text
