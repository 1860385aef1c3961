"""Time the twsrt commands a pre-commit hook runs, on the bundled example and a large policy.

Usage: python benchmarks/bench.py [--runs N] [--size N] [--budget SECONDS]

Every command runs in a fresh process, as a hook starts it, N times (default 15); the table shows
the median and the best wall time, beside `python -c pass` for the interpreter's own start-up.
`twsrt check` runs on examples/dotfiles, with and without the schema-validity cache (a hook's
steady state, and the first run after a policy edit), and on a dotfiles repo of about --size rules
(default 10,000) written by make_policy.py. A command stops repeating once its runs have taken
--budget seconds (default 60), so a slow one still gets a row; the runs column says how many.
No timing is asserted anywhere: tests/test_benchmark.py only runs this script on a tiny input.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from make_policy import clean_env, twsrt_command, write_repo

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"


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


def time_case(case: Case, runs: int, budget: float) -> Timing:
    env = {**clean_env(), "NO_COLOR": "1", **case.env}
    times: list[float] = []
    proc: subprocess.CompletedProcess[bytes] | None = None
    while len(times) < runs and sum(times) < budget * 1000:
        start = time.perf_counter()
        proc = subprocess.run(case.argv, cwd=case.cwd, env=env, capture_output=True, check=False)
        times.append((time.perf_counter() - start) * 1000)
    assert proc is not None  # runs >= 1 and budget > 0: the loop ran
    stderr = proc.stderr.decode("utf-8", "replace")
    return Timing(statistics.median(times), min(times), len(times), proc.returncode, stderr)


def cases(twsrt: list[str], policy: Path, size: int) -> list[Case]:
    example = f"[{EXAMPLE.name}]"
    no_cache = {"TWSRT_NO_CACHE": "1"}
    return [
        Case("python -c pass (baseline)", [sys.executable, "-c", "pass"], EXAMPLE),
        Case("twsrt --version", [*twsrt, "--version"], EXAMPLE),
        Case(f"twsrt check {example}", [*twsrt, "check"], EXAMPLE),
        Case(f"twsrt check, no cache {example}", [*twsrt, "check"], EXAMPLE, no_cache),
        Case(f"twsrt diff {example}", [*twsrt, "diff"], EXAMPLE),
        Case(f"twsrt generate claude {example}", [*twsrt, "generate", "claude"], EXAMPLE),
        Case(f"twsrt generate -n -w {example}", [*twsrt, "generate", "-n", "-w"], EXAMPLE),
        Case(f"twsrt check [{size} rules]", [*twsrt, "check"], policy),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per command (default 15)")
    parser.add_argument(
        "--size", type=int, default=10_000, help="rules in the generated policy (default 10000)"
    )
    parser.add_argument(
        "--budget", type=float, default=60.0, help="seconds after which a command stops repeating"
    )
    args = parser.parse_args()
    if args.runs < 1 or args.size < 1 or args.budget <= 0:
        parser.error("--runs, --size and --budget must be positive")
    twsrt = twsrt_command()
    print(f"twsrt: {' '.join(twsrt)}; Python {platform.python_version()}; {platform.platform()}")
    failed = []
    with tempfile.TemporaryDirectory(prefix="twsrt-bench-") as tmp:
        policy = Path(tmp) / "dotfiles"
        start = time.perf_counter()
        write_repo(policy, args.size)
        made = time.perf_counter() - start
        print(f"made a {args.size}-rule policy (twsrt generate -w) in {made:.1f} s")
        width = 44
        print(f"{'command':{width}} {'median ms':>10} {'best ms':>9} {'runs':>5} {'exit':>5}")
        for case in cases(twsrt, policy, args.size):
            timing = time_case(case, args.runs, args.budget)
            print(
                f"{case.label:{width}} {timing.median_ms:10.1f} {timing.best_ms:9.1f}"
                f" {timing.runs:5d} {timing.exit_code:5d}",
                flush=True,
            )
            if timing.exit_code != 0:
                failed.append(f"{case.label}: exit {timing.exit_code}\n{timing.stderr[-2000:]}")
    if failed:
        # every input is clean, so anything but 0 means a broken command, not a slow one
        sys.exit("bench: non-zero exit from\n" + "\n".join(failed))


if __name__ == "__main__":
    main()
