"""The gemini engine against the real Gemini CLI 0.61.0: the same shell commands, run by the
real agent's tool sandbox (headless, fake model) and by the engine's model of it (bubblewrap
with the arguments ``gemini_bwrap_args`` builds from the same settings), leave the same marks
on the host. Each command is one whose outcome differs between a sandbox and none: a read
outside the launch directory, writes inside it, in its ``.git``, in a planted
``.gemini/settings.json``, in ``/tmp`` and outside, and a request to a local server, with and
without --yolo."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest
from support.hitserver import hit_server
from support.tools import locate_tool, require_tool

from twsrt.agents.gemini.engine import BWRAP_DEFAULT, gemini_bwrap_args
from twsrt.testing.engines import base_env, run_process

from .gemini_client import Call, Setup, gemini_bin, run_gemini

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("gemini_engine")]

SETTINGS = {
    "security": {"toolSandboxing": True},
    "tools": {"sandboxNetworkAccess": False, "sandboxAllowedPaths": []},
}
ALLOW_SHELL = '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 500\n'


def _commands(root: Path, port: int, tag: str) -> list[tuple[str, str]]:
    """(shell command, the mark it leaves only if it was allowed). No redirection: without
    --yolo Gemini asks before a command that redirects, whatever the allow rule says."""
    fetch = f"import urllib.request as u; u.urlopen('http://127.0.0.1:{port}/{tag}', timeout=5)"
    return [
        (f"cp {root / 'home' / 'secret'} read-home", "ws/read-home"),
        ("touch inside", "ws/inside"),
        ("touch .git/planted", "ws/.git/planted"),
        ("mkdir -p .gemini", "ws/.gemini"),
        (f"touch /tmp/{tag}", f"/tmp/{tag}"),
        (f'python3 -c "{fetch}"', "net"),
        (f"touch {root / 'outside' / 'o'}", "outside/o"),
    ]


def _setup(root: Path) -> Setup:
    setup = Setup(root, settings=SETTINGS, policy=ALLOW_SHELL)
    setup.write()
    (setup.home / "secret").write_text("SECRET\n")
    (setup.workspace / ".git").mkdir()
    (root / "outside").mkdir()
    return setup


def _mark(root: Path, mark: str, tag: str, hits: list[str]) -> bool:
    if mark == "net":
        return f"/{tag}" in hits
    return (root / mark).exists()


@pytest.fixture(scope="module")
def observed() -> Iterator[dict[str, dict[str, bool]]]:
    """Each command in a run of its own (a refused write ends a sandboxed run, observed), in
    the real agent and in the model, with and without --yolo: run -> mark -> left or not."""
    binary = gemini_bin()
    bwrap = require_tool("bwrap", locate_tool("bwrap", "TWSRT_BWRAP_BIN", BWRAP_DEFAULT))
    base = Path(tempfile.mkdtemp(prefix="twsrt-gemini-engine-", dir="/var/tmp"))
    tmp_marks: list[Path] = []
    with hit_server() as server:
        # (run, mark, root, tag, the job that runs the command)
        jobs: list[tuple[str, str, Path, str, Callable[[], object]]] = []
        for yolo in (True, False):
            mode = "yolo" if yolo else "default"
            for index in range(len(MARKS)):
                for who in ("real", "model"):
                    tag = f"{who}-{mode}-{index}"
                    root = base / tag
                    command, mark = _commands(root, server.port, tag)[index]
                    setup = _setup(root)
                    if who == "real":
                        job = partial(run_gemini, binary, setup, [Call(command)], yolo=yolo)
                    else:
                        args = gemini_bwrap_args(SETTINGS, setup.workspace, yolo)
                        argv = [bwrap, *args, "--remount-ro", "/tmp", "--", "sh", "-c", command]
                        job = partial(run_process, argv, base_env(root), setup.workspace, 30.0)
                    jobs.append((f"{who}-{mode}", mark, root, tag, job))
                    if mark.startswith("/tmp/"):
                        tmp_marks.append(Path(mark))
        try:
            with ThreadPoolExecutor(max_workers=4) as pool:
                for future in [pool.submit(job) for *_, job in jobs]:
                    future.result()
            out: dict[str, dict[str, bool]] = {}
            for run, mark, root, tag, _job in jobs:
                left = _mark(root, mark, tag, server.hits)
                out.setdefault(run, {})[mark.replace(tag, "tmp")] = left
            yield out
        finally:
            shutil.rmtree(base, ignore_errors=True)
            for path in tmp_marks:
                path.unlink(missing_ok=True)


MARKS = ("read-home", "inside", ".git", ".gemini", "tmp", "net", "outside")


@pytest.mark.parametrize("mode", ["yolo", "default"])
def test_the_model_leaves_the_marks_the_real_agent_leaves(
    observed: dict[str, dict[str, bool]], mode: str
) -> None:
    assert observed[f"model-{mode}"] == observed[f"real-{mode}"]


def test_the_marks_tell_a_sandbox_from_none(observed: dict[str, dict[str, bool]]) -> None:
    """What each run shows (so the comparison cannot pass on runs that did nothing)."""
    for mode in ("yolo", "default"):
        real = observed[f"real-{mode}"]
        assert real["ws/read-home"] and real["ws/inside"] and real["ws/.gemini"], mode
        assert not real["ws/.git/planted"] and not real["/tmp/tmp"] and not real["outside/o"]
    assert observed["real-yolo"]["net"] and not observed["real-default"]["net"]
