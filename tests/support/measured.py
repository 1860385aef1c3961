"""Run one program to its end and measure it: wall time and the CPU time of it and every
descendant it waited for (``os.wait4`` on its pid, so runs in parallel threads do not mix their
numbers, unlike ``RUSAGE_CHILDREN`` of the whole test process)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    cpu: float  # user + system seconds of the process tree


def run_measured(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float
) -> Finished:
    """Run ``argv`` with stdin closed; kill its process group after ``timeout`` seconds."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,  # its own group: a timeout kills the agent's children too
        )
        status, usage = 0, None
        while usage is None:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                usage = rusage
            elif time.monotonic() - start > timeout:
                os.killpg(proc.pid, 9)
            else:
                time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Finished(
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
            seconds,
            usage.ru_utime + usage.ru_stime,
        )
