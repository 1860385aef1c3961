"""The benchmark scripts run end to end on a tiny input, so they cannot rot. No timings asserted."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from support.cli import run_cli
from support.sandbox import REPO_ROOT

BENCHMARKS = REPO_ROOT / "benchmarks"
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
    counts += [len(bash["deny"]), len(bash["ask"])]
    assert sum(counts) == 75 and max(counts) - min(counts) <= 1
    for target in ("settings.full.json", "settings.yolo.json"):
        assert (repo / "home" / ".claude" / target).is_file()
    assert os.readlink(repo / "home" / ".claude" / "settings.json") == "settings.full.json"

    check = run_cli(["check"], cwd=repo, env=script_env(tmp_path))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "error" not in check.stdout.split("twsrt check:")[-1].split(",")[0].replace(
        "0 errors", ""
    )


def test_make_policy_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine\n", encoding="utf-8")
    proc = run_script(tmp_path, "make_policy.py", str(tmp_path / "busy"), "--size", "10")
    assert proc.returncode != 0
    assert "not empty" in proc.stderr
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["keep.txt"]
