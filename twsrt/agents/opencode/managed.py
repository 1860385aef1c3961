"""OpenCode's managed config (managed scope): the ``opencode.json`` an administrator deploys in
OpenCode's managed directory (``/etc/opencode`` on Linux; keys ``opencode_managed_linux``/
``_macos``/``_windows``, one file per OS in the managed output tree, same bytes;
``INSTALL_PATHS`` in the declaration).

The file carries the user file's ``permission`` members and ``$schema``. OpenCode 1.18.33
merges it after the user's and the project's files, so its denies hold against their allows of
the same pattern (row 17 of docs/agents/opencode-observed.md, in a private mount namespace);
it is not final: ``OPENCODE_PERMISSION`` is merged after it (row 18) and a user or project
object that has one of its patterns keeps it in its own place (TWS673). The file serves
``--auto`` launches too, whose approval of asks is reported.
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.opencode.declaration import LABEL, MANAGED_TARGETS, NAME
from twsrt.agents.opencode.settings import MEMBERS, drift_items, merged_text
from twsrt.agents.opencode.translate import translate
from twsrt.agents.opencodelayers import not_final
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import MANAGED_FILE_MODE
from twsrt.jsonedit import dump


def compile_managed(ctx: Context) -> Result:
    """One managed run: the same file at each OS's place in the managed output tree."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, True)
    findings = list(found)
    if ctx.full_access:
        what = "OpenCode has no sandbox to remove and the permission rules stay"
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))

    def preview() -> str:
        return dump(compiled.settings(), "  ")

    configured = [spec.key for spec in MANAGED_TARGETS if spec.key in ctx.config.targets]
    if not configured:
        return Result(NAME, preview, findings=findings, target_configured=False)
    findings.append(not_final(ctx.config, configured[0], NAME, LABEL, "OPENCODE"))
    files = TargetFiles(ctx.config, ctx.documents, mode=MANAGED_FILE_MODE)

    def text(disk: str | None, display: str) -> str:
        return merged_text(disk, display, compiled)

    members = MEMBERS.using(ctx.documents)
    for key in configured:
        files.add(key, ctx.config.targets[key], text, drift_items, members.view)
    return files.result(NAME, preview, findings, origins=compiled.origins)
