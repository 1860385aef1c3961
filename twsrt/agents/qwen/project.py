"""Qwen Code's project file: ``.qwen/settings.json`` under the project root (project scope,
see ``twsrt.scopes``).

The user translation's permission rules without its execution sandbox, which Qwen ignores in a
project's settings (row 19): the sandbox is reported at the policy's write roots (TWS492) and an
``executionSandbox`` found in the file is removed (Qwen would print a warning for it). Qwen
unions the project's rules with the user's and the system's, a deny before an ask before an
allow (rows 7, 25). It reads the file only when it starts in the project root, of a folder the
user trusts when folder trust is on (rows 27, 28; TWS493); a relative path then anchors at the
root (``PROJECT_ANCHOR``, row 26). The file applies in every approval mode: no yolo twin.
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.lossy import write_roots_location
from twsrt.agents.qwen.declaration import NAME, PROJECT_KEY
from twsrt.agents.qwen.rules import QWEN_PROJECT_LAUNCH_ROOT, QWEN_PROJECT_SANDBOX_IGNORED
from twsrt.agents.qwen.settings import SETTINGS_FILE
from twsrt.agents.qwen.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import launch_root_finding
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump


def compile_project(ctx: Context) -> Result:
    """The project file of one run: the rules only (the file applies in every approval mode)."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, False, sandbox=False)
    findings = list(found)
    if ctx.full_access:
        what = "the project file carries the permission rules only"
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
    elif ctx.policy.enabled:
        findings.append(sandbox_ignored(ctx))

    def preview() -> str:  # the members the file gets: no tools section
        return dump({k: v for k, v in compiled.settings().items() if k != "tools"}, "  ")

    target = ctx.config.targets.get(PROJECT_KEY)
    if target is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    rest = (
        " (and, with folder trust on, the folder is trusted); started in a subdirectory, "
        "only the user's and system settings bind"
    )
    at_root = launch_root_finding(
        ctx.config,
        PROJECT_KEY,
        QWEN_PROJECT_LAUNCH_ROOT,
        NAME,
        "Qwen Code",
        rest,
    )
    findings.append(at_root)
    files = TargetFiles(ctx.config, ctx.documents)
    files.settings(PROJECT_KEY, target, SETTINGS_FILE, compiled)
    return files.result(NAME, preview, findings, origins=compiled.origins)


def sandbox_ignored(ctx: Context) -> Finding:
    """The policy's sandbox cannot go into a project file (TWS492), at its write roots."""
    return finding(
        QWEN_PROJECT_SANDBOX_IGNORED,
        "Qwen ignores tools.executionSandbox in a project's settings (it honours it only from "
        "the user and system settings), so the project file does not confine writes to the "
        "policy's write roots or close the network: it enforces less than the policy; the "
        "user or system settings must carry the sandbox",
        write_roots_location(ctx.policy),
        agent=NAME,
    )
