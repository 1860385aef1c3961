"""Copilot CLI's flag snippets, the settings merge and findings: the existing file is the
user's settings.json (existing.json), and the default config pins home = "/home/user"
(unpinned-home has its own twsrt.toml). A case holds the preview on stdout (preview.txt), the
full and yolo flag files (expected.flags.txt, expected.flags.yolo.txt), the settings file
(expected.settings.json) and the findings of each write (stderr.txt, stderr.yolo.txt)."""

from __future__ import annotations

import stat
from pathlib import Path

from support.golden import GoldenCase, pinned_config
from support.sandbox import Sandbox
from twsrt.agents.copilot.agent import parse_snippet
from twsrt.config import SANDBOX_MODES

MODES = SANDBOX_MODES
FLAGS = "home/.config/twsrt/copilot-flags.txt"
FLAGS_YOLO = "home/.config/twsrt/copilot-flags.yolo.txt"
SETTINGS = "home/.copilot/settings.json"
MANAGED = {"sandbox", "allowedUrls", "deniedUrls"}
CONFIG = pinned_config(copilot_output=FLAGS, copilot_settings=SETTINGS)


def read(sandbox: Sandbox, relative: str) -> str:
    return (sandbox.repo / relative).read_text(encoding="utf-8")


def check(case: GoldenCase, sandbox_mode: str, sandbox: Sandbox, _tmp_path: Path) -> None:
    case.install(sandbox, CONFIG, SETTINGS)
    flag = ["--sandbox", sandbox_mode]
    preview = sandbox.run("generate", "copilot", *flag)
    assert preview.returncode == 0, preview.stderr
    case.expect(sandbox, sandbox_mode, "preview.txt", preview.stdout)

    full = sandbox.run("generate", "copilot", "-w", "-v", *flag)
    assert full.returncode == 0, full.stderr
    case.expect(sandbox, sandbox_mode, "expected.flags.txt", read(sandbox, FLAGS))
    case.expect(sandbox, sandbox_mode, "expected.settings.json", read(sandbox, SETTINGS))
    case.expect(sandbox, sandbox_mode, "stderr.txt", full.stderr)
    # the preview starts with exactly the snippet that was written
    assert preview.stdout.startswith(read(sandbox, FLAGS))

    yolo = sandbox.run("generate", "copilot", "-w", "-v", "--yolo", *flag)
    assert yolo.returncode == 0, yolo.stderr
    case.expect(sandbox, sandbox_mode, "expected.flags.yolo.txt", read(sandbox, FLAGS_YOLO))
    case.expect(sandbox, sandbox_mode, "stderr.yolo.txt", yolo.stderr)
    assert f"twsrt: unchanged {SETTINGS}" in yolo.stderr  # the settings are approval-free

    for text in (read(sandbox, FLAGS), read(sandbox, FLAGS_YOLO)):
        assert not text.rstrip("\n").endswith("\\")
        parse_snippet(text)  # pastes as shell words
    mode = stat.S_IMODE((sandbox.repo / SETTINGS).stat().st_mode)
    assert mode == (0o644 if case.existing() else 0o600)

    # generate -w then diff: no drift in either mode; a second write changes nothing
    for args in (("diff", "copilot", *flag), ("diff", "copilot", "--yolo", *flag)):
        result = sandbox.run(*args)
        assert result.returncode == 0, result.stdout
    before = {p: read(sandbox, p) for p in (FLAGS, FLAGS_YOLO, SETTINGS)}
    again = sandbox.run("generate", "copilot", "-w", *flag)
    assert again.returncode == 0
    assert again.stderr.count("twsrt: unchanged ") == 2, again.stderr
    assert {p: read(sandbox, p) for p in before} == before
