"""pi's project file: ``.pi/sandbox.json`` under the project root (project scope, see
``twsrt.scopes``).

The user translation whole: the extension merges the project file over the global one, each
list it gives replacing the global list (pi row 9), so the project file carries every member
as the global file does, and the narrowing check (``narrowing.py``) holds the project policy
to the user's. The extension reads the file of the directory pi starts in only (TWS657). pi
has no approval modes: one file for both.
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.pi.declaration import NAME, PROJECT_KEY
from twsrt.agents.pi.rules import PI_PROJECT_LAUNCH_ROOT
from twsrt.agents.pi.settings import SETTINGS_FILE
from twsrt.agents.pi.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import launch_root_finding
from twsrt.jsonedit import dump


def compile_project(ctx: Context) -> Result:
    compiled, found = translate(ctx.policy, ctx.sandbox_mode)
    findings = list(found)
    if ctx.full_access:
        what = '"enabled": false is written, so the extension runs bash unsandboxed'
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))

    def preview() -> str:
        return dump(compiled.document, "  ")

    target = ctx.config.targets.get(PROJECT_KEY)
    if target is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    rest = "; started in a subdirectory, only the user's global file binds"
    findings.append(
        launch_root_finding(ctx.config, PROJECT_KEY, PI_PROJECT_LAUNCH_ROOT, NAME, "pi", rest)
    )
    files = TargetFiles(ctx.config, ctx.documents)
    files.settings(PROJECT_KEY, target, SETTINGS_FILE, compiled)
    return files.result(NAME, preview, findings, origins=compiled.origins)
