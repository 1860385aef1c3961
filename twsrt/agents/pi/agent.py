"""pi target: the sandbox extension's global file (``~/.pi/agent/extensions/sandbox.json``),
the srt document with every member the extension merges over its defaults written out, spliced
into the user's file with every other byte kept (a new file is written 0600).

pi has no approval modes (it never asks before a bash call), so both of twsrt's modes compile
the same bytes. The package: ``declaration`` (key, layers, owned members), ``rules``,
``translate`` (the pure translation), ``settings`` (the owned members and their merge),
``effective`` (what else pi loads that undoes the file), ``engine`` (``twsrt test``); this
module compiles one run.
"""

from __future__ import annotations

from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.pi.declaration import AGENT_SPEC, NAME, SANDBOX_KEY
from twsrt.agents.pi.settings import SETTINGS_FILE
from twsrt.agents.pi.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.jsonedit import dump


class PiAgent(DeclaredAgent):
    spec = AGENT_SPEC
    scoped = {"project": "twsrt.agents.pi.project:compile_project"}  # .pi/sandbox.json

    def compile_user(self, ctx: Context) -> Result:
        compiled, found = translate(ctx.policy, ctx.sandbox_mode)
        findings = list(found)
        if ctx.full_access:
            what = '"enabled": false is written, so the extension runs bash unsandboxed'
            findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
        path = ctx.config.targets.get(SANDBOX_KEY)

        def preview() -> str:
            return dump(compiled.document, "  ")

        if path is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        files = TargetFiles(ctx.config, ctx.documents)
        files.settings(SANDBOX_KEY, path, SETTINGS_FILE, compiled)
        return files.result(NAME, preview, findings, origins=compiled.origins)


AGENT = PiAgent()
