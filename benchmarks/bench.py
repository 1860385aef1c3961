"""Time the twsrt commands a pre-commit hook runs, on the bundled example.

Usage: python benchmarks/bench.py [--runs N]

Prints the median and best wall time of each command over N runs (default 15) in a fresh
process, as a hook would start it. Kept out of the test suite on purpose: timings belong here.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"
COMMANDS = {
    "python -c pass (baseline)": [sys.executable, "-c", "pass"],
    "twsrt --version": ["twsrt", "--version"],
    "twsrt generate claude": ["twsrt", "generate", "claude"],
    "twsrt diff": ["twsrt", "diff"],
    "twsrt generate claude -n -w": ["twsrt", "generate", "claude", "-n", "-w"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if not shutil.which("twsrt"):
        sys.exit("twsrt is not installed (pip install .)")
    print(
        f"{'command':32} {'median ms':>10} {'best ms':>8}  ({args.runs} runs, cwd {EXAMPLE.name})"
    )
    for label, command in COMMANDS.items():
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(command, cwd=EXAMPLE, capture_output=True, check=False)
            times.append((time.perf_counter() - start) * 1000)
        print(f"{label:32} {statistics.median(times):10.1f} {min(times):8.1f}")


if __name__ == "__main__":
    main()
