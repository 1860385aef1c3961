"""OpenCode target: ``~/.config/opencode/opencode.json``, with ``permission``'s members that
twsrt owns spliced into the user's file (JSONC kept) and every other byte kept (a new file is
written 0600).

twsrt owns ``permission.bash``, ``read``, ``edit``, ``external_directory``, ``webfetch``,
``websearch`` and a missing top-level ``$schema``. One file serves every launch, with or without
``--auto`` (OpenCode reads no per-mode file), so both approval modes compile the same bytes and
the yolo-only loss is a finding. The package: ``declaration`` (key, layers, owned members),
``rules``, ``translate`` (the pure translation, shared with Kilo), ``settings`` (the merge),
``effective`` (the user's keys and the layers beside twsrt's that grant more); this module
compiles one run.
"""

from __future__ import annotations

from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.opencode.declaration import AGENT_SPEC, NAME, SETTINGS_KEY
from twsrt.agents.opencode.settings import MEMBERS, drift_items, merged_text
from twsrt.agents.opencode.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.jsonedit import dump


class OpenCodeAgent(DeclaredAgent):
    spec = AGENT_SPEC
    # the project's opencode.json
    scoped = {
        "managed": "twsrt.agents.opencode.managed:compile_managed",
        "project": "twsrt.agents.opencode.project:compile_project",
    }

    def compile_user(self, ctx: Context) -> Result:
        compiled, found = translate(ctx.policy, ctx.sandbox_mode, ctx.yolo)
        findings = list(found)
        if ctx.full_access:
            what = "OpenCode has no sandbox to remove and the permission rules stay"
            findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
        path = ctx.config.targets.get(SETTINGS_KEY)

        def preview() -> str:
            return dump(compiled.settings(), "  ")

        if path is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        files = TargetFiles(ctx.config, ctx.documents)

        def text(disk: str | None, display: str) -> str:
            return merged_text(disk, display, compiled)

        members = MEMBERS.using(ctx.documents)
        files.add(SETTINGS_KEY, path, text, drift_items, members.view)
        return files.result(NAME, preview, findings, origins=compiled.origins)


AGENT = OpenCodeAgent()
