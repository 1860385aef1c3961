"""pi: what its sandbox extension loads beside the file twsrt writes, and what on this machine
makes the file not apply. Observed with pi 1.4.0 and its sandbox extension (srt 0.0.26;
docs/agents/pi-droid-observed.md, pi rows):

- a ``.pi/sandbox.json`` in the directory pi starts in is merged over the global file, each
  list it gives replacing the global one whole, and ``enabled: false`` turns the sandbox off
  (rows 9, 10; TWS650), checked in the directory twsrt runs in and at the repository's top;
- ``$PI_CODING_AGENT_DIR`` moves the agent directory, and the global file with it (row 2;
  TWS651), checked in this environment;
- srt cannot start without bwrap, socat and rg, and the extension then runs bash unsandboxed
  (row 11; TWS652), checked on this machine when pi's agent directory is here;
- a target that is not ``extensions/sandbox.json`` is ignored (row 1; TWS653);
- what a command can still plant below the top of a write root (TWS654, TWS655);
- ``defaultProjectTrust: "always"`` in the agent directory's ``settings.json`` loads every
  project's extensions unasked (TWS656).

Findings only: nothing here changes what ``generate`` writes.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.lossy import write_roots_location
from twsrt.agents.pi.declaration import (
    AGENT_DIR_VARIABLE,
    ENABLED,
    FILESYSTEM,
    IGNORE_VIOLATIONS,
    NAME,
    NESTED,
    NETWORK,
    PROJECT_FILE,
    SANDBOX_KEY,
    SANDBOX_TOOLS,
)
from twsrt.agents.pi.rules import (
    PI_AGENT_DIR_MOVED,
    PI_LEGACY_SANDBOX_FILE,
    PI_NESTED_UNPROTECTED,
    PI_PLANTED_LAYERS,
    PI_PROJECT_SANDBOX_FILE,
    PI_PROJECT_TRUST_ALWAYS,
    PI_SANDBOX_CANNOT_START,
)
from twsrt.effective import Layer, load_layer, report
from twsrt.findings import Finding, TwsrtError, finding, quoted
from twsrt.locations import Location, git_root, home_dir

DENY_LISTS = {"denyRead", "denyWrite", "deniedDomains"}
ALLOW_LISTS = {"allowWrite", "allowedDomains"}


def findings(ctx: Context) -> list[Finding]:
    if ctx.config.scope != "user":
        return []
    target = ctx.config.targets.get(SANDBOX_KEY)
    if target is None:
        return []
    where = ctx.config.location(f"/targets/{SANDBOX_KEY}")
    out: list[Finding] = []
    if (target.parent.name, target.name) != ("extensions", "sandbox.json"):
        out.append(
            finding(
                PI_LEGACY_SANDBOX_FILE,
                f"pi's sandbox extension reads <agent dir>/extensions/sandbox.json, not "
                f"{ctx.config.display_path(target)}: unless a link puts the file there, pi "
                "applies the extension's defaults (writes to /tmp, npm, PyPI and GitHub hosts)",
                where,
                agent=NAME,
            )
        )
    out += _agent_dir(where)
    out += _sandbox_tools(where)
    out += _project_files(ctx)
    out += _between_launches(ctx)
    out += _trust(ctx, target)
    return out


def _trust(ctx: Context, target: Path) -> list[Finding]:
    """TWS656: the user settings beside the target's directory (``<agent dir>/settings.json``)
    that trust every project."""
    settings = target.parent.parent / "settings.json"
    layer, out = load_layer(settings, "json", NAME, ctx.config, ctx.documents)
    if layer is not None and layer.value.get("defaultProjectTrust") == "always":
        message = (
            'defaultProjectTrust "always" loads every project\'s .pi/extensions/ without '
            "asking, also headless: their code runs in pi's process, outside the sandbox"
        )
        out.append(report(PI_PROJECT_TRUST_ALWAYS, message, layer, "/defaultProjectTrust", NAME))
    return out


def _between_launches(ctx: Context) -> list[Finding]:
    """TWS654 once at the write roots, TWS655 at every write root but the launch directory:
    what a command can still plant below the top of a root (srt skips glob write denies)."""
    policy = ctx.policy
    if not policy.enabled or ctx.full_access or ctx.read_only:
        return []
    roots = [root for root in policy.allow_write if not root.glob]
    if not roots:
        return []
    out = [
        finding(
            PI_PLANTED_LAYERS,
            "a sandboxed command can create .pi/sandbox.json (or .pi/settings.json, "
            ".pi/extensions/) in any subdirectory of a write root, and a pi started there "
            "later obeys it: enabled false runs its bash unsandboxed; twsrt denies .pi at the "
            "top of each root only, as srt 0.0.26 skips glob write denies on Linux",
            write_roots_location(policy),
            agent=NAME,
        )
    ]
    out += [
        finding(
            PI_NESTED_UNPROTECTED,
            f"below the top of write root '{quoted(root.path)}', pi's sandbox lets a command "
            "create or change what srt protects in the launch directory only: a nested "
            "repository's .git/hooks and .git/config, .vscode/, .idea/, shell rc files, "
            ".gitconfig, .gitmodules, .ripgreprc, .mcp.json, which git, an editor or a shell "
            "runs later outside any sandbox; keep other repositories out of the write root, or "
            "suppress with that reason",
            root.origin,
            agent=NAME,
        )
        for root in roots
        if root.path not in (".", "./")
    ]
    return out


def _agent_dir(where: Location) -> list[Finding]:
    moved = os.environ.get(AGENT_DIR_VARIABLE)
    if not moved:
        return []
    usual = home_dir() / ".pi" / "agent"
    if os.path.realpath(moved) == os.path.realpath(usual):
        return []
    return [
        finding(
            PI_AGENT_DIR_MOVED,
            f"${AGENT_DIR_VARIABLE} is set to '{quoted(moved)}' here: pi started in this "
            "environment reads its sandbox file from there, not the one twsrt writes, and "
            "applies the extension's defaults",
            where,
            agent=NAME,
        )
    ]


def _sandbox_tools(where: Location) -> list[Finding]:
    """The tools srt needs on Linux, on a machine that runs pi (its agent directory is here)."""
    if not sys.platform.startswith("linux"):
        return []
    agent_dir = Path(os.environ.get(AGENT_DIR_VARIABLE) or home_dir() / ".pi" / "agent")
    if not agent_dir.is_dir():
        return []
    missing = [tool for tool in SANDBOX_TOOLS if shutil.which(tool) is None]
    if not missing:
        return []
    return [
        finding(
            PI_SANDBOX_CANNOT_START,
            f"srt cannot start on this machine (no {', '.join(missing)} on PATH): pi's sandbox "
            "extension runs every bash command here unsandboxed, and headless it says nothing",
            where,
            agent=NAME,
        )
    ]


def _project_files(ctx: Context) -> list[Finding]:
    """TWS650 for each ``.pi/sandbox.json`` pi would merge over twsrt's file: in the directory
    twsrt runs in and at the top of the repository it checks."""
    from twsrt.agents.pi.translate import translate

    try:
        compiled, _ = translate(ctx.policy, ctx.sandbox_mode)
    except TwsrtError:
        return []  # the compile reports the disabled sandbox
    dirs: list[Path] = []
    for base in (Path.cwd(), git_root(ctx.config.path)):
        if base is not None and os.path.realpath(base) not in map(os.path.realpath, dirs):
            dirs.append(base)
    out: list[Finding] = []
    confine = ctx.config.confine_root
    for base in dirs:
        path = base / PROJECT_FILE
        if confine is not None and not _inside(path, confine):
            continue
        layer, problems = load_layer(path, "json", NAME, ctx.config, ctx.documents)
        out += problems
        if layer is not None:
            out += _widening(layer, compiled.document)
    return out


def _inside(path: Path, root: Path) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip("/") + "/")


def _widening(layer: Layer, ours: dict[str, Any]) -> list[Finding]:
    """Each key of a project file that gives pi more than twsrt's file: ``enabled: false``, a
    deny list that drops an entry, an allow list that adds one, any other key srt takes."""
    value = layer.value
    out: list[Finding] = []

    def say(pointer: str, what: str) -> None:
        message = f"{layer.display} is merged over twsrt's pi sandbox file: {what}"
        out.append(report(PI_PROJECT_SANDBOX_FILE, message, layer, pointer, NAME))

    if value.get(ENABLED) is False:
        say(f"/{ENABLED}", "enabled false turns the sandbox off, so bash runs unsandboxed")
    for section in (NETWORK, FILESYSTEM):
        part = value.get(section)
        if part is None:
            continue
        if not isinstance(part, dict):
            say(f"/{section}", f"{section} replaces the whole section")
            continue
        for key, given in part.items():
            what = _member(section, key, given, ours[section])
            if what:
                say(f"/{section}/{key}", what)
    if value.get(IGNORE_VIOLATIONS) not in (None, {}):
        say(f"/{IGNORE_VIOLATIONS}", "ignoreViolations reaches srt")
    if value.get(NESTED) is True:
        say(f"/{NESTED}", "enableWeakerNestedSandbox weakens srt's isolation")
    return out


def _member(section: str, key: str, given: Any, mine: dict[str, Any]) -> str:
    """What one member of a project file's section gives beyond twsrt's ("" nothing)."""
    if key in DENY_LISTS and isinstance(given, list):
        dropped = [entry for entry in mine.get(key, []) if entry not in given]
        return f"its {key} replaces twsrt's and leaves out {_few(dropped)}" if dropped else ""
    if key in ALLOW_LISTS and isinstance(given, list):
        added = [entry for entry in given if entry not in mine.get(key, [])]
        return f"its {key} replaces twsrt's and adds {_few(added)}" if added else ""
    if given in (None, False, [], {}):
        return ""
    return f"{section}.{key} reaches srt, which the policy does not ask for"


def _few(entries: list[Any]) -> str:
    shown = ", ".join(f"'{quoted(str(entry))}'" for entry in entries[:3])
    more = len(entries) - 3
    return shown + (f" and {more} more" if more > 0 else "")
