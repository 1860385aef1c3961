"""Factory Droid's project file: ``.factory/settings.json`` under the project root (project
scope, see ``twsrt.scopes``).

The user translation, members and merge alike: the project file's sandbox and command lists add
to the user's (a project ``denyRead``, ``denyWrite`` and ``commandBlocklist`` held beside the
user's, and its ``enabled: false`` or wider lists change nothing of the user's: observed). Droid
loads the file when it starts in the root, or below it in a git repository, with the file's
relative paths from where it starts (TWS664). The file applies in every approval mode.
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.droid.declaration import LABEL, NAME, PROJECT_KEY
from twsrt.agents.droid.rules import DROID_PROJECT_LAUNCH_ROOT
from twsrt.agents.droid.settings import SETTINGS_FILE
from twsrt.agents.droid.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import launch_root_finding
from twsrt.jsonedit import dump


def compile_project(ctx: Context) -> Result:
    """The project file of one run: the user file's members."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, False)
    findings = list(found)
    if ctx.full_access:
        what = '"sandbox": {"enabled": false} is written and the command lists stay'
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))

    def preview() -> str:
        return dump(compiled.settings(), "  ")

    target = ctx.config.targets.get(PROJECT_KEY)
    if target is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    rest = (
        ", or below it when the project is a git repository; it resolves the file's relative "
        "paths against the directory it starts in"
    )
    findings.append(
        launch_root_finding(ctx.config, PROJECT_KEY, DROID_PROJECT_LAUNCH_ROOT, NAME, LABEL, rest)
    )
    files = TargetFiles(ctx.config, ctx.documents)
    files.settings(PROJECT_KEY, target, SETTINGS_FILE, compiled)
    return files.result(NAME, preview, findings, origins=compiled.origins)
