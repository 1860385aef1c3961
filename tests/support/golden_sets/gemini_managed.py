"""Gemini CLI's managed scope: the admin policy file and the system settings in the managed
output tree, through the CLI (``[managed]`` in the config, ``generate -w -v``). A case holds the
sources, an optional ``existing.json`` (the administrator's system settings before the run,
whose other keys stay), the expected files (``expected.twsrt.toml``, ``expected.settings.json``)
and what ``generate -w -v`` prints (``stderr.txt``). The three OS copies of each file are the
same bytes, readable by every user (0644)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from support.golden import GoldenCase
from support.golden_sets.managed_tree import TREE, managed_config
from support.sandbox import Sandbox
from twsrt.agents.gemini.declaration import ADMIN_POLICY_NAME, TREE_DIRS

MODES = (None,)
MANAGED_CONFIG = managed_config("gemini")


def check(case: GoldenCase, _mode: None, sandbox: Sandbox, _tmp_path: Path) -> None:
    """Both files at each OS's place, the settings fresh or merged into the administrator's
    own; then no drift, a second run changes nothing, and every file is readable by all."""
    dirs = [sandbox.repo / TREE / tree for tree in TREE_DIRS.values()]
    case.install(sandbox, MANAGED_CONFIG, f"{TREE}/{TREE_DIRS['linux']}/settings.json")
    if case.existing() is not None:
        for directory in dirs[1:]:
            directory.mkdir(parents=True, exist_ok=True)
            shutil.copy(dirs[0] / "settings.json", directory / "settings.json")
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    for name, expected in (
        (ADMIN_POLICY_NAME, "expected.twsrt.toml"),
        ("settings.json", "expected.settings.json"),
    ):
        texts = [(directory / name).read_text(encoding="utf-8") for directory in dirs]
        case.expect(sandbox, None, expected, texts[0])
        assert texts[1:] == [texts[0], texts[0]], name
        for directory in dirs:
            assert oct((directory / name).stat().st_mode & 0o777) == "0o644", directory / name
    tomllib.loads((dirs[0] / ADMIN_POLICY_NAME).read_text(encoding="utf-8"))
    case.expect(sandbox, None, "stderr.txt", run.stderr)
    assert sandbox.run("diff").returncode == 0
    again = sandbox.run("generate", "-w")
    assert again.returncode == 0, again.stderr
    assert f"twsrt: unchanged {TREE}/{TREE_DIRS['linux']}/settings.json" in again.stderr
