"""Qwen Code target: ``~/.qwen/settings.json``, with the members twsrt owns spliced into the
user's file and every other byte kept (a new file is written 0600).

twsrt owns ``permissions.deny``, ``permissions.ask``, ``permissions.allow``,
``tools.executionSandbox`` and the top-level ``"$version"``. One file serves every launch, with
or without ``--yolo`` (Qwen reads no per-mode file), so both approval modes compile the same
bytes and the yolo-only loss is a finding. The package: ``declaration`` (key, layers, owned
members), ``rules``, ``translate`` (the pure translation), ``settings`` (the owned members and
their merge), ``project`` and ``managed`` (the other two scopes), ``effective`` (the user's keys
beside twsrt's that grant more); this module compiles one run.
"""

from __future__ import annotations

from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.qwen.declaration import AGENT_SPEC, NAME, SETTINGS_KEY
from twsrt.agents.qwen.settings import SETTINGS_FILE
from twsrt.agents.qwen.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.jsonedit import dump


class QwenAgent(DeclaredAgent):
    spec = AGENT_SPEC
    # the project's .qwen/settings.json; the system settings per OS
    scoped = {
        "managed": "twsrt.agents.qwen.managed:compile_managed",
        "project": "twsrt.agents.qwen.project:compile_project",
    }

    def compile_user(self, ctx: Context) -> Result:
        compiled, found = translate(ctx.policy, ctx.sandbox_mode, ctx.yolo)
        findings = list(found)
        if ctx.full_access:
            what = "tools.executionSandbox is removed and the permission rules stay"
            findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
        path = ctx.config.targets.get(SETTINGS_KEY)

        def preview() -> str:  # the managed members alone, as JSON (as Claude's preview)
            return dump(compiled.settings(), "  ")

        if path is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        files = TargetFiles(ctx.config, ctx.documents)
        files.settings(SETTINGS_KEY, path, SETTINGS_FILE, compiled)
        return files.result(NAME, preview, findings, origins=compiled.origins)


AGENT = QwenAgent()
