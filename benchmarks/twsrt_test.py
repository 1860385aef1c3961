"""Time `twsrt test` on the bundled example, once per sandbox mode, with the real sandboxes.

Usage: python benchmarks/twsrt_test.py [--runs N] [--modes MODE ...]

Each mode gets its own copy of examples/dotfiles with `[sandbox] mode` set and its files generated
for that mode (full and yolo), then `twsrt test` runs N times (default 3) in a fresh process; the
table shows the median and best wall time, the probe count and the exit code. It needs srt and
Codex installed (see docs/testing.md); a machine without them shows exit 2.
Results measured on the project machine are kept in benchmarks/twsrt-test.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from make_policy import clean_env, twsrt_command

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"
MODES = ("read-only", "workspace-write", "danger-full-access")


def prepare(mode: str, into: Path) -> Path:
    repo = into / mode
    shutil.copytree(EXAMPLE, repo, symlinks=True)
    config = repo / "twsrt.toml"
    config.write_text(config.read_text() + f'\n[sandbox]\nmode = "{mode}"\n', encoding="utf-8")
    for yolo in ((), ("--yolo",)):
        argv = [*twsrt_command(), "generate", "-w", *yolo]
        subprocess.run(argv, cwd=repo, env=clean_env(), capture_output=True, check=False)
    return repo


def time_mode(repo: Path, runs: int) -> tuple[list[float], int, int]:
    times: list[float] = []
    probes, code = 0, -1
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(
            [*twsrt_command(), "test", "--json"],
            cwd=repo,
            env={**clean_env(), "NO_COLOR": "1"},
            capture_output=True,
            text=True,
            check=False,
        )
        times.append(time.perf_counter() - start)
        code = proc.returncode
        try:
            probes = json.loads(proc.stdout)["summary"]["probes"]
        except (ValueError, KeyError):
            probes = 0
    return times, probes, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    args = parser.parse_args()
    print(f"{'mode':20} {'median s':>9} {'best s':>7} {'runs':>4} {'probes':>6} {'exit':>4}")
    with tempfile.TemporaryDirectory(prefix="twsrt-bench-test-") as tmp:
        for mode in args.modes:
            times, probes, code = time_mode(prepare(mode, Path(tmp)), args.runs)
            median, best = statistics.median(times), min(times)
            print(f"{mode:20} {median:9.1f} {best:7.1f} {len(times):4} {probes:6} {code:4}")


if __name__ == "__main__":
    main()
