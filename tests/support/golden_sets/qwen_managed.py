"""Qwen Code's managed scope: the system ``settings.json`` in the managed output tree, through
the CLI (``[managed]`` in the config, ``generate -w -v``). A case holds the sources, an optional
``existing.json`` (the administrator's system file before the run, whose other keys stay), the
expected file (``expected.json``) and what ``generate -w -v`` prints (``stderr.txt``). The
three OS copies are the same bytes, readable by every user (0644)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support.golden import GoldenCase
from support.sandbox import Sandbox
from twsrt.agents.qwen.declaration import TREE_PATHS

MODES = (None,)
MANAGED_CONFIG = """\
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[managed]
root = "managed"
agents = ["qwen"]
"""
TREE = "managed"


def check(case: GoldenCase, _mode: None, sandbox: Sandbox, _tmp_path: Path) -> None:
    """The file at each OS's place, fresh or merged into the administrator's own; then no
    drift, a second run changes nothing, and the file is readable by every user."""
    linux, *others = (sandbox.repo / TREE / path for path in TREE_PATHS.values())
    case.install(sandbox, MANAGED_CONFIG, f"{TREE}/{TREE_PATHS['linux']}")
    if case.existing() is not None:
        for path in others:
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(linux, path)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    text = linux.read_text(encoding="utf-8")
    case.expect(sandbox, None, "expected.json", text)
    case.expect(sandbox, None, "stderr.txt", run.stderr)
    assert [path.read_text(encoding="utf-8") for path in others] == [text, text]
    assert oct(linux.stat().st_mode & 0o777) in ("0o644",)
    document = json.loads(text)
    assert document["$version"] == 4 and "executionSandbox" in document["tools"]
    assert sandbox.run("diff").returncode == 0
    again = sandbox.run("generate", "-w")
    assert again.returncode == 0, again.stderr
    assert f"twsrt: unchanged {TREE}/{TREE_PATHS['linux']}" in again.stderr
