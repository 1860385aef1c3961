"""Time `twsrt test` on the bundled example, once per sandbox mode, with the real sandboxes.

Usage: python benchmarks/twsrt_test.py [--runs N] [--modes MODE ...]
       python benchmarks/twsrt_test.py --engines [--runs N] [--engine NAME ...]

Each mode gets its own copy of examples/dotfiles with `[sandbox] mode` set and its files generated
for that mode (full and yolo), then `twsrt test` runs N times (default 3) in a fresh process; the
table shows the median and best wall time, the probe count and the exit code. It needs srt and
Codex installed (see docs/testing.md); a machine without them shows exit 2.
Results measured on the project machine are kept in benchmarks/twsrt-test.md.

--engines is the budget per engine (workspace-write): for each engine, N runs of
`twsrt test --engine NAME` give the median wall time and the median CPU time (user + sys of every
process the run started), and one more run under `strace -f` counts its sandbox starts: bwrap
programs started by a process that is not already inside a sandbox (srt's and Codex's nested
bwrap are one start). Probes per start is the probe count over that. Without strace the starts
column says so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from make_policy import clean_env, twsrt_command

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"
MODES = ("read-only", "workspace-write", "danger-full-access")
ENGINES = ("srt", "codex", "claude", "deepcode")

# strace -f lines: "PID clone(... flags=...) = CHILD" (a call split in two keeps its flags on
# the "<unfinished ...>" half and its result on the "<... clone resumed>" half) and
# "PID execve("PATH", ...) = 0" (split likewise: the path on the first half)
_CALL = re.compile(r"^(\d+) +(clone3?|fork|vfork|execve)\((.*)$")
_RESUMED = re.compile(r"^(\d+) +<\.\.\. (clone3?|fork|vfork|execve) resumed>(.*)$")
_RESULT = re.compile(r"= (\d+)\s*$")
_PATH = re.compile(r'^"([^"]*)"')


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


def _calls(trace: str) -> list[tuple[str, str, str, str]]:
    """(id, call, arguments, result) of every call of the log that returned, its two halves
    joined; failed calls (-1 ENOENT: a PATH lookup) are left out."""
    pending: dict[str, str] = {}
    calls = []
    for line in trace.splitlines():
        if call := _CALL.match(line):
            pid, text = call[1], f"{call[2]} {call[3]}"
            if text.rstrip().endswith("<unfinished ...>"):
                pending[pid] = text
                continue
        elif resumed := _RESUMED.match(line):
            pid = resumed[1]
            text = pending.pop(pid, f"{resumed[2]} ") + resumed[3]
        else:
            continue
        name, _, rest = text.partition(" ")
        if result := _RESULT.search(rest):
            calls.append((pid, name, rest, result[1]))
    return calls


def sandbox_starts(trace: str) -> int:
    """The sandbox starts in an ``strace -f -e trace=execve,clone,clone3,fork,vfork`` log of one
    ``twsrt test``: the processes twsrt itself started (children of its first process, whatever
    thread forked them) in whose tree some program ran ``bwrap``. A control run starts none; a
    start counts once however many bwrap runs it makes (Codex tries bwrap before it sandboxes).
    strace may log a child's exec before its parent's clone returns, so the tree is built first."""
    calls = _calls(trace)
    thread_of: dict[str, str] = {}  # a thread -> the thread that cloned it (same process)
    parent: dict[str, str] = {}  # a process -> the thread that forked it
    for pid, name, rest, result in calls:
        if name != "execve":
            (thread_of if "CLONE_THREAD" in rest else parent)[result] = pid

    def process(pid: str) -> str:
        while pid in thread_of:
            pid = thread_of[pid]
        return pid

    top = next((process(pid) for pid, name, _, _ in calls if name == "execve"), "")

    def launched(pid: str) -> str | None:
        """The process twsrt started that ``pid`` descends from (None: twsrt itself)."""
        own = process(pid)
        while own in parent and process(parent[own]) != top:
            own = process(parent[own])
        return own if own in parent else None

    started = {
        launched(pid)
        for pid, name, rest, result in calls
        if name == "execve"
        and result == "0"
        and (path := _PATH.match(rest)) is not None
        and os.path.basename(path[1]) == "bwrap"
    }
    return len(started - {None})


def run_engine(repo: Path, engine: str, trace: Path | None = None) -> tuple[float, float, int, int]:
    """One ``twsrt test --engine ENGINE --json``: wall seconds, CPU seconds of it and every
    process it started, probe count, exit code; under strace into ``trace`` when given."""
    argv = [*twsrt_command(), "test", "--engine", engine, "--json"]
    if trace is not None:
        argv = ["strace", "-f", "-qq", "-e", "trace=execve,clone,clone3,fork,vfork"]
        argv += ["-o", str(trace), *twsrt_command(), "test", "--engine", engine, "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        argv, cwd=repo, env={**clean_env(), "NO_COLOR": "1"}, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        probes = int(json.loads(proc.stdout)["summary"]["probes"])
    except (ValueError, KeyError, TypeError):
        probes = 0
    return wall, cpu, probes, proc.returncode


def engine_table(repo: Path, engines: list[str], runs: int) -> None:
    """The per-engine budget: probes, sandbox starts, probes per start, median wall and CPU."""
    print(
        f"{'engine':10} {'probes':>6} {'starts':>6} {'per start':>9} {'wall s':>7} {'cpu s':>6}"
        f" {'exit':>4}"
    )
    for engine in engines:
        measured = [run_engine(repo, engine) for _ in range(runs)]
        wall = statistics.median(m[0] for m in measured)
        cpu = statistics.median(m[1] for m in measured)
        probes, code = measured[-1][2], measured[-1][3]
        starts_text, per_start = "no strace", "-"
        if shutil.which("strace"):
            trace = repo.parent / f"{engine}.strace"
            traced = run_engine(repo, engine, trace)
            starts = sandbox_starts(trace.read_text(encoding="utf-8", errors="replace"))
            # a traced run that did not probe as the others did counts nothing
            same = traced[2:] == (probes, code)
            starts_text = str(starts) if same else f"exit {traced[3]}"
            per_start = f"{probes / starts:.1f}" if starts and same else "-"
        print(
            f"{engine:10} {probes:6} {starts_text:>6} {per_start:>9} {wall:7.1f} {cpu:6.1f}"
            f" {code:4}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--engines", action="store_true", help="the budget per engine")
    parser.add_argument("--engine", action="append", choices=ENGINES, help="with --engines")
    args = parser.parse_args()
    if args.engines:
        with tempfile.TemporaryDirectory(prefix="twsrt-bench-test-") as tmp:
            engine_table(
                prepare("workspace-write", Path(tmp)), args.engine or list(ENGINES), args.runs
            )
        return
    print(f"{'mode':20} {'median s':>9} {'best s':>7} {'runs':>4} {'probes':>6} {'exit':>4}")
    with tempfile.TemporaryDirectory(prefix="twsrt-bench-test-") as tmp:
        for mode in args.modes:
            times, probes, code = time_mode(prepare(mode, Path(tmp)), args.runs)
            median, best = statistics.median(times), min(times)
            print(f"{mode:20} {median:9.1f} {best:7.1f} {len(times):4} {probes:6} {code:4}")


if __name__ == "__main__":
    main()
