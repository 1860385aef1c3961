"""What the managed-scope golden sets share (not a set itself: no ``tests/golden/managed-tree``):
the config of a run for one agent, and the check of an agent whose managed scope is one
settings file per OS (Claude Code's ``managed-settings.json``, Qwen Code's system
``settings.json``): the file at each OS's place, fresh or merged into the administrator's own,
the same bytes for every OS, readable by every user (0644), no drift, a second run unchanged."""

from __future__ import annotations

import json
import shutil
from typing import Any

from support.golden import GoldenCase
from support.sandbox import Sandbox

TREE = "managed"


def managed_config(agent: str) -> str:
    return (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[managed]\nroot = "{TREE}"\nagents = ["{agent}"]\n'
    )


def check_one_file(
    case: GoldenCase, sandbox: Sandbox, config: str, tree_paths: dict[str, str]
) -> Any:
    """The one-file check; returns the Linux file's document for the agent's own asserts."""
    linux, *others = (sandbox.repo / TREE / path for path in tree_paths.values())
    case.install(sandbox, config, f"{TREE}/{tree_paths['linux']}")
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
    assert oct(linux.stat().st_mode & 0o777) == "0o644"
    document = json.loads(text)
    assert sandbox.run("diff").returncode == 0
    again = sandbox.run("generate", "-w")
    assert again.returncode == 0, again.stderr
    assert f"twsrt: unchanged {TREE}/{tree_paths['linux']}" in again.stderr
    return document
