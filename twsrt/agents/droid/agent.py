"""Factory Droid target: ``~/.factory/settings.json``, with the members twsrt owns spliced into
the user's file and every other byte kept (a new file is written 0600).

twsrt owns ``sandbox`` (srt's shape, every key written out, ``enabled: true``),
``commandBlocklist`` (the policy's deny), ``commandDenylist`` (ask) and ``commandAllowlist``
(allow). One file serves every launch, ``--auto`` or ``--skip-permissions-unsafe`` (Droid reads no
per-mode file), so both approval modes compile the same bytes. The package: ``declaration``
(key, layers, owned members), ``rules``, ``translate`` (the pure translation), ``settings`` (the
owned members and their merge), ``effective`` (the files beside twsrt's that grant more); this
module compiles one run.
"""

from __future__ import annotations

from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.droid.declaration import AGENT_SPEC, NAME, SETTINGS_KEY
from twsrt.agents.droid.settings import SETTINGS_FILE
from twsrt.agents.droid.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.jsonedit import dump


class DroidAgent(DeclaredAgent):
    spec = AGENT_SPEC
    # the project's .factory/settings.json; the org-managed settings per OS
    scoped = {
        "managed": "twsrt.agents.droid.managed:compile_managed",
        "project": "twsrt.agents.droid.project:compile_project",
    }

    def compile_user(self, ctx: Context) -> Result:
        compiled, found = translate(ctx.policy, ctx.sandbox_mode, ctx.yolo)
        findings = list(found)
        if ctx.full_access:
            what = '"sandbox": {"enabled": false} is written and the command lists stay'
            findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
        path = ctx.config.targets.get(SETTINGS_KEY)

        def preview() -> str:  # the managed members alone, as JSON (as Claude's preview)
            return dump(compiled.settings(), "  ")

        if path is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        files = TargetFiles(ctx.config, ctx.documents)
        files.settings(SETTINGS_KEY, path, SETTINGS_FILE, compiled)
        return files.result(NAME, preview, findings, origins=compiled.origins)


AGENT = DroidAgent()
