"""Qwen Code's system settings (managed scope): the ``settings.json`` an administrator deploys
(``/etc/qwen-code/settings.json`` on Linux; keys ``qwen_managed_linux``/``_macos``/``_windows``,
one file per OS in the managed output tree, same bytes; ``INSTALL_PATHS`` in the declaration).

The file carries what the user settings carry: the permission rules and the execution sandbox,
with the same members, merge and ``"$version"``. Observed with Qwen Code 0.24.4 in a private
mount namespace (tests/real/test_qwen_managed_observed.py): the system file's
``tools.executionSandbox`` replaces the user's (row 29) and its deny rules hold against a user's
allow (row 30), as rules are unioned with a deny before an ask before an allow. No binding
switch exists, so a user's or project's allow rule still widens (TWS494, and TWS636 in check).

Paths: a ``~/`` rule is matched against the home of the user who runs Qwen (row 31), and a
``/p`` rule anchors at the directory Qwen starts in (row 32), as in the user file: the file
holds the policy's paths as the user file does, one file for every user and OS. The file
applies in every approval mode, so ``--yolo`` still approves what its ask rules name (TWS485).
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.qwen.declaration import MANAGED_TARGETS, NAME
from twsrt.agents.qwen.rules import QWEN_MANAGED_ALLOW_OPEN
from twsrt.agents.qwen.settings import SETTINGS_FILE
from twsrt.agents.qwen.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import MANAGED_FILE_MODE
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump


def compile_managed(ctx: Context) -> Result:
    """One managed run: the same file at each OS's place in the managed output tree."""
    # yolo: the file serves --yolo launches too, whose approval of ask rules is reported
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, True)
    findings = [*found, allow_open(ctx)]
    if ctx.full_access:
        what = "tools.executionSandbox is left out and the permission rules stay"
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


def allow_open(ctx: Context) -> Finding:
    """What the system file cannot bind (TWS494), at the policy's bash allow list."""
    return finding(
        QWEN_MANAGED_ALLOW_OPEN,
        "Qwen has no managed-only rules switch: the system settings' deny and ask rules and "
        "sandbox hold, but a user's or project's permissions.allow rule still lets a command "
        "the policy does not allow run without a prompt",
        ctx.policy.bash_location("/allow", key=True),
        agent=NAME,
    )
