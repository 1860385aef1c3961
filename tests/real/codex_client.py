"""Drive the real OpenAI Codex CLI (pinned 0.171.0) for the tests in tests/real.

Three checks, each in a throwaway CODEX_HOME so nothing of the user's leaks in:

- config_loads: `codex --strict-config exec --skip-git-repo-check -` with empty
  stdin. Codex loads config.toml (and rules/*.rules) first and only then
  notices there is no prompt: "No prompt provided via stdin." (exit 1) means
  the files were accepted; an "Error loading config.toml:", "Error loading
  rules:" or "Error: ..." line means they were rejected (also exit 1).
  No model is contacted.
- execpolicy_decision: `codex execpolicy check --rules FILE -- CMD...`, which
  prints one JSON object: {"matchedRules": [...], "decision": "forbidden"};
  "decision" is absent when no rule matches.
- sandbox_run: `codex sandbox -- sh -c CMD` runs CMD under the Linux sandbox
  (bubblewrap) with the permission profile that config.toml selects; its exit
  code is CMD's (or 1 when Codex itself fails, e.g. on a bad profile).
- doctor_report: `codex doctor --json`, the profile Codex selects and the
  startup warnings of the config layers it loads.

config_loads, sandbox_run and doctor_report start Codex in a directory of the
caller's choice: a trusted project's layer (`.codex/config.toml`,
`.codex/rules/`) above it loads too.

Codex refuses to put its helper aliases under the temp dir when CODEX_HOME is
inside it, so every run gets a layout ROOT/{codex-home,tmp,...} with
TMPDIR=ROOT/tmp beside, not above, CODEX_HOME. The environment is built from
scratch (no OPENAI_*/CODEX_* or proxy variables, no RUST_BACKTRACE).
Install the CLI with .ci/install-codex.sh.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from support.tools import locate_tool, require_tool

from twsrt.agents.codex.engine import PLACEHOLDER_RACE

CODEX_VERSION = "0.171.0"
ENV_VAR = "TWSRT_CODEX_BIN"
DEFAULT_BIN = "/opt/twsrt-tools/codex/bin/codex"
TIMEOUT_S = 120
PROFILE_RULES_NAME = "twsrt.rules"
NO_MATCH = ""  # execpolicy_decision's value when no rule matches

_ACCEPTED = "No prompt provided"


def codex_bin() -> str:
    """Path of the Codex CLI: $TWSRT_CODEX_BIN, else the install script's
    wrapper, else `codex` on PATH. Skips the test if none is there (fails it
    when TWSRT_REQUIRE_REAL_TOOLS=1)."""
    return require_tool("codex", locate_tool("codex", ENV_VAR, DEFAULT_BIN))


def _env(codex_home: Path, tmpdir: Path, home: str | Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "TMPDIR": str(tmpdir),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
    }


def _layout(root: Path, config_toml_text: str | None = None) -> tuple[Path, Path]:
    """Create ROOT/codex-home (with config.toml if given) and ROOT/tmp."""
    codex_home = root / "codex-home"
    tmpdir = root / "tmp"
    codex_home.mkdir()
    tmpdir.mkdir()
    if config_toml_text is not None:
        (codex_home / "config.toml").write_text(config_toml_text, encoding="utf-8")
    return codex_home, tmpdir


def _run(
    argv: Sequence[str], env: Mapping[str, str], cwd: str | Path, timeout: float
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(argv),
            cwd=str(cwd),
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"could not run {argv[:3]}: {exc}") from exc


def config_loads(
    codex: str,
    config_toml_text: str,
    rules_text: str | None = None,
    *,
    cwd: str | Path | None = None,
    home: str | Path | None = None,
) -> tuple[bool, str]:
    """Does Codex (with --strict-config) accept this config.toml and, if given,
    this rules file as $CODEX_HOME/rules/twsrt.rules? Returns (ok, output).
    Raises RuntimeError if the output is neither verdict. ``cwd`` (default: an
    empty directory) is where Codex starts, so the project layers above it load
    too; ``home`` is $HOME (default: an empty directory).

    Note what this cannot see: unknown keys inside [permissions.<name>] are
    ignored even under --strict-config, and some checks only run when a
    sandbox is built (an unbounded glob from `/`, a relative unix socket
    path) - sandbox_run reports those."""
    with tempfile.TemporaryDirectory(prefix="twsrt-codex-") as tmp:
        root = Path(tmp)
        codex_home, tmpdir = _layout(root, config_toml_text)
        if rules_text is not None:
            (codex_home / "rules").mkdir()
            (codex_home / "rules" / PROFILE_RULES_NAME).write_text(rules_text, encoding="utf-8")
        if home is None:
            home = root / "home"
            home.mkdir()
        work = root / "work"
        work.mkdir()
        argv = [codex, "--strict-config", "exec", "--skip-git-repo-check", "-"]
        out = _run(argv, _env(codex_home, tmpdir, home), cwd or work, TIMEOUT_S).stdout
    if any(line.startswith("Error") for line in out.splitlines()):
        return False, out
    if _ACCEPTED in out:
        return True, out
    raise RuntimeError(f"unexpected `codex exec` output:\n{out}")


def doctor_report(
    codex: str, config_toml_text: str, cwd: str | Path, home: str | Path
) -> dict[str, Any]:
    """`codex doctor --json` started in ``cwd``: the checks it makes of the config it loads
    (``checks["config.load"]["details"]["startup warning"]``: e.g. the project-local keys it
    ignores; ``checks["sandbox.filesystem_paths"]["details"]["permission profile"]``: the
    profile it selects). Nothing is contacted that a test depends on; raises RuntimeError when
    no report is printed."""
    with tempfile.TemporaryDirectory(prefix="twsrt-codex-") as tmp:
        codex_home, tmpdir = _layout(Path(tmp), config_toml_text)
        argv = [codex, "doctor", "--json"]
        out = _run(argv, _env(codex_home, tmpdir, home), cwd, TIMEOUT_S).stdout
    start, end = out.find("{"), out.rfind("}")
    try:
        report = json.loads(out[start : end + 1])
    except json.JSONDecodeError as exc:
        raise RuntimeError(f"`codex doctor --json` printed no report:\n{out}") from exc
    if not isinstance(report, dict) or not isinstance(report.get("checks"), dict):
        raise RuntimeError(f"unexpected `codex doctor --json` output:\n{out}")
    return report


def execpolicy_check(codex: str, rules_text: str, argv: Sequence[str]) -> dict[str, Any]:
    """The JSON result of `codex execpolicy check` for one command.
    Raises RuntimeError if the rules do not load (Codex exits non-zero)."""
    if not argv:
        raise ValueError("argv must name a command")
    with tempfile.TemporaryDirectory(prefix="twsrt-codex-") as tmp:
        root = Path(tmp)
        codex_home, tmpdir = _layout(root)
        rules = root / PROFILE_RULES_NAME
        rules.write_text(rules_text, encoding="utf-8")
        cmd = [codex, "execpolicy", "check", "--rules", str(rules), "--", *argv]
        try:
            proc = subprocess.run(
                cmd,
                cwd=root,
                env=_env(codex_home, tmpdir, root),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"could not run `codex execpolicy check`: {exc}") from exc
    if proc.returncode != 0:
        raise RuntimeError(f"`codex execpolicy check` failed ({proc.returncode}):\n{proc.stderr}")
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise RuntimeError(f"`codex execpolicy check` printed no JSON:\n{proc.stdout}") from exc
    if not isinstance(result, dict):
        raise RuntimeError(f"unexpected `codex execpolicy check` output: {proc.stdout}")
    return result


def execpolicy_decision(codex: str, rules_text: str, argv: Sequence[str]) -> str:
    """The effective decision ("allow" | "prompt" | "forbidden") that the
    rules give the command argv, or NO_MATCH ("") when no rule matches."""
    decision = execpolicy_check(codex, rules_text, argv).get("decision", NO_MATCH)
    return str(decision)


# Codex keeps a placeholder on the host for each missing read-only entry of the profile while a
# sandbox runs; two starting at once race with its mounts and one fails to start. A run that
# failed so is started again, at most twice, on the messages twsrt test's Codex engine retries
# (which tries four times).
def raced(returncode: int, output: str) -> bool:
    """Whether a Codex sandbox failed to start on a placeholder race (bwrap's own message)."""
    return returncode != 0 and "bwrap:" in output and any(t in output for t in PLACEHOLDER_RACE)


def sandbox_run(
    codex: str,
    config_toml_text: str,
    shell_command: str,
    cwd: str | Path,
    home: str | Path,
    *,
    timeout: float = TIMEOUT_S,
    profile: str | None = None,
    extra_files: Mapping[str, str] | None = None,
) -> tuple[int, str]:
    """Run `sh -c shell_command` in cwd under `codex sandbox`, with
    config_toml_text as $CODEX_HOME/config.toml and HOME=home; ``extra_files``
    are written into $CODEX_HOME too (profile files such as ``wide.config.toml``)
    and ``profile`` selects one with `--profile`.
    Returns (exit code, stdout and stderr interleaved)."""
    with tempfile.TemporaryDirectory(prefix="twsrt-codex-") as tmp:
        codex_home, tmpdir = _layout(Path(tmp), config_toml_text)
        for name, text in (extra_files or {}).items():
            (codex_home / name).write_text(text, encoding="utf-8")
        selected = ["--profile", profile] if profile else []
        argv = [codex, *selected, "sandbox", "--", "sh", "-c", shell_command]
        for attempt in range(3):
            proc = _run(argv, _env(codex_home, tmpdir, home), cwd, timeout)
            if attempt == 2 or not raced(proc.returncode, proc.stdout):
                break
    return proc.returncode, proc.stdout


# ------------------------------------------------------------ a local upstream for network probes

UPSTREAM_BODY = "twsrt-upstream-ok"


class _Upstream(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = UPSTREAM_BODY.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_upstream() -> contextlib.AbstractContextManager[int]:
    """An HTTP server on 127.0.0.1 (outside the sandbox); yields its port."""
    return serve(_Upstream)


@contextmanager
def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """A threaded HTTP server with ``handler`` on 127.0.0.1; yields its port, stops on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# Runs inside the sandbox: one GET through whatever proxy the environment names
# (or none, with `direct`), printing one JSON line.
FETCH_SCRIPT = r"""
import json, sys, urllib.error, urllib.request
url, mode = sys.argv[1], sys.argv[2]
handlers = [urllib.request.ProxyHandler({})] if mode == "direct" else []
res = {}
try:
    with urllib.request.build_opener(*handlers).open(url, timeout=20) as r:
        res = {"status": r.status, "body": r.read().decode()}
except urllib.error.HTTPError as e:
    res = {"status": e.code, "xpe": e.headers.get("x-proxy-error"), "body": e.read().decode()}
except OSError as e:
    res = {"error": str(e)}
print("FETCH " + json.dumps(res))
"""
