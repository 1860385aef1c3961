"""OpenCode's project file: ``opencode.json`` at the project root (project scope, see
``twsrt.scopes``).

The user translation's ``permission`` members, merged into the project's own file as into the
user's (JSONC kept, every byte outside the owned members kept). OpenCode 1.18.33 finds the file
from the directory it starts in up to the git root (rows 14-15 of
docs/agents/opencode-observed.md; TWS670) and merges it after the user's config key by key, so
a user rule after a pattern the project denies, ``OPENCODE_DISABLE_PROJECT_CONFIG`` and
``OPENCODE_PERMISSION`` still win over it (TWS671). ``read``/``edit`` patterns are relative to
the project already, so the same patterns serve. One file serves every launch, ``--auto``
included: the yolo losses are reported as in the user scope.
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.opencode.declaration import LABEL, NAME, PROJECT_KEY
from twsrt.agents.opencode.settings import MEMBERS, drift_items, merged_text
from twsrt.agents.opencode.translate import translate
from twsrt.agents.opencodelayers import project_findings
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.jsonedit import dump


def compile_project(ctx: Context) -> Result:
    """The project file of one run: the permission rules (the file applies to ``--auto``
    launches too, whose approval of asks is reported)."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, True)
    findings = list(found)
    if ctx.full_access:
        what = "OpenCode has no sandbox to remove and the permission rules stay"
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))

    def preview() -> str:
        return dump(compiled.settings(), "  ")

    path = ctx.config.targets.get(PROJECT_KEY)
    if path is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    findings += project_findings(ctx.config, PROJECT_KEY, NAME, LABEL, "OPENCODE")
    files = TargetFiles(ctx.config, ctx.documents)

    def text(disk: str | None, display: str) -> str:
        return merged_text(disk, display, compiled)

    members = MEMBERS.using(ctx.documents)
    files.add(PROJECT_KEY, path, text, drift_items, members.view)
    return files.result(NAME, preview, findings, origins=compiled.origins)
