"""Golden files for the Copilot CLI target: flag snippets, the settings merge, findings.

Each directory under tests/golden/copilot holds the canonical sources (srt.json, bash.json), an
optional existing settings.json (existing.settings.json), an optional twsrt.toml replacing the
default config (which pins home = "/home/user"), and the expected bytes: the preview on stdout,
the full and yolo flag files, the settings file and the findings printed on stderr. Outputs that
depend on an unpinned home show it as $HOME. Regenerate after an intended change with
``UPDATE_GOLDEN=1 pytest tests/test_golden_copilot.py`` and review the diff.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from conftest import Sandbox

from twsrt.agents.copilot import parse_snippet
from twsrt.jsonpos import parse_json

GOLDEN = Path(__file__).parent / "golden" / "copilot"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
FLAGS = "home/.config/twsrt/copilot-flags.txt"
FLAGS_YOLO = "home/.config/twsrt/copilot-flags.yolo.txt"
SETTINGS = "home/.copilot/settings.json"
MANAGED = {"sandbox", "allowedUrls", "deniedUrls"}

CONFIG = f"""\
home = "/home/user"

[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[targets]
copilot_output = "{FLAGS}"
copilot_settings = "{SETTINGS}"
"""


def setup_case(sandbox: Sandbox, case: Path) -> None:
    shutil.copy(case / "srt.json", sandbox.repo / ".srt-settings.json")
    shutil.copy(case / "bash.json", sandbox.repo / "bash-rules.json")
    config = case / "twsrt.toml"
    sandbox.write("twsrt.toml", config.read_text() if config.exists() else CONFIG)
    if (case / "existing.settings.json").exists():
        target = sandbox.repo / SETTINGS
        target.parent.mkdir(parents=True)
        shutil.copy(case / "existing.settings.json", target)
        target.chmod(0o644)


def check(sandbox: Sandbox, expected: Path, actual: str) -> None:
    actual = actual.replace(str(sandbox.home), "$HOME")
    if UPDATE:
        expected.write_text(actual, encoding="utf-8")
    assert expected.exists(), f"missing golden file {expected}; run with UPDATE_GOLDEN=1"
    assert actual == expected.read_text(encoding="utf-8")


def read(sandbox: Sandbox, relative: str) -> str:
    return (sandbox.repo / relative).read_text(encoding="utf-8")


def unmanaged_members(text: str) -> dict[str, str]:
    """The exact source text of every top-level member twsrt does not own."""
    parsed = parse_json(text)
    out = {}
    for key in parsed.value:
        if key in MANAGED:
            continue
        start, end = parsed.spans["/" + key]
        out[key] = text[start:end]
    return out


SANDBOX_MODES = ("workspace-write", "read-only", "danger-full-access")


@pytest.mark.parametrize("sandbox_mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_copilot_golden(sandbox: Sandbox, name: str, sandbox_mode: str) -> None:
    case = GOLDEN / name
    setup_case(sandbox, case)
    # the default mode keeps the plain golden names, the others are prefixed
    prefix = "" if sandbox_mode == "workspace-write" else f"{sandbox_mode}."
    flag = ["--sandbox", sandbox_mode]
    preview = sandbox.run("generate", "copilot", *flag)
    assert preview.returncode == 0, preview.stderr
    check(sandbox, case / f"{prefix}preview.txt", preview.stdout)

    full = sandbox.run("generate", "copilot", "-w", "-v", *flag)
    assert full.returncode == 0, full.stderr
    check(sandbox, case / f"{prefix}expected.flags.txt", read(sandbox, FLAGS))
    check(sandbox, case / f"{prefix}expected.settings.json", read(sandbox, SETTINGS))
    check(sandbox, case / f"{prefix}stderr.txt", full.stderr)
    # the preview starts with exactly the snippet that was written
    assert preview.stdout.startswith(read(sandbox, FLAGS))

    yolo = sandbox.run("generate", "copilot", "-w", "-v", "--yolo", *flag)
    assert yolo.returncode == 0, yolo.stderr
    check(sandbox, case / f"{prefix}expected.flags.yolo.txt", read(sandbox, FLAGS_YOLO))
    check(sandbox, case / f"{prefix}stderr.yolo.txt", yolo.stderr)
    assert f"twsrt: unchanged {SETTINGS}" in yolo.stderr  # the settings are approval-free

    for text in (read(sandbox, FLAGS), read(sandbox, FLAGS_YOLO)):
        assert not text.rstrip("\n").endswith("\\")
        parse_snippet(text)  # pastes as shell words
    mode = stat.S_IMODE((sandbox.repo / SETTINGS).stat().st_mode)
    assert mode == (0o644 if (case / "existing.settings.json").exists() else 0o600)

    # generate -w then diff: no drift in either mode; a second write changes nothing
    for args in (("diff", "copilot", *flag), ("diff", "copilot", "--yolo", *flag)):
        result = sandbox.run(*args)
        assert result.returncode == 0, result.stdout
    before = {p: read(sandbox, p) for p in (FLAGS, FLAGS_YOLO, SETTINGS)}
    again = sandbox.run("generate", "copilot", "-w", *flag)
    assert again.returncode == 0
    assert again.stderr.count("twsrt: unchanged ") == 2, again.stderr
    assert {p: read(sandbox, p) for p in before} == before


@pytest.mark.parametrize(
    "name", [n for n in CASES if (GOLDEN / n / "existing.settings.json").exists()]
)
def test_user_members_survive_byte_for_byte(sandbox: Sandbox, name: str) -> None:
    case = GOLDEN / name
    setup_case(sandbox, case)
    existing = (case / "existing.settings.json").read_text(encoding="utf-8")
    assert sandbox.run("generate", "copilot", "-w").returncode == 0
    written = read(sandbox, SETTINGS)
    kept = unmanaged_members(existing)
    assert kept and unmanaged_members(written) == kept
    # and in the same order, before and after the managed members
    assert list(parse_json(written).value) == list(parse_json(existing).value)
