"""Qwen Code: the user's keys beside twsrt's in ``~/.qwen/settings.json`` that grant more than
the policy. ``tools.approvalMode: "yolo"`` makes every launch a ``--yolo`` one, which approves
what twsrt's ask rules name (observed with 0.24.4, tests/real/test_qwen_generated.py). This
machine's system settings, which Qwen reads above the user's, and in managed scope the user's
file under them are ``effective_managed``'s."""

from __future__ import annotations

from os.path import lexists

from twsrt.agents.base import Context
from twsrt.agents.qwen.declaration import INSTALL_PATHS, NAME, SETTINGS_KEY
from twsrt.agents.qwen.rules import QWEN_APPROVAL_MODE_YOLO
from twsrt.effective import child, host_path, load_layer, report
from twsrt.findings import Finding


def findings(ctx: Context) -> list[Finding]:
    if ctx.config.scope == "managed":  # the user's file under the system settings
        from twsrt.agents.qwen import effective_managed

        return effective_managed.findings(ctx)
    out = _system(ctx)
    settings = ctx.config.targets.get(SETTINGS_KEY)
    if settings is None:
        return out
    layer, found = load_layer(settings, "json", NAME, ctx.config, ctx.documents)
    out += found
    if layer is not None and child(layer.value, "tools", "approvalMode") == "yolo":
        out.append(
            report(
                QWEN_APPROVAL_MODE_YOLO,
                'tools.approvalMode "yolo" starts every Qwen session as --yolo does: the '
                "commands the policy asks about run without a prompt, also headless",
                layer,
                "/tools/approvalMode",
                NAME,
            )
        )
    return out


def _system(ctx: Context) -> list[Finding]:
    """This machine's system settings in a user-scope run (effective_managed.py), imported
    only when the file is there."""
    if ctx.config.scope != "user" or not lexists(host_path(INSTALL_PATHS)):
        return []
    from twsrt.agents.qwen import effective_managed

    return effective_managed.system_findings(ctx)
