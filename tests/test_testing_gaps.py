"""The engine gaps ``check`` shares with ``twsrt test`` (``twsrt.testing.gaps``): ``check`` loads
that light module and nothing of the prober (runner, engines, attacks, verdicts, reports)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REPO_ROOT

from twsrt.testing.engines import engine_class
from twsrt.testing.gaps import SRT_GAPS
from twsrt.testing.registry import ENGINES

# run_check on the shipped example in a fresh interpreter, then list what it imported
_CHECK_AND_LIST = """
import json, sys
from twsrt.checking import run_check
report = run_check(None, None, False, None, False)
print(json.dumps({"checked": len(report.checked),
                  "modules": sorted(m for m in sys.modules if m.startswith("twsrt."))}))
"""


def test_check_imports_the_gaps_but_nothing_of_the_prober() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", _CHECK_AND_LIST],
        cwd=REPO_ROOT / "examples" / "dotfiles",
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert seen["checked"] > 2  # the run got as far as the targets, past the gap lookup
    modules = set(seen["modules"])
    assert "twsrt.testing.gaps" in modules
    prober = {
        "twsrt.testing.engines",
        "twsrt.testing.run",
        "twsrt.testing.attacks",
        "twsrt.testing.verdicts",
        "twsrt.reports.probes",
        *ENGINES.values(),
    }
    assert sorted(modules & prober) == []
    assert not [m for m in modules if m.startswith("twsrt.testing.engine")]


def test_every_engine_declares_its_gap_table_and_hint() -> None:
    for name in ENGINES:
        engine = engine_class(name)
        assert engine.hint
        assert all(callable(rule) for rule in engine.gaps)
    # the claude engine runs srt, so it carries every srt gap first
    assert engine_class("claude").gaps[: len(SRT_GAPS)] == SRT_GAPS
    assert engine_class("srt").gaps == SRT_GAPS
