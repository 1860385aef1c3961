"""Factory Droid's org-managed settings (managed scope): the ``settings.json`` an administrator
deploys (``/etc/factory/settings.json`` on Linux; keys ``droid_managed_linux``/``_macos``/
``_windows``, one file per OS in the managed output tree, same bytes; ``INSTALL_PATHS`` in the
declaration).

The file carries what the user settings carry, with the same members and merge. Observed with
Droid 0.225.2 through ``FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH`` (the same org layer as the
system file; tests/real/test_droid_generated.py): the org layer's sandbox and command lists add
to the user's, so a user's ``enabled: false``, a user's ``settings.local.json`` sandbox or an
org ``enabled: false`` cannot switch the org file's sandbox off, and the user's denylist beats
an org allowlist. The file applies in every approval mode.
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.droid.declaration import MANAGED_TARGETS, NAME
from twsrt.agents.droid.settings import SETTINGS_FILE
from twsrt.agents.droid.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import MANAGED_FILE_MODE
from twsrt.jsonedit import dump


def compile_managed(ctx: Context) -> Result:
    """One managed run: the same file at each OS's place in the managed output tree."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, False)
    findings = list(found)
    if ctx.full_access:
        what = '"sandbox": {"enabled": false} is written and the command lists stay'
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))

    def preview() -> str:
        return dump(compiled.settings(), "  ")

    configured = [spec for spec in MANAGED_TARGETS if spec.key in ctx.config.targets]
    if not configured:
        return Result(NAME, preview, findings=findings, target_configured=False)
    files = TargetFiles(ctx.config, ctx.documents, mode=MANAGED_FILE_MODE)
    for spec in configured:
        path = ctx.config.targets[spec.key]
        files.settings(spec.key, path, SETTINGS_FILE, compiled)
    return files.result(NAME, preview, findings, origins=compiled.origins)
