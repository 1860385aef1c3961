"""Claude Code's managed scope: ``managed-settings.json`` in the managed output tree, through
the CLI (``[managed]`` in the config, ``generate -w -v``). A case holds the sources, an optional
``existing.json`` (the administrator's managed file before the run, whose other keys stay), the
expected file (``expected.json``) and what ``generate -w -v`` prints (``stderr.txt``). The
three OS copies are the same bytes, readable by every user (0644)."""

from __future__ import annotations

from pathlib import Path

from support.golden import GoldenCase
from support.golden_sets.managed_tree import check_one_file, managed_config
from support.sandbox import Sandbox
from twsrt.agents.claude.declaration import TREE_PATHS

MODES = (None,)
MANAGED_CONFIG = managed_config("claude")


def check(case: GoldenCase, _mode: None, sandbox: Sandbox, _tmp_path: Path) -> None:
    document = check_one_file(case, sandbox, MANAGED_CONFIG, TREE_PATHS)
    assert document["allowManagedPermissionRulesOnly"] is True
