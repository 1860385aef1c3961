"""Drive the real GitHub Copilot CLI (pinned 1.0.102) for the tests in tests/real.

What Copilot CLI 1.0.102 does offline, with no token anywhere (found by running it):

- flags_verdict: `copilot <flags> -p x </dev/null` parses and validates every
  --allow-tool / --deny-tool / --allow-url / --deny-url value *before* it looks
  for credentials. A bad value ends the run at once with "Invalid --deny-tool
  value. Error: Invalid rule format: ..." (or "Invalid --allow-url value.
  Error: Invalid URL pattern: ..."), a value starting with "-" with "error:
  Invalid command format."; accepted flags end it with "Error: No
  authentication information found." (exit 1, ~4 s, nothing sent anywhere).
- config_list: `COPILOT_HOME=DIR copilot config --list --json` prints the
  user settings as loaded from DIR/settings.json. A value of the wrong type or
  an invalid sandbox host rule (a port, a URL, "*.*.x") makes Copilot drop the
  *whole* file and print {} (a log line is the only trace); unknown keys inside
  `sandbox` are silently stripped. So callers compare, never trust exit codes.
- sandbox_schema: the first run unpacks the CLI's package, including
  schemas/api.schema.json (draft 2019-09), into
  $XDG_CACHE_HOME/copilot/pkg/<platform>/<version>/; `definitions.SandboxConfig`
  is the shape of the `sandbox` settings key (additionalProperties: false).

- bash: with ``COPILOT_OFFLINE=true`` and ``COPILOT_PROVIDER_TYPE=anthropic`` pointed at the
  fake Messages API of tests/real/claude_client.py (BYOK: no GitHub token, nothing leaves the
  machine), ``copilot -p ... --allow-all-tools`` runs the fake model's calls of its ``bash``
  tool in its own sandbox, as configured by ``$COPILOT_HOME/settings.json``. Copilot grants
  ``/tmp`` to every sandboxed command, so the trees a test probes lie below /var/tmp.

Every run gets a scratch HOME, COPILOT_HOME and XDG_CACHE_HOME (the cache is
shared within one test session: unpacking costs ~2 s and ~235 MB), an
environment built from scratch (no *_TOKEN, no proxy), and auto-update off.
Install the CLI with .ci/install-copilot.sh.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from support.tools import locate_tool, require_tool

COPILOT_VERSION = "1.0.102"
ENV_VAR = "TWSRT_COPILOT_BIN"
DEFAULT_BIN = "/opt/twsrt-tools/copilot/bin/copilot"
TIMEOUT_S = 120
ACCEPTED = "No authentication information found"
REJECTED = ("Invalid ", "error:")


def copilot_bin() -> str:
    """Path of the Copilot CLI: $TWSRT_COPILOT_BIN, else the install script's
    wrapper, else `copilot` on PATH. Skips the test if none is there (fails it
    when TWSRT_REQUIRE_REAL_TOOLS=1)."""
    return require_tool("copilot", locate_tool("copilot", ENV_VAR, DEFAULT_BIN))


class Copilot:
    """One CLI binary plus the package cache it unpacks into (kept for a session)."""

    def __init__(self, binary: str, cache: Path) -> None:
        self.binary = binary
        self.cache = cache
        self._schema: dict[str, Any] | None = None
        self._validator: Any = None

    def _env(self, home: Path, copilot_home: Path) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": str(home),
            "COPILOT_HOME": str(copilot_home),
            "XDG_CACHE_HOME": str(self.cache),
            "COPILOT_AUTO_UPDATE": "false",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
        }

    def run(
        self, argv: Sequence[str], settings_text: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`copilot *argv` in a scratch home, with settings_text as its settings.json."""
        with tempfile.TemporaryDirectory(prefix="twsrt-copilot-") as tmp:
            root = Path(tmp)
            home, copilot_home, work = root / "home", root / "copilot-home", root / "work"
            for directory in (home, copilot_home, work):
                directory.mkdir()
            if settings_text is not None:
                (copilot_home / "settings.json").write_text(settings_text, encoding="utf-8")
            try:
                return subprocess.run(
                    [self.binary, *argv],
                    cwd=work,
                    env=self._env(home, copilot_home),
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT_S,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise RuntimeError(f"could not run copilot {list(argv[:3])}: {exc}") from exc

    def bash(
        self,
        settings: dict[str, Any],
        commands: Sequence[str],
        home: Path,
        cwd: Path,
        args: Sequence[str] = (),
    ) -> list[str | None]:
        """Start ``copilot -p`` in ``cwd`` with ``settings`` as ``home/.copilot/settings.json``
        and have the fake model run ``commands`` through its bash tool, one call each; each
        command's tool result (None: never ran). RuntimeError when Copilot could not be
        driven."""
        from .claude_client import Script, fake_messages_api

        copilot_home = home / ".copilot"
        copilot_home.mkdir(parents=True, exist_ok=True)
        (copilot_home / "settings.json").write_text(json.dumps(settings, indent=2), "utf-8")
        inputs = [{"command": c, "description": f"probe {i}"} for i, c in enumerate(commands)]
        script = Script([], tool="bash", inputs=inputs)
        argv = [self.binary, "-p", "Run the scripted commands.", "--allow-all-tools", *args]
        with fake_messages_api(script) as url:
            env = {
                **self._env(home, copilot_home),
                "COPILOT_OFFLINE": "true",
                "COPILOT_PROVIDER_BASE_URL": url,
                "COPILOT_PROVIDER_TYPE": "anthropic",
                "COPILOT_PROVIDER_API_KEY": "dummy-key-for-a-local-fake",
                "COPILOT_MODEL": "claude-sonnet-4.5",
            }
            try:
                proc = subprocess.run(
                    argv,
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT_S,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                raise RuntimeError(f"copilot -p timed out after {TIMEOUT_S}s") from exc
        if not script.requests:
            raise RuntimeError(f"copilot never called the fake API:\n{proc.stdout}{proc.stderr}")
        return script.outputs()

    def flags_verdict(self, flags: Sequence[str]) -> tuple[bool, str]:
        """Does Copilot accept these launch flags? (ok, output); raises RuntimeError when
        the output is neither verdict."""
        proc = self.run([*flags, "-p", "x"])
        out = proc.stdout + proc.stderr
        if any(line.startswith(REJECTED) for line in out.splitlines()):
            return False, out
        if ACCEPTED in out:
            return True, out
        raise RuntimeError(f"unexpected `copilot -p` output (exit {proc.returncode}):\n{out}")

    def config_list(self, settings_text: str) -> dict[str, Any]:
        """The user settings as Copilot loads them from this settings.json text."""
        proc = self.run(["config", "--list", "--json"], settings_text)
        if proc.returncode != 0:
            raise RuntimeError(f"`copilot config --list` failed:\n{proc.stdout}{proc.stderr}")
        try:
            loaded = json.loads(proc.stdout)
        except json.JSONDecodeError as exc:
            raise RuntimeError(f"`copilot config --list --json` printed:\n{proc.stdout}") from exc
        if not isinstance(loaded, dict):
            raise RuntimeError(f"unexpected `copilot config --list --json` output: {loaded!r}")
        return loaded

    def api_schema(self) -> dict[str, Any]:
        """Copilot's own api.schema.json, unpacked on first run."""
        if self._schema is None:
            self._schema = self._load_schema()
        return self._schema

    def _load_schema(self) -> dict[str, Any]:
        found = sorted(self.cache.glob(f"copilot/pkg/*/{COPILOT_VERSION}/schemas/api.schema.json"))
        if not found:
            proc = self.run(["--version"])
            if COPILOT_VERSION not in proc.stdout:
                raise RuntimeError(f"`copilot --version` printed:\n{proc.stdout}{proc.stderr}")
            found = sorted(
                self.cache.glob(f"copilot/pkg/*/{COPILOT_VERSION}/schemas/api.schema.json")
            )
        if not found:
            raise RuntimeError(f"no api.schema.json for {COPILOT_VERSION} under {self.cache}")
        return json.loads(found[0].read_text(encoding="utf-8"))

    def sandbox_errors(self, sandbox: Any) -> list[str]:
        """Every way `sandbox` breaks the SandboxConfig schema Copilot ships ([] = valid)."""
        if self._validator is None:
            from jsonschema import Draft201909Validator

            schema = self.api_schema()
            self._validator = Draft201909Validator(
                {
                    "$schema": schema.get("$schema"),
                    "definitions": schema["definitions"],
                    "$ref": "#/definitions/SandboxConfig",
                }
            )
        return sorted(
            f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
            for error in self._validator.iter_errors(sandbox)
        )
