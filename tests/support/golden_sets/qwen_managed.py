"""Qwen Code's managed scope: the system ``settings.json`` in the managed output tree, through
the CLI (``[managed]`` in the config, ``generate -w -v``). A case holds the sources, an optional
``existing.json`` (the administrator's system file before the run, whose other keys stay), the
expected file (``expected.json``) and what ``generate -w -v`` prints (``stderr.txt``). The
three OS copies are the same bytes, readable by every user (0644)."""

from __future__ import annotations

from pathlib import Path

from support.golden import GoldenCase
from support.golden_sets.managed_tree import check_one_file, managed_config
from support.sandbox import Sandbox
from twsrt.agents.qwen.declaration import TREE_PATHS

MODES = (None,)
MANAGED_CONFIG = managed_config("qwen")


def check(case: GoldenCase, _mode: None, sandbox: Sandbox, _tmp_path: Path) -> None:
    document = check_one_file(case, sandbox, MANAGED_CONFIG, TREE_PATHS)
    assert document["$version"] == 4 and "executionSandbox" in document["tools"]
