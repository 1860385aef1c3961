"""Gemini CLI's system layer on this machine, as the effective check sees it (host-dependent:
findings only, never an output change). Read below ``effective.host_root()``
(``$TWSRT_MANAGED_ROOT`` when set), so an administrator can check a managed tree's ``<os>/``
directory before deploying it.

Observed with Gemini CLI 0.61.0 (tests/real/test_gemini_scopes.py):

- the system settings win over the user's and the workspace's, so a system key wider than the
  policy undoes what twsrt writes into the user file (TWS635);
- ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH`` replaces the system settings file: in managed scope an
  error when it is set here (TWS634), in either scope the file it names is the one checked;
- the admin policy directory is skipped unless root-owned and not group- or world-writable
  (TWS633; checked in managed scope, where twsrt's admin file is meant to lie there).

What a user layer can still do under the managed files is no more than that: an admin deny or
ask outranks every user and workspace rule (an ``auto-saved.toml`` allow, ``tools.allowed``),
a user ``policyPaths`` replaces only the user directory, and the system settings replace the
user's sandbox keys; ``--yolo``'s network is the translation's TWS474.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.gemini.declaration import (
    NAME,
    SYSTEM_DIRS,
    SYSTEM_SETTINGS_VARIABLE,
    install_path,
)
from twsrt.agents.gemini.rules import (
    GEMINI_ADMIN_POLICIES_SKIPPED,
    GEMINI_SYSTEM_SETTINGS_MOVED,
    GEMINI_SYSTEM_SETTINGS_WIDER,
)
from twsrt.agents.gemini.translate import settings_of
from twsrt.effective import child, host_path, host_system, load_layer, report, sandbox_origin
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location

# per owned key, whether a system value is wider than what twsrt writes (``ours``)
_WIDER: dict[str, Any] = {
    "/security/toolSandboxing": lambda value, ours: value is False and ours is True,
    "/security/disableAlwaysAllow": lambda value, ours: value is False,
    "/security/enablePermanentToolApproval": lambda value, ours: value is True,
    "/tools/sandboxNetworkAccess": lambda value, ours: value is True,
    "/tools/sandboxAllowedPaths": lambda value, ours: isinstance(value, list) and bool(value),
}


def system_findings(ctx: Context) -> list[Finding]:
    """The system layer's findings for a user- or managed-scope check."""
    out: list[Finding] = []
    moved = os.environ.get(SYSTEM_SETTINGS_VARIABLE)
    if moved and ctx.config.scope == "managed":  # it escapes the managed file, not the user's
        out.append(
            finding(
                GEMINI_SYSTEM_SETTINGS_MOVED,
                f"${SYSTEM_SETTINGS_VARIABLE} is set ('{quoted(moved)}'): Gemini reads that "
                "file instead of the system settings, so a managed security.toolSandboxing "
                "does not bind",
                sandbox_origin(ctx.policy),
                agent=NAME,
            )
        )
    settings = Path(moved) if moved else host_path(_paths("settings.json"))
    config = ctx.config.confined(None)  # system files, outside any repository
    layer, problems = load_layer(settings, "json", NAME, config, ctx.documents)
    out += problems
    if layer is not None:
        ours = settings_of(ctx.sandbox_mode)
        for pointer, wider in _WIDER.items():
            section, key = pointer.strip("/").split("/")
            value = child(layer.value, section, key)
            if value is not None and wider(value, ours[section][key]):
                out.append(
                    report(
                        GEMINI_SYSTEM_SETTINGS_WIDER,
                        f"the system settings set {section}.{key} to "
                        f"{quoted(str(value))}, which wins over the user's and the "
                        "workspace's settings and is wider than the policy",
                        layer,
                        pointer,
                        NAME,
                    )
                )
    if ctx.config.scope == "managed":
        out += _policies_dir(host_path(_paths("policies")), ctx.config.display_path)
    return out


def _paths(name: str) -> dict[str, str]:
    return {system: install_path(system, name) for system in SYSTEM_DIRS}


def _policies_dir(directory: Path, display: Callable[[Path], str]) -> list[Finding]:
    """TWS633 when this machine's admin policy directory exists and Gemini would skip it (its
    POSIX check; Windows checks ACLs, which twsrt does not read)."""
    if host_system() == "windows":
        return []
    try:
        status = directory.stat()
    except OSError:
        return []  # not deployed here: nothing to check
    problems = []
    if status.st_uid != 0:
        problems.append(f"owned by uid {status.st_uid}, not root")
    if status.st_mode & 0o022:
        problems.append(f"mode {status.st_mode & 0o777:o} lets group or others write it")
    if not problems:
        return []
    return [
        finding(
            GEMINI_ADMIN_POLICIES_SKIPPED,
            f"{'; '.join(problems)}: Gemini skips every admin policy file in it",
            Location(display(directory)),
            agent=NAME,
        )
    ]
