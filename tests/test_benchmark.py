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
    sys.modules[name] = module  # bench.py imports make_policy by name, as when run as a script
    spec.loader.exec_module(module)
    return module


make_policy = load_script("make_policy")
bench = load_script("bench")

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
STARTUP_ROWS = (
    "python -c pass (baseline)",
    "twsrt --version",
    "twsrt check [dotfiles]",
    "twsrt check, no cache [dotfiles]",
    "twsrt generate claude [dotfiles]",
)
NUMBER = r"\d+\.\d"


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


def test_bench_prints_the_startup_and_scaling_tables(tmp_path: Path) -> None:
    proc = run_script(tmp_path, "bench.py", "--runs", "1", "--sizes", "40")

    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    # date (UTC); CPU; cores; Python; twsrt version (commit)
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d UTC; .+; \d+ cores; Python 3[.\d]+; .*version.* \(.+\)",
        lines[0],
    ), lines[0]

    def row(label: str) -> str:
        found = next((line for line in lines if line.startswith(label + " ")), None)
        assert found is not None, f"no row for {label!r}:\n{proc.stdout}"
        return found[len(label) :]

    for label in STARTUP_ROWS:  # median, best, runs: numbers only, one run
        assert re.fullmatch(rf"\s+{NUMBER}\s+{NUMBER}\s+1", row(label)), row(label)
    columns = row("policy").split()
    assert columns[0] == "rules" and " ".join(columns[1:]) == " ".join(bench.COLUMNS)
    # the example's 30 rules, then the generated 40; every column a number, check-jsonschema too
    for label, rules in (("example", 30), ("40", 40)):
        assert re.fullmatch(rf"\s+{rules}(\s+{NUMBER}){{5}}", row(label)), row(label)
    # neither scaling ratio's rows were measured: printed as failing, exit 0 without
    # --check-ratios; the example's check against check-jsonschema always is
    ratios = [line for line in lines if line.startswith("check(")]
    assert len(ratios) == 3 and all(line.endswith("--sizes needs both)") for line in ratios[:2])
    assert re.search(
        r"^check\(example\) / check-jsonschema\(example\) <= 0.5: \d+\.\d\d ", ratios[2]
    )
    linear = [line for line in lines if line.startswith("check per rule")]
    unmeasured = "FAIL (not measured; --sizes needs all three)"
    assert linear == [f"check per rule 10k->50k / per rule 1k->10k <= 1.1: {unmeasured}"]


def timing(ms: float) -> object:
    return bench.Timing(ms, ms, 1, 0, "")


def test_cells_are_measured_in_rounds_after_a_warm_up(tmp_path: Path) -> None:
    """Each round runs every cell once, so the machine's load falls on all rows alike."""
    log = tmp_path / "log"

    def case(mark: str) -> object:
        write = f"open({str(log)!r}, 'a').write({mark!r})"
        return bench.Case(mark, [sys.executable, "-c", write], tmp_path)

    timings = bench.measure_cases([case("a"), case("b")], runs=2, budget=600.0)
    assert log.read_text(encoding="utf-8") == "ababab"  # warm-up, then two timed rounds
    assert [(t.runs, t.exit_code) for t in timings] == [(2, 0), (2, 0)]


def test_the_acceptance_ratios_pass_and_fail_by_their_limits() -> None:
    def rows(example: float, org: float, ten: float, fifty: float) -> list[object]:
        checks = {"example": example, "org13k": org, "10000": ten, "50000": fifty}
        return [bench.Row(key, 1, {"check": timing(ms)}) for key, ms in checks.items()]

    verdicts = bench.ratio_verdicts(rows(100.0, 500.0, 1000.0, 4000.0))
    assert [passed for _, passed in verdicts] == [True, True, False, False]
    assert verdicts[2][0] == (  # no check-jsonschema cell in these rows
        "check(example) / check-jsonschema(example) <= 0.5: FAIL (not measured; --sizes needs both)"
    )
    assert verdicts[0][0] == "check(13k (org13k)) / check(example) <= 5: 5.00 PASS"
    assert verdicts[1][0] == "check(50k) / check(10k) <= 4: 4.00 PASS"
    verdicts = bench.ratio_verdicts(rows(100.0, 501.0, 1000.0, 4010.0))
    assert [passed for _, passed in verdicts] == [False, False, False, False]
    assert all(line.endswith("FAIL") for line, _ in verdicts[:2])
    # the CPU times' ratio is shown beside the wall times' verdict, which it does not change
    cpu = [
        bench.Row("10000", 1, {"check": bench.Timing(1000.0, 1000.0, 1, 0, "", 800.0)}),
        bench.Row("50000", 1, {"check": bench.Timing(3900.0, 3900.0, 1, 0, "", 3600.0)}),
    ]
    assert bench.ratio_verdicts(cpu)[1] == (
        "check(50k) / check(10k) <= 4: 3.90 PASS (CPU time: 4.50)",
        True,
    )
    # issue 28's: check against check-jsonschema on the same row
    example = [bench.Row("example", 1, {"check": timing(120.0), "check-jsonschema": timing(250.0)})]
    assert bench.ratio_verdicts(example)[2] == (
        "check(example) / check-jsonschema(example) <= 0.5: 0.48 PASS",
        True,
    )


def test_the_markdown_table_has_a_row_per_policy() -> None:
    cells = {name: timing(12.34) for name in bench.COLUMNS if name != "check-jsonschema"}
    rows = [bench.Row("example", 30, cells), bench.Row("50000", 50_000, cells)]
    assert bench.render_markdown(rows) == [
        "| policy | rules | `check` ms | `generate -n -w` ms | `diff` ms | `floor` ms"
        " | `check-jsonschema` ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
        "| example | 30 | 12.3 | 12.3 | 12.3 | 12.3 | n/a |",
        "| 50k | 50,000 | 12.3 | 12.3 | 12.3 | 12.3 | n/a |",
    ]


def test_the_readmes_speed_table_is_the_scripts_output() -> None:
    """The README's Speed section holds a --markdown block as bench.py prints it: the header with
    date, CPU and commit, the scaling table's columns, the acceptance ratios with a verdict."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.partition("<!-- bench.py --markdown: from here -->\n")[2]
    block = block.partition("<!-- bench.py --markdown: to here -->")[0]
    lines = block.strip().splitlines()
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d UTC; .+; \d+ cores; Python .+; .+ \([\w+]+\);\n"
        r"`python benchmarks/bench\.py [^`]*--markdown[^`]*`: median wall ms .+\.",
        "\n".join(lines[:2]),
    ), block
    assert lines[3:5] == bench.render_markdown([])
    table = [line for line in lines[5:] if line.startswith("| ")]
    assert [line.split(" | ")[0] for line in table] == [
        "| example",
        "| 1k",
        "| 10k",
        "| 13k (org13k)",
        "| 50k",
    ]
    ratios = [line for line in lines if line.startswith("- check(")]
    assert len(ratios) == 3, block
    assert ratios[0].startswith("- check(13k (org13k)) / check(example) <= 5: ")
    assert ratios[1].startswith("- check(50k) / check(10k) <= 4: ")
    assert ratios[2].startswith("- check(example) / check-jsonschema(example) <= 0.5: ")
    verdict = r": \d+\.\d\d (PASS|FAIL)( \(CPU time: \d+\.\d\d\))?$"
    assert all(re.search(verdict, line) for line in ratios), ratios


def test_floor_reads_every_file_the_config_names(tmp_path: Path) -> None:
    (tmp_path / "twsrt.toml").write_text(
        '[sources]\nsrt = "a.json"\n[targets]\ncodex_config = "b.toml"\n', encoding="utf-8"
    )
    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / "b.toml").write_text("x = [", encoding="utf-8")  # parsed, so it fails
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "floor.py")], cwd=tmp_path, capture_output=True
    )
    assert proc.returncode != 0 and b"TOMLDecodeError" in proc.stderr
    (tmp_path / "b.toml").write_text("x = 1", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "floor.py")], cwd=tmp_path)
    assert proc.returncode == 0


def test_bench_rejects_a_nonsense_option(tmp_path: Path) -> None:
    proc = run_script(tmp_path, "bench.py", "--runs", "0")
    assert proc.returncode == 2
    assert "--runs" in proc.stderr
    proc = run_script(tmp_path, "bench.py", "--sizes", "1000,huge")
    assert proc.returncode == 2
    assert "'huge' is neither" in proc.stderr


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


# A `twsrt test` under strace: twsrt (100) runs threads (101), which start a control (200, no
# sandbox), a Codex-like start (300: bwrap tried, then the real one, nested below), an srt-like
# start whose child is logged before its parent's clone returned (400 -> 401), and a PATH lookup
# that failed. strace pads a short id when longer ones appear (100  clone3).
STRACE_LOG = """\
100 execve("/venv/bin/twsrt", ["twsrt", "test"], 0x1 /* 9 vars */) = 0
100  clone3({flags=CLONE_VM|CLONE_THREAD|CLONE_SETTLS, child_tid=0x1}, 88) = 101
101 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x1) = 200
200 execve("/usr/bin/sh", ["sh", "-c", "cat x"], 0x1 /* 9 vars */) = 0
101 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>
101 <... clone resumed>, child_tidptr=0x1) = 300
300 execve("/opt/codex", ["codex", "sandbox"], 0x1 /* 9 vars */) = 0
300 clone(child_stack=NULL, flags=SIGCHLD) = 301
301 execve("/usr/bin/bwrap", ["bwrap", "--help"], 0x1 /* 9 vars */) = 0
300 clone(child_stack=NULL, flags=SIGCHLD) = 302
302 execve("/usr/local/bin/bwrap", ["bwrap"], 0x1 /* 9 vars */) = -1 ENOENT (No such file)
302 execve("/usr/bin/bwrap", ["bwrap", "--ro-bind", "/", "/"], 0x1 /* 9 vars */) = 0
101 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>
400 execve("/opt/srt", ["srt", "-c", "true"], 0x1 /* 9 vars */) = 0
400 clone(child_stack=NULL, flags=SIGCHLD) = 401
401 execve("/usr/bin/bwrap", ["bwrap"], 0x1 /* 9 vars */ <unfinished ...>
101 <... clone resumed>, child_tidptr=0x1) = 400
401 <... execve resumed>) = 0
"""


def test_sandbox_starts_counts_each_launch_that_ran_bwrap_once() -> None:
    twsrt_test = load_script("twsrt_test")
    assert twsrt_test.sandbox_starts(STRACE_LOG) == 2  # 300 and 400; the control 200 is none
    without_srt = STRACE_LOG.replace('401 execve("/usr/bin/bwrap"', '401 execve("/usr/bin/true"')
    assert twsrt_test.sandbox_starts(without_srt) == 1
    assert twsrt_test.sandbox_starts("") == 0


def test_linear_work_is_judged_by_the_cost_per_rule_added() -> None:
    """LINEARITY: check's milliseconds per rule from 10k to 50k over those from 1k to 10k;
    start-up cancels out, so a linear job passes whatever its start-up."""

    def rows(one: float, ten: float, fifty: float, cpu: float | None = None) -> list[object]:
        checks = {"1000": (1_000, one), "10000": (10_000, ten), "50000": (50_000, fifty)}
        return [
            bench.Row(key, rules, {"check": bench.Timing(ms, ms, 1, 0, "", cpu and ms * cpu)})
            for key, (rules, ms) in checks.items()
        ]

    # 40 ms of start-up and 0.03 ms a rule: linear, and yet 50k/10k fails
    linear = bench.ratio_verdicts(rows(70.0, 340.0, 1540.0, cpu=1.0))
    assert linear[1] == ("check(50k) / check(10k) <= 4: 4.53 FAIL (CPU time: 4.53)", False)
    assert linear[3] == (
        "check per rule 10k->50k / per rule 1k->10k <= 1.1: 1.00 PASS (CPU time: 1.00)",
        True,
    )
    # a rule costing 20% more past 10k fails
    worse = bench.ratio_verdicts(rows(70.0, 340.0, 1780.0))
    assert worse[3] == ("check per rule 10k->50k / per rule 1k->10k <= 1.1: 1.20 FAIL", False)
