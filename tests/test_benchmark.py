"""The benchmark scripts run end to end on a tiny input, so they cannot rot. No timings asserted."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from support.cli import run_cli
from support.sandbox import REPO_ROOT

BENCHMARKS = REPO_ROOT / "benchmarks"


def load_script(name: str) -> ModuleType:
    """A benchmark script as a module (benchmarks/ is a script directory, not a package)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_policy = load_script("make_policy")

ALL_AGENT_TARGETS = (
    "home/.claude/settings.full.json",
    "home/.claude/settings.yolo.json",
    "home/.codex/config.toml",
    "home/.codex/rules/twsrt.rules",
    "home/.config/twsrt/copilot-flags.txt",
    "home/.config/twsrt/copilot-flags.yolo.txt",
    "home/.copilot/settings.json",
    "home/.deepcode/settings.json",
)
ROWS = (
    "python -c pass (baseline)",
    "twsrt --version",
    "twsrt check [dotfiles]",
    "twsrt check, no cache [dotfiles]",
    "twsrt diff [dotfiles]",
    "twsrt generate claude [dotfiles]",
    "twsrt generate -n -w [dotfiles]",
    "twsrt check [50 rules]",
)


def script_env(tmp_path: Path) -> dict[str, str]:
    # twsrt's schema-validity cache goes under XDG_CACHE_HOME: keep the developer's cache clean
    env = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    return env


def run_script(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / name), *args],
        cwd=tmp_path,
        env=script_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_bench_prints_a_row_per_command(tmp_path: Path) -> None:
    proc = run_script(tmp_path, "bench.py", "--runs", "1", "--size", "50")

    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    for label in ROWS:
        row = next((line for line in lines if line.startswith(label + " ")), None)
        assert row is not None, f"no row for {label!r}:\n{proc.stdout}"
        # median, best, runs, exit: numbers only, one run, exit 0
        assert re.fullmatch(r"\s+\d+\.\d\s+\d+\.\d\s+1\s+0", row[len(label) :]), row


def test_bench_rejects_a_nonsense_option(tmp_path: Path) -> None:
    proc = run_script(tmp_path, "bench.py", "--runs", "0")
    assert proc.returncode == 2
    assert "--runs" in proc.stderr


def test_make_policy_spreads_rules_and_leaves_no_drift(tmp_path: Path) -> None:
    repo = tmp_path / "big"
    proc = run_script(tmp_path, "make_policy.py", str(repo), "--size", "75")
    assert proc.returncode == 0, proc.stderr

    srt = json.loads((repo / "policy" / "srt-settings.json").read_text(encoding="utf-8"))
    bash = json.loads((repo / "policy" / "bash-rules.json").read_text(encoding="utf-8"))
    counts = [len(v) for v in (*srt["filesystem"].values(), *srt["network"].values())]
    counts += [len(bash[tier]) for tier in ("allow", "deny", "ask")]
    assert sum(counts) == 75 and max(counts) - min(counts) <= 1
    # all four agents are on the measured path, as in examples/dotfiles
    for target in ALL_AGENT_TARGETS:
        assert (repo / target).is_file(), target
    assert os.readlink(repo / "home" / ".claude" / "settings.json") == "settings.full.json"

    check = run_cli(["check"], cwd=repo, env=script_env(tmp_path))
    assert check.returncode == 0, check.stdout + check.stderr
    # clean: notes only (per-rule information such as "Copilot has no ask tier")
    assert re.search(r"twsrt check: 0 errors, 0 warnings, \d+ notes", check.stdout), check.stdout


def test_the_org13k_shape_is_the_issues_policy() -> None:
    shape = make_policy.SHAPES["org13k"]
    assert shape["denyRead"] + shape["denyWrite"] == 10_000
    assert shape["allowedDomains"] + shape["deniedDomains"] == 1_000
    assert shape["allow"] + shape["deny"] + shape["ask"] == 2_000
    assert sum(shape.values()) == 13_000
    assert set(shape) == set(make_policy.BUCKETS)


def test_make_policy_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine\n", encoding="utf-8")
    proc = run_script(tmp_path, "make_policy.py", str(tmp_path / "busy"), "--size", "10")
    assert proc.returncode != 0
    assert "not empty" in proc.stderr
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["keep.txt"]
