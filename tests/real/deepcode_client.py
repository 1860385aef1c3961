"""Run DeepCode's own Linux sandbox code, and the real bubblewrap, for the tests in tests/real.

DeepCode (oratis/deepcode) is not installable here, but the part of it that turns
``settings.sandbox`` into a sandbox is plain TypeScript: ``resolveSandboxMode`` and
``sandboxConfigForMode`` (``sandbox/policy.ts``) and ``buildLinuxBwrapArgs``
(``sandbox/profile.ts``), shipped unmodified with the product in ``twsrt/agents/deepcode/sandbox/``
(MIT) for the ``deepcode`` engine of ``twsrt test``. Two steps:

- ``deepcode_plan(settings, cwd)`` is the product's ``twsrt.agents.deepcode.engine.deepcode_plan``
  with the test's Node: it runs DeepCode's code with Node >= 22.6 (``--experimental-strip-types``,
  cwd = the workspace), which resolves the mode from ``settings["sandbox"]`` and builds the
  bubblewrap arguments exactly as its Bash tool does for a command run in that workspace.
- ``run_sandboxed(args, cmd, cwd, env)`` runs ``bwrap ARGS -- sh -c CMD`` with the real
  bubblewrap, or ``sh -c CMD`` plainly when ARGS is empty (DeepCode builds no sandbox then,
  and runs the command as is).

What this proves: what a command can actually read, write and reach under the sandbox
DeepCode builds on Linux from a given settings file (mode resolution, binds, bind order,
``--unshare-net``) - observed, not inferred from the arguments.

What it cannot prove:

- macOS: ``buildMacOsProfile`` and Seatbelt (``sandbox-exec``) are not run; denyRead/denyWrite,
  the credential-store denies and the read-everything default exist only there.
- the Linux domain allow-list: a non-empty ``allowedDomains`` goes through a DNS proxy and
  slirp4netns (``netns.ts``, ``dns-proxy.ts``, wired in the Bash tool), which are not
  vendored; without a ``dnsProxyPort`` ``buildLinuxBwrapArgs`` gives such a list full network.
  Only ``[]`` (no network) and an absent list (full network) are faithful here.
- DeepCode's layers above the sandbox: the permission rules (``permissions.deny/ask``),
  ``excludedCommands``, ``additionalDirectories``, linked-worktree git dirs, settings-layer
  merging and ``--sandbox`` overrides (``withSandboxMode``) are not exercised; the caller hands
  in the final ``sandbox`` object.
- the environment DeepCode gives the command: the caller picks ``env``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from support.tools import REQUIRE_ENV, locate_tool, require_tool

from twsrt.agents.deepcode import engine as engine_deepcode

NODE_ENV_VAR = engine_deepcode.NODE_ENV
NODE_DEFAULT = engine_deepcode.NODE_DEFAULT  # .ci/install-srt.sh
NODE_MIN = engine_deepcode.NODE_MIN
BWRAP_ENV_VAR = engine_deepcode.BWRAP_ENV
BWRAP_DEFAULT = engine_deepcode.BWRAP_DEFAULT
TIMEOUT_S = 60


def node_bin() -> str:
    """Path of a Node >= 22.6: $TWSRT_NODE22_BIN, else the one .ci/install-srt.sh installs, else
    `node` on PATH. An older Node counts as missing: the test is skipped (failed when
    TWSRT_REQUIRE_REAL_TOOLS=1)."""
    path = require_tool("node", locate_tool("node", NODE_ENV_VAR, NODE_DEFAULT))
    version = engine_deepcode.node_version(path)
    if version is None or version[:2] < NODE_MIN:
        found = ".".join(map(str, version)) if version else "an unknown version"
        msg = f"{path} is Node {found}; DeepCode's .ts sources need Node >= 22.6 (strip-types)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{msg} ({REQUIRE_ENV}=1 requires it)", pytrace=False)
        pytest.skip(f"{msg} (set ${NODE_ENV_VAR} or run .ci/install-srt.sh)")
    return path


def bwrap_bin() -> str:
    """Path of bubblewrap: $TWSRT_BWRAP_BIN, else /usr/bin/bwrap, else `bwrap` on PATH."""
    return require_tool("bwrap", locate_tool("bwrap", BWRAP_ENV_VAR, BWRAP_DEFAULT))


def deepcode_plan(
    settings: Mapping[str, Any], cwd: str | Path, *, node: str | None = None
) -> tuple[str, list[str]]:
    """DeepCode's sandbox code on ``settings["sandbox"]`` with the workspace ``cwd`` (the
    product's function; ``node`` defaults to ``node_bin()``). Returns (the resolved mode, the
    bubblewrap arguments; [] = unsandboxed); RuntimeError if Node fails."""
    return engine_deepcode.deepcode_plan(settings, cwd, node or node_bin())


def run_sandboxed(
    args: list[str],
    cmd: str,
    cwd: str | Path,
    env: Mapping[str, str],
    *,
    bwrap: str | None = None,
    timeout: float = TIMEOUT_S,
) -> tuple[int, str]:
    """Run ``sh -c cmd`` in cwd the way DeepCode would with these bubblewrap arguments:
    ``bwrap ARGS -- sh -c cmd`` (``bwrap`` defaults to ``bwrap_bin()``), or plainly when ARGS is
    empty. Returns (exit code, stdout and stderr interleaved); the exit code is the command's
    (bubblewrap passes it through, and exits 1 itself when it cannot set the sandbox up)."""
    shell = ["sh", "-c", cmd]
    argv = [bwrap or bwrap_bin(), *args, "--", *shell] if args else shell
    try:
        proc = subprocess.run(
            argv,
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
        raise RuntimeError(f"could not run {argv[:2]}: {exc}") from exc
    return proc.returncode, proc.stdout
