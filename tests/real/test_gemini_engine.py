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
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
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


class _Hits(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (the http.server hook name)
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


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
    the real agent and in the model, with and without --yolo."""
    binary = gemini_bin()
    bwrap = require_tool("bwrap", locate_tool("bwrap", "TWSRT_BWRAP_BIN", BWRAP_DEFAULT))
    base = Path(tempfile.mkdtemp(prefix="twsrt-gemini-engine-", dir="/var/tmp"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hits)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    jobs: list[tuple[str, str, Path, str, Any]] = []  # (run, mark, root, tag, job)
    for yolo in (True, False):
        mode = "yolo" if yolo else "default"
        for index in range(len(MARKS)):
            for who in ("real", "model"):
                tag = f"{who}-{mode}-{index}"
                root = base / tag
                command, mark = _commands(root, port, tag)[index]
                setup = _setup(root)
                if who == "real":
                    job = (run_gemini, binary, setup, [Call(command)])
                else:
                    args = gemini_bwrap_args(SETTINGS, setup.workspace, yolo)
                    argv = [bwrap, *args, "--remount-ro", "/tmp", "--", "sh", "-c", command]
                    job = (run_process, argv, base_env(root), setup.workspace, 30.0)
                jobs.append((f"{who}-{mode}", mark, root, tag, (job, yolo)))
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = []
            for _run, _mark_name, _root, _tag, (job, yolo) in jobs:
                func, *args = job
                kwargs = {"yolo": yolo} if func is run_gemini else {}
                futures.append(pool.submit(func, *args, **kwargs))
            for future in futures:
                future.result()
        out: dict[str, dict[str, bool]] = {}
        for run, mark, root, tag, _job in jobs:
            out.setdefault(run, {})[mark.replace(tag, "tmp")] = _mark(root, mark, tag, _Hits.hits)
        yield out
    finally:
        server.shutdown()
        shutil.rmtree(base, ignore_errors=True)
        for _run, mark, _root, _tag, _job in jobs:
            if mark.startswith("/tmp/"):
                Path(mark).unlink(missing_ok=True)


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
