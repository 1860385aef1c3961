"""Time the twsrt commands a pre-commit hook runs, from the bundled example to 50,000 rules.

Usage: python benchmarks/bench.py [--runs N] [--budget SECONDS] [--sizes LIST] [--markdown]
                                  [--check-ratios]

Every command runs in a fresh process, as a hook starts it: one untimed warm-up run, then up to N
timed runs (default 5) until the cell's runs have taken --budget seconds (default 20), so a slow
cell still finishes; a cell shows the median wall time in ms. The runs go in rounds over all the
cells of a table, so a change in the machine's load falls on every row alike.

First the start-up table on examples/dotfiles: `python -c pass`, `twsrt --version`, `check` with
and without the schema-validity cache, `generate claude`. Then the scaling table, all measured in
this one run: rows are the example and one policy per --sizes entry (default
1000,10000,org13k,50000: a number spreads that many rules evenly, org13k is the issue's 13k-rule
shape; see make_policy.py), columns `check`, `generate -n -w`, `diff`, the floor (floor.py: start
Python, read and parse the same files with json and tomllib) and check-jsonschema on the same srt
file against twsrt's schema, for comparison. Last the acceptance ratios (issue 17's two, and
issue 28's check against check-jsonschema on the example) and the linearity of check's work
(LINEARITY: the cost per rule from 10k to 50k over that from 1k to 10k), each PASS or FAIL by
the median
wall times, followed by the same ratio of the median CPU times (user +
sys of the process and its children), which a shared machine's load moves less;
--check-ratios exits 1 when one fails or was not measured. --markdown prints only
the README's block on stdout (header, scaling table, ratios; the rest goes to stderr). No timing
is asserted anywhere: tests/test_benchmark.py only runs this script on tiny inputs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from make_policy import SHAPES, clean_env, twsrt_command, write_repo

BENCHMARKS = Path(__file__).resolve().parent
REPO_ROOT = BENCHMARKS.parent
EXAMPLE = REPO_ROOT / "examples" / "dotfiles"
SRT_SCHEMA = REPO_ROOT / "schemas" / "srt-settings.schema.json"
COLUMNS = ("check", "generate -n -w", "diff", "floor", "check-jsonschema")
DEFAULT_SIZES = "1000,10000,org13k,50000"
# the acceptance ratios: ((row, column) over (row, column), largest ratio of their times);
# issue 17's two of `check` between policies, issue 28's of `check` against check-jsonschema
RATIOS = (
    (("org13k", "check"), ("example", "check"), 5.0),
    (("50000", "check"), ("10000", "check"), 4.0),
    (("example", "check"), ("example", "check-jsonschema"), 0.5),
)
# linear work: `check`'s cost per rule added from the middle row to the last over its cost per
# rule from the first to the middle (1.0 is exactly linear). The 50k/10k ratio above mixes in
# start-up: a linear job with start-up s and 10k-rule work w scores 5 - 4s/(s+w), so it stays
# <= 4 only while s >= w/3, whatever the per-rule cost.
LINEARITY = (("1000", "10000", "50000"), "check", 1.1)


@dataclass
class Case:
    label: str
    argv: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Timing:
    median_ms: float
    best_ms: float
    runs: int
    exit_code: int
    stderr: str  # of the last run, shown when it failed
    # median CPU ms (user + sys) of the same runs: fair on a shared machine, where wall time
    # also counts the other processes' turns
    cpu_ms: float | None = None


@dataclass
class Row:
    """One policy of the scaling table: its key (example, a size, a shape) and its cells."""

    key: str
    rules: int
    cells: dict[str, Timing]


def measure_cases(
    cases: Sequence[Case], runs: int, budget: float, progress: TextIO | None = None
) -> list[Timing]:
    """Time every case, in rounds: a round runs each case once, so that a change in the
    machine's load over the minutes of a run falls on every cell alike, not on whichever row
    happened to be measured then (the ratios compare rows).

    The first round is an untimed warm-up (it fills the OS file cache and twsrt's
    schema-validity cache, as a hook's steady state has them); then up to ``runs`` timed rounds,
    a case leaving once its runs, warm-up included, took ``budget`` seconds (one timed run always).
    """
    envs = [{**clean_env(), "NO_COLOR": "1", **case.env} for case in cases]
    spent = [0.0] * len(cases)
    times: list[list[float]] = [[] for _ in cases]
    cpu: list[list[float]] = [[] for _ in cases]
    last: list[subprocess.CompletedProcess[bytes] | None] = [None] * len(cases)

    def run(n: int) -> tuple[float, float]:
        # the children's CPU grows by exactly this run's (and its own children's): one at a time
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        last[n] = subprocess.run(
            cases[n].argv, cwd=cases[n].cwd, env=envs[n], capture_output=True, check=False
        )
        elapsed = (time.perf_counter() - start) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        spent[n] += elapsed
        return elapsed, used * 1000

    for n in range(len(cases)):
        run(n)
    for round_number in range(1, runs + 1):
        for n in range(len(cases)):
            if not times[n] or spent[n] < budget * 1000:
                elapsed, used = run(n)
                times[n].append(elapsed)
                cpu[n].append(used)
        if progress is not None:
            print(f"round {round_number} of {runs} done", file=progress, flush=True)
    timings = []
    for n, proc in enumerate(last):
        assert proc is not None  # every case ran at least twice
        stderr = proc.stderr.decode("utf-8", "replace")
        ms = times[n]
        median_cpu = statistics.median(cpu[n])
        timings.append(
            Timing(statistics.median(ms), min(ms), len(ms), proc.returncode, stderr, median_cpu)
        )
    return timings


def startup_cases(twsrt: list[str]) -> list[Case]:
    example = f"[{EXAMPLE.name}]"
    no_cache = {"TWSRT_NO_CACHE": "1"}
    return [
        Case("python -c pass (baseline)", [sys.executable, "-c", "pass"], EXAMPLE),
        Case("twsrt --version", [*twsrt, "--version"], EXAMPLE),
        Case(f"twsrt check {example}", [*twsrt, "check"], EXAMPLE),
        Case(f"twsrt check, no cache {example}", [*twsrt, "check"], EXAMPLE, no_cache),
        Case(f"twsrt generate claude {example}", [*twsrt, "generate", "claude"], EXAMPLE),
    ]


def check_jsonschema_command() -> list[str] | None:
    """check-jsonschema beside this interpreter (the test extra installs it), else on PATH."""
    beside = Path(sys.executable).parent / "check-jsonschema"
    if os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("check-jsonschema")
    return [found] if found else None


def column_cases(twsrt: list[str], repo: Path) -> dict[str, Case | None]:
    sources = read_toml(repo / "twsrt.toml")["sources"]
    assert isinstance(sources, dict)
    srt = repo / sources["srt"]
    validator = check_jsonschema_command()
    return {
        "check": Case("check", [*twsrt, "check"], repo),
        "generate -n -w": Case("generate -n -w", [*twsrt, "generate", "-n", "-w"], repo),
        "diff": Case("diff", [*twsrt, "diff"], repo),
        "floor": Case("floor", [sys.executable, str(BENCHMARKS / "floor.py")], repo),
        "check-jsonschema": (
            Case("check-jsonschema", [*validator, "--schemafile", str(SRT_SCHEMA), str(srt)], repo)
            if validator
            else None
        ),
    }


def read_toml(path: Path) -> dict[str, object]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def count_rules(repo: Path) -> int:
    """Entries of the canonical lists: srt filesystem and network lists, bash allow/deny/ask."""
    config = read_toml(repo / "twsrt.toml")
    sources = config["sources"]
    assert isinstance(sources, dict)
    srt = json.loads((repo / sources["srt"]).read_text(encoding="utf-8"))
    bash = json.loads((repo / sources["bash_rules"]).read_text(encoding="utf-8"))
    lists = [*srt.get("filesystem", {}).values(), *srt.get("network", {}).values()]
    lists += [bash.get(tier, []) for tier in ("allow", "deny", "ask")]
    return sum(len(entries) for entries in lists if isinstance(entries, list))


def row_label(key: str) -> str:
    if key == "example":
        return "example"
    if key in SHAPES:
        return f"{sum(SHAPES[key].values()) // 1000}k ({key})"
    size = int(key)
    return f"{size // 1000}k" if size >= 1000 and size % 1000 == 0 else str(size)


def parse_sizes(text: str) -> list[str]:
    keys = [part.strip() for part in text.split(",") if part.strip()]
    for key in keys:
        if key not in SHAPES and not (key.isdigit() and int(key) > 0):
            raise argparse.ArgumentTypeError(
                f"{key!r} is neither a positive number of rules nor a shape ({', '.join(SHAPES)})"
            )
    if not keys or len(set(keys)) != len(keys):
        raise argparse.ArgumentTypeError("give one or more distinct sizes")
    return keys


def ratio_verdicts(rows: Sequence[Row]) -> list[tuple[str, bool]]:
    """The acceptance ratios as (line, passed), by median wall time; a ratio not measured
    does not pass. The same ratio of median CPU time follows, for a loaded machine."""
    cells = {(row.key, column): timing for row in rows for column, timing in row.cells.items()}
    verdicts = []
    for top, bottom, limit in RATIOS:
        name = f"{_cell_name(top)} / {_cell_name(bottom)} <= {limit:g}"
        if top in cells and bottom in cells:
            high, low = cells[top], cells[bottom]
            ratio = high.median_ms / low.median_ms
            passed = ratio <= limit
            line = f"{name}: {ratio:.2f} {'PASS' if passed else 'FAIL'}"
            if high.cpu_ms and low.cpu_ms:
                line += f" (CPU time: {high.cpu_ms / low.cpu_ms:.2f})"
            verdicts.append((line, passed))
        else:
            verdicts.append((f"{name}: FAIL (not measured; --sizes needs both)", False))
    verdicts.append(_linearity({row.key: row for row in rows}))
    return verdicts


def _linearity(rows: dict[str, Row]) -> tuple[str, bool]:
    """LINEARITY's verdict, by median wall time (the CPU times' beside it)."""
    (first, middle, last), column, limit = LINEARITY
    labels = [row_label(key) for key in (first, middle, last)]
    name = (
        f"{column} per rule {labels[1]}->{labels[2]} / per rule {labels[0]}->{labels[1]}"
        f" <= {limit:g}"
    )
    picked = [rows.get(key) for key in (first, middle, last)]
    timings = [row.cells.get(column) if row else None for row in picked]
    if not all(timings) or not all(picked):
        return f"{name}: FAIL (not measured; --sizes needs all three)", False
    counts = [row.rules for row in picked if row]
    cells = [timing for timing in timings if timing]

    def per_rule_ratio(ms: list[float]) -> float:
        late = (ms[2] - ms[1]) / (counts[2] - counts[1])
        early = (ms[1] - ms[0]) / (counts[1] - counts[0])
        return late / early

    ratio = per_rule_ratio([cell.median_ms for cell in cells])
    passed = ratio <= limit
    line = f"{name}: {ratio:.2f} {'PASS' if passed else 'FAIL'}"
    if all(cell.cpu_ms for cell in cells):
        line += f" (CPU time: {per_rule_ratio([cell.cpu_ms or 0.0 for cell in cells]):.2f})"
    return line, passed


def _cell_name(cell: tuple[str, str]) -> str:
    row, column = cell
    return f"{column}({row_label(row)})"


def cell_text(timing: Timing | None) -> str:
    if timing is None:
        return "n/a"
    mark = "" if timing.exit_code == 0 else f" (exit {timing.exit_code})"
    return f"{timing.median_ms:.1f}{mark}"


def render_text(rows: Sequence[Row]) -> list[str]:
    head = f"{'policy':16} {'rules':>7}" + "".join(f" {name:>16}" for name in COLUMNS)
    lines = [head]
    for row in rows:
        cells = "".join(f" {cell_text(row.cells.get(name)):>16}" for name in COLUMNS)
        lines.append(f"{row_label(row.key):16} {row.rules:7d}{cells}")
    return lines


def render_markdown(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| policy | rules | " + " | ".join(f"`{name}` ms" for name in COLUMNS) + " |",
        "|---|---:|" + "---:|" * len(COLUMNS),
    ]
    for row in rows:
        cells = " | ".join(cell_text(row.cells.get(name)) for name in COLUMNS)
        lines.append(f"| {row_label(row.key)} | {row.rules:,} | {cells} |")
    return lines


def header(twsrt: list[str]) -> str:
    """Date (UTC), CPU model, cores, Python, and the twsrt version and commit measured."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            models = [line.split(":", 1)[1] for line in info if line.startswith("model name")]
        cpu = models[0].strip() if models else cpu
    except OSError:
        pass
    version = subprocess.run([*twsrt, "--version"], capture_output=True, text=True, check=False)
    git = ["git", "-C", str(REPO_ROOT)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True)
    revision = commit.stdout.strip() or "unknown commit"
    if dirty.stdout.strip():
        revision += "+changes"
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"{now}; {cpu}; {os.cpu_count()} cores; Python {platform.python_version()};"
        f" {version.stdout.strip() or 'twsrt ?'} ({revision})"
    )


def measure_startup(
    twsrt: list[str], args: argparse.Namespace, failed: list[str], progress: TextIO
) -> None:
    width = 36
    title = f"{'start-up, examples/dotfiles':{width}} {'median ms':>10} {'best ms':>9} {'runs':>5}"
    print(title, file=progress)
    cases = startup_cases(twsrt)
    for case, timing in zip(cases, measure_cases(cases, args.runs, args.budget), strict=True):
        print(
            f"{case.label:{width}} {timing.median_ms:10.1f} {timing.best_ms:9.1f} {timing.runs:5d}",
            file=progress,
            flush=True,
        )
        if timing.exit_code != 0:
            failed.append(f"{case.label}: exit {timing.exit_code}\n{timing.stderr[-2000:]}")


def measure_scaling(
    twsrt: list[str], args: argparse.Namespace, failed: list[str], progress: TextIO
) -> list[Row]:
    """The example's row and one per --sizes entry: every policy generated in a scratch directory
    first, then all cells measured together, round by round."""
    with tempfile.TemporaryDirectory(prefix="twsrt-bench-") as tmp:
        repos = {"example": EXAMPLE}
        for key in args.sizes:
            repos[key] = repo = Path(tmp) / key
            start = time.perf_counter()
            if key in SHAPES:
                write_repo(repo, shape=key)
            else:
                write_repo(repo, int(key))
            made = time.perf_counter() - start
            made_line = f"made {row_label(key)}: twsrt generate -w {made:.1f} s"
            print(made_line, file=progress, flush=True)
        cells = [
            (key, name, case)
            for key, repo in repos.items()
            for name, case in column_cases(twsrt, repo).items()
            if case is not None
        ]
        timings = measure_cases([case for _, _, case in cells], args.runs, args.budget, progress)
        rows = {key: Row(key, count_rules(repo), {}) for key, repo in repos.items()}
    for (key, name, _), timing in zip(cells, timings, strict=True):
        rows[key].cells[name] = timing
        if timing.exit_code != 0:
            failure = f"{row_label(key)} {name}: exit {timing.exit_code}"
            failed.append(f"{failure}\n{timing.stderr[-2000:]}")
    return list(rows.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per cell (default 5)")
    parser.add_argument(
        "--budget", type=float, default=20.0, help="seconds after which a cell stops repeating"
    )
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=parse_sizes(DEFAULT_SIZES),
        help=f"policies of the scaling table: rule counts and shapes (default {DEFAULT_SIZES})",
    )
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument(
        "--check-ratios", action="store_true", help="exit 1 when an acceptance ratio fails"
    )
    args = parser.parse_args()
    if args.runs < 1 or args.budget <= 0:
        parser.error("--runs and --budget must be positive")
    twsrt = twsrt_command()
    head = header(twsrt)
    command = f"python benchmarks/bench.py {' '.join(sys.argv[1:])}".rstrip()
    method = f"median wall ms of up to {args.runs} fresh-process runs per cell, {args.budget:g} s"
    # with --markdown stdout is only the README block; the progress goes to stderr
    progress = sys.stderr if args.markdown else sys.stdout
    if not args.markdown:
        print(f"{head}\ncommand: {command}\n{method}", flush=True)
    failed: list[str] = []
    measure_startup(twsrt, args, failed, progress)
    rows = measure_scaling(twsrt, args, failed, progress)
    verdicts = ratio_verdicts(rows)
    if args.markdown:
        print(f"{head};\n`{command}`: {method}.\n")
        print("\n".join(render_markdown(rows)) + "\n")
        print("\n".join(f"- {line}" for line, _ in verdicts))
    else:
        print("\n" + "\n".join(render_text(rows)) + "\n")
        print("\n".join(line for line, _ in verdicts))
    if failed:
        # every input is clean, so anything but 0 means a broken command, not a slow one
        sys.exit("bench: non-zero exit from\n" + "\n".join(failed))
    if args.check_ratios and not all(passed for _, passed in verdicts):
        sys.exit(1)


if __name__ == "__main__":
    main()
