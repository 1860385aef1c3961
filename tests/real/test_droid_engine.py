"""`twsrt test --engine droid` on the file twsrt generates: srt runs the settings Factory Droid
derives from it (twsrt/agents/droid/engine.py), and every probe passes or is a documented gap
(the launch directory, nested layers: TWS495, TWS499)."""

from __future__ import annotations

import pytest
from support.rule_cases import config
from support.sandbox import Sandbox
from support.tools import locate_tool, require_tool

pytestmark = pytest.mark.real


def test_twsrt_test_runs_the_droid_engine(sandbox: Sandbox) -> None:
    """On the generated file, every probe passes or is a documented gap (srt installed)."""
    require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", "/opt/twsrt-tools/srt/bin/srt"))
    sandbox.write("twsrt.toml", config('droid_settings = "home/.factory/settings.json"\n'))
    srt = {"filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."]}, "network": {}}
    sandbox.write(".srt-settings.json", srt)
    sandbox.write("bash-rules.json", {"deny": ["rm"]})
    assert sandbox.run("generate", "droid", "-w").returncode == 0
    result = sandbox.run("test", "--engine", "droid")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "droid" in result.stdout and " fail" not in result.stdout.splitlines()[-1]
