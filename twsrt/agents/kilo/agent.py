"""Kilo Code CLI target: ``~/.config/kilo/kilo.jsonc``, with ``permission``'s members that twsrt
owns, the top-level ``sandbox`` and a missing ``$schema`` spliced into the user's file (JSONC
kept) and every other byte kept (a new file is written 0600). One file serves every launch,
with or without ``--auto``. The package: ``declaration``, ``rules``, ``translate`` (on
OpenCode's shared grammar), ``settings`` (the merge), ``effective``; this module compiles one
run."""

from __future__ import annotations

from twsrt.agents.abspaths import unpinned_home
from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.kilo.declaration import AGENT_SPEC, NAME, SETTINGS_KEY
from twsrt.agents.kilo.settings import MEMBERS, drift_items, merged_text
from twsrt.agents.kilo.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.jsonedit import dump


class KiloAgent(DeclaredAgent):
    spec = AGENT_SPEC
    # the project's kilo.jsonc
    scoped = {
        "managed": "twsrt.agents.kilo.managed:compile_managed",
        "project": "twsrt.agents.kilo.project:compile_project",
    }

    def compile_user(self, ctx: Context) -> Result:
        compiled, found = translate(ctx.policy, ctx.sandbox_mode, ctx.yolo, ctx.config.output_home)
        findings = list(found)
        if compiled.home_used and ctx.config.pinned_home is None:
            findings.append(unpinned_home(ctx.config, SETTINGS_KEY))
        if ctx.full_access:
            what = 'the sandbox object is {"enabled": false} and the permission rules stay'
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


AGENT = KiloAgent()
