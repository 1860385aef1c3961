"""Golden files for the Copilot CLI target: flag snippets, the settings merge, findings.

Each directory under tests/golden/copilot holds the canonical sources (srt.json, bash.json), an
optional existing settings.json (existing.settings.json), an optional twsrt.toml replacing the
default config (which pins home = "/home/user"), and the expected bytes: the preview on stdout,
the full and yolo flag files, the settings file and the findings printed on stderr. Outputs that
depend on an unpinned home show it as $HOME. Regenerate after an intended change with
``UPDATE_GOLDEN=1 pytest tests/test_golden_copilot.py`` and review the diff.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from support.golden import assert_golden, golden_name
from support.sandbox import Sandbox, unmanaged_members

from twsrt.agents.copilot import parse_snippet
from twsrt.config import SANDBOX_MODES
from twsrt.jsonpos import parse_json

GOLDEN = Path(__file__).parent / "golden" / "copilot"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
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
    assert_golden(expected, actual)


def read(sandbox: Sandbox, relative: str) -> str:
    return (sandbox.repo / relative).read_text(encoding="utf-8")


@pytest.mark.parametrize("sandbox_mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_copilot_golden(sandbox: Sandbox, name: str, sandbox_mode: str) -> None:
    case = GOLDEN / name
    setup_case(sandbox, case)
    flag = ["--sandbox", sandbox_mode]
    preview = sandbox.run("generate", "copilot", *flag)
    assert preview.returncode == 0, preview.stderr
    check(sandbox, case / golden_name(sandbox_mode, "preview.txt"), preview.stdout)

    full = sandbox.run("generate", "copilot", "-w", "-v", *flag)
    assert full.returncode == 0, full.stderr
    check(sandbox, case / golden_name(sandbox_mode, "expected.flags.txt"), read(sandbox, FLAGS))
    check(
        sandbox, case / golden_name(sandbox_mode, "expected.settings.json"), read(sandbox, SETTINGS)
    )
    check(sandbox, case / golden_name(sandbox_mode, "stderr.txt"), full.stderr)
    # the preview starts with exactly the snippet that was written
    assert preview.stdout.startswith(read(sandbox, FLAGS))

    yolo = sandbox.run("generate", "copilot", "-w", "-v", "--yolo", *flag)
    assert yolo.returncode == 0, yolo.stderr
    check(
        sandbox,
        case / golden_name(sandbox_mode, "expected.flags.yolo.txt"),
        read(sandbox, FLAGS_YOLO),
    )
    check(sandbox, case / golden_name(sandbox_mode, "stderr.yolo.txt"), yolo.stderr)
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
    kept = unmanaged_members(existing, MANAGED)
    assert kept and unmanaged_members(written, MANAGED) == kept
    # and in the same order, before and after the managed members
    assert list(parse_json(written).value) == list(parse_json(existing).value)
