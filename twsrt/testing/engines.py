"""What every ``twsrt test`` engine shares, and the one registry of engines.

An engine (one module ``twsrt/testing/engine_<name>.py`` each, defining ``ENGINE``) says which
files on disk it reads, whether it can run here (with an install hint when not), which
documented gaps explain a mismatch (its gap table, ``twsrt.testing.gaps``), builds its
input in a fixture tree from those files, and runs one shell command inside its sandbox. Also
here: the fixture tree itself, the control run without a sandbox, process handling (a timeout
kills the sandbox's whole process group), and a local HTTP stub that stands in for the
internet: srt's proxy forwards allowed requests to it (its parent proxy), and controls fetch
through it, so no probe sends traffic off this machine.
"""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from twsrt.records import record
from twsrt.testing.model import FIXTURE_TEXT, MARK, Fixtures
from twsrt.testing.registry import ENGINES

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.config import Config
    from twsrt.documents import Documents
    from twsrt.testing.gaps import GapRule

# A tree under /tmp would be writable to Codex whatever the policy says (its :workspace base
# opens /tmp), so the write-outside probe could not tell; /var/tmp is the usual other place.
ROOT_BASES = ("/var/tmp",)
SMOKE = f"echo '{MARK} allowed'"
Tamper = Callable[[str, Path], None]


class EngineUnavailable(Exception):
    """The sandbox cannot run on this machine (exit 2 with the install hint)."""

    def __init__(self, engine: str, problem: str, hint: str) -> None:
        self.engine, self.problem, self.hint = engine, problem, hint
        super().__init__(f"{engine}: {problem}")


@record(frozen=False)
class Run:
    exit_code: int | None
    output: str
    seconds: float


class Engine(Protocol):
    """One sandbox ``twsrt test`` can run probes in."""

    name: str
    agent: str | None  # the agent whose generated files it reads; None: the canonical srt file
    hint: str  # how a user who installed twsrt with pip gets this sandbox running
    gaps: tuple[GapRule, ...]  # its documented limitations, in the order they are tried

    def reads(self, ctx: Context) -> list[Path]:
        """The files on disk this engine loads for ctx's modes (empty: nothing to read)."""
        ...

    def check_available(self, ctx: Context) -> None:
        """Raise EngineUnavailable when the sandbox cannot run here."""
        ...

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        """Build the engine's input in the fixture tree ROOT; returns the main input file."""
        ...

    def run(self, shell: str, timeout: float) -> Run:
        """``sh -c shell`` inside the sandbox, in ROOT/work with HOME at ROOT/home."""
        ...


def engine_class(name: str) -> type[Engine]:
    """The ENGINE class of a registered engine (imported on first use)."""
    engine: type[Engine] = importlib.import_module(ENGINES[name]).ENGINE
    return engine


def make_engine(name: str) -> Engine:
    return engine_class(name)()


def locate(name: str, env_var: str, default: str) -> str | None:
    """$env_var if set, else the install script's location, else ``name`` on PATH."""
    explicit = os.environ.get(env_var)
    if explicit:
        return explicit
    if os.path.isfile(default) and os.access(default, os.X_OK):
        return default
    return shutil.which(name)


def executable(path: str | None) -> bool:
    return bool(path) and os.path.isfile(str(path)) and os.access(str(path), os.X_OK)


def run_process(argv: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Run:
    """Run argv in a new session; on timeout the whole process group is killed, so no
    sandboxed process outlives its probe (killing the launcher alone would leave them)."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
    except OSError as exc:
        return Run(None, f"cannot run {argv[0]}: {exc.strerror}", time.monotonic() - start)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        try:
            out, _ = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a process that left the group holds the pipe
            proc.kill()
            out = ""
        return Run(None, f"{out}\ntimed out after {timeout:g}s", time.monotonic() - start)
    return Run(proc.returncode, out, time.monotonic() - start)


def _kill_group(pgid: int) -> None:
    with suppress(ProcessLookupError):  # the group is already gone
        os.killpg(pgid, signal.SIGKILL)


def base_env(root: Path) -> dict[str, str]:
    # Built from scratch: nothing of the caller's proxies, credentials or HOME leaks in.
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(root / "home"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
    }


class _Stub(BaseHTTPRequestHandler):
    """Answers every request 200 with a marker header: the stand-in for any upstream."""

    def do_GET(self) -> None:
        body = b"twsrt upstream stub\n"
        self.send_response(200)
        self.send_header("X-Twsrt-Upstream", "1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_HEAD = do_POST = do_GET

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def upstream_stub() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def build_fixtures(fixtures: Fixtures, root: Path) -> tuple[list[socket.socket], list[str]]:
    """Create the tree; a path that cannot be made is reported, and its control will fail."""
    problems: list[str] = []
    for rel in fixtures.dirs:
        try:
            (root / rel).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problems.append(f"{rel}: {exc.strerror}")
    for rel in fixtures.files:
        try:
            (root / rel).write_text(FIXTURE_TEXT, encoding="utf-8")
        except OSError as exc:
            problems.append(f"{rel}: {exc.strerror}")
    listeners = []
    for rel in fixtures.sockets:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(root / rel))
            sock.listen(16)  # connects succeed from the backlog; nobody needs to accept
            listeners.append(sock)
        except OSError as exc:
            sock.close()
            problems.append(f"{rel}: {exc.strerror or exc}")
    return listeners, problems


def control_run(shell: str, root: Path, upstream: str, timeout: float) -> Run:
    env = base_env(root)
    env["HTTP_PROXY"] = env["http_proxy"] = upstream
    return run_process(["sh", "-c", shell], env, root / "work", timeout)


def default_jobs() -> int:
    """Lanes per engine: each costs a fixture tree and a smoke start, and engines already run
    side by side; two keep a single engine's run short without adding starts to a full one."""
    return max(1, min(2, os.cpu_count() or 1))


def root_base() -> str:
    for base in ROOT_BASES:
        if os.path.isdir(base) and os.access(base, os.W_OK):
            return base
    return tempfile.gettempdir()


def read_settings(source: Path, config: Config, documents: Documents) -> dict[str, object]:
    """An agent's JSON settings file as it is on disk ({} when missing); a file that is not a
    JSON object is a located error, never a traceback."""
    from twsrt.agents.base import read_target
    from twsrt.findings import fail
    from twsrt.jsonpos import JsonSyntaxError, parse_json
    from twsrt.locations import Location
    from twsrt.rules import TARGET_UNUSABLE

    display = config.display_path(source)
    text = read_target(source, display, config, documents)
    try:
        settings = parse_json(text).value if text is not None else {}
    except JsonSyntaxError as exc:  # also too-long integers and lone surrogates
        where = Location(display, exc.line, exc.column)
        raise fail(TARGET_UNUSABLE, f"not valid JSON: {exc.message}", where) from None
    if not isinstance(settings, dict):
        raise fail(TARGET_UNUSABLE, "not a JSON object", Location(display))
    return settings
