"""The real sandboxes ``twsrt test`` runs probes in: the sandbox runtime (srt) and Codex.

An engine says whether it can run here (with an install hint when not), builds its input in a
fixture tree, and runs one shell command inside its sandbox. Also here: the fixture tree itself,
the control run without a sandbox, and a local HTTP stub that stands in for the internet: srt's
proxy forwards allowed requests to it (its parent proxy), and controls fetch through it, so no
probe sends traffic off this machine.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from twsrt.policy import Policy
from twsrt.testing.model import FIXTURE_TEXT, MARK, Fixtures

ENGINES = ("srt", "codex")
SRT_ENV, CODEX_ENV = "TWSRT_SRT_BIN", "TWSRT_CODEX_BIN"
SRT_DEFAULT = "/opt/twsrt-tools/srt/bin/srt"
CODEX_DEFAULT = "/opt/twsrt-tools/codex/bin/codex"
SRT_HINT = (
    "install bubblewrap, socat and ripgrep (apt-get install -y bubblewrap socat ripgrep) and "
    "the sandbox runtime with Node >= 18 (npm install -g @anthropic-ai/sandbox-runtime@0.0.83), "
    f"or point ${SRT_ENV} at srt; in this repository: bash .ci/install-srt.sh"
)
CODEX_HINT = (
    "install the Codex CLI (npm install -g @openai/codex@0.171.0) and bubblewrap, or point "
    f"${CODEX_ENV} at codex; in this repository: bash .ci/install-codex.sh"
)
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


def locate(name: str, env_var: str, default: str) -> str | None:
    """$env_var if set, else the install script's location, else ``name`` on PATH."""
    explicit = os.environ.get(env_var)
    if explicit:
        return explicit
    if os.path.isfile(default) and os.access(default, os.X_OK):
        return default
    return shutil.which(name)


def _executable(path: str | None) -> bool:
    return bool(path) and os.path.isfile(str(path)) and os.access(str(path), os.X_OK)


@dataclass
class Run:
    exit_code: int | None
    output: str
    seconds: float


def _run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Run:
    start = time.monotonic()
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            start_new_session=True,  # a timeout kills the whole sandbox, not just its launcher
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.output if isinstance(exc.output, str) else (exc.output or b"").decode()
        return Run(None, f"{out}\ntimed out after {timeout:g}s", time.monotonic() - start)
    except OSError as exc:
        return Run(None, f"cannot run {argv[0]}: {exc.strerror}", time.monotonic() - start)
    return Run(proc.returncode, proc.stdout, time.monotonic() - start)


def _base_env(root: Path) -> dict[str, str]:
    # Built from scratch: nothing of the caller's proxies, credentials or HOME leaks in.
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(root / "home"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
    }


class SrtEngine:
    name = "srt"

    def __init__(self, binary: str | None = None) -> None:
        self.binary = binary or locate("srt", SRT_ENV, SRT_DEFAULT)

    def check_available(self, policy: Policy) -> None:
        missing = []
        if not _executable(self.binary):
            missing.append(f"srt ({self.binary or 'not on PATH'})")
        if sys.platform.startswith("linux"):
            srt = policy.srt
            tools = (
                ("bwrap", srt.get("bwrapPath")),
                ("socat", srt.get("socatPath")),
                ("rg", (srt.get("ripgrep") or {}).get("command")),
            )
            for tool, configured in tools:
                found = configured if configured else shutil.which(tool)
                if not found or not (os.path.isabs(found) or shutil.which(found)):
                    missing.append(tool)
        if missing:
            raise EngineUnavailable(self.name, "missing " + ", ".join(missing), SRT_HINT)

    def prepare(self, policy: Policy, root: Path, upstream: str) -> Path:
        import json

        from twsrt.testing.inputs import srt_settings

        self.root, self.upstream = root, upstream
        self.settings = root / "srt-settings.json"
        self.settings.write_text(
            json.dumps(srt_settings(policy, str(root)), indent=2) + "\n", encoding="utf-8"
        )
        return self.settings

    def run(self, shell: str, timeout: float) -> Run:
        env = _base_env(self.root)
        # srt's proxy chains through $HTTP_PROXY (its parent proxy): allowed requests reach the
        # local stub instead of the internet, and refused ones never leave srt
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        argv = [str(self.binary), "--settings", str(self.settings), "-c", shell]
        return _run(argv, env, self.root / "work", timeout)


class CodexEngine:
    name = "codex"

    def __init__(self, binary: str | None = None) -> None:
        self.binary = binary or locate("codex", CODEX_ENV, CODEX_DEFAULT)

    def check_available(self, policy: Policy) -> None:
        if not _executable(self.binary):
            problem = f"missing codex ({self.binary or 'not on PATH'})"
            raise EngineUnavailable(self.name, problem, CODEX_HINT)

    def prepare(self, policy: Policy, root: Path, upstream: str) -> Path:
        from twsrt.agents.codex import merged_config, translate
        from twsrt.testing.inputs import codex_policy

        self.root = root
        compiled, _ = translate(codex_policy(policy, str(root)))
        # Codex will not put its helpers in a TMPDIR that contains CODEX_HOME: keep them apart
        self.home = root / "codex" / "home"
        self.tmpdir = root / "codex" / "tmp"
        (self.home / "rules").mkdir(parents=True)
        self.tmpdir.mkdir(parents=True)
        config = self.home / "config.toml"
        config.write_text(merged_config(None, compiled), encoding="utf-8")
        (self.home / "rules" / "twsrt.rules").write_text(compiled.rules, encoding="utf-8")
        return config

    def run(self, shell: str, timeout: float) -> Run:
        env = _base_env(self.root)
        env.update(CODEX_HOME=str(self.home), TMPDIR=str(self.tmpdir))
        argv = [str(self.binary), "sandbox", "--", "sh", "-c", shell]
        return _run(argv, env, self.root / "work", timeout)


def make_engine(name: str) -> SrtEngine | CodexEngine:
    return SrtEngine() if name == "srt" else CodexEngine()


# ------------------------------------------------------------------ fixtures


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
    env = _base_env(root)
    env["HTTP_PROXY"] = env["http_proxy"] = upstream
    return _run(["sh", "-c", shell], env, root / "work", timeout)


def default_jobs() -> int:
    """Sandbox starts are mostly waiting; a few at once roughly halve a run on two cores."""
    return max(1, min(4, 2 * (os.cpu_count() or 1)))


def root_base() -> str:
    for base in ROOT_BASES:
        if os.path.isdir(base) and os.access(base, os.W_OK):
            return base
    return tempfile.gettempdir()
