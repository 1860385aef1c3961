"""One DeepCode settings layer compiled: the user file (or the yolo ``--settings`` file) and,
in project scope, the project's ``.deepcode/settings.json`` (``project.py``), each merged,
compared and previewed the same way."""

from __future__ import annotations

from pathlib import Path

from twsrt.agents.abspaths import unpinned_home
from twsrt.agents.base import Context, Result
from twsrt.agents.deepcode.declaration import (
    NAME,
    SETTINGS_KEY,
    USER_DIR,
    USER_FILE,
    YOLO_KEY,
    _lossy,
)
from twsrt.agents.deepcode.rules import DEEPCODE_ARRAY_LAYERS, DEEPCODE_CLAUDE_FALLBACK
from twsrt.agents.deepcode.settings import SETTINGS_FILE
from twsrt.agents.deepcode.translate import translate
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import mode_target
from twsrt.findings import Finding
from twsrt.jsonedit import dump


def target(ctx: Context) -> tuple[str, Path] | None:
    """The ``[targets]`` key and the file for this mode; None when nothing is configured."""
    return mode_target(ctx.config.targets, SETTINGS_KEY, YOLO_KEY, ctx.yolo)


def _configured_key(ctx: Context) -> str:
    """``deepcode_settings``, or the yolo key when only that one is configured."""
    return SETTINGS_KEY if SETTINGS_KEY in ctx.config.targets else YOLO_KEY


def layer_findings(ctx: Context) -> list[Finding]:
    """What writing DeepCode's settings layers costs: the Claude fallback and list layering."""
    findings: list[Finding] = []
    full = ctx.config.targets.get(SETTINGS_KEY)
    # the full-mode file is created by this run (yolo runs create it only as a companion)
    creates = not ctx.yolo or YOLO_KEY in ctx.config.targets
    if (
        full is not None
        and creates
        and full.name == USER_FILE
        and full.parent.name == USER_DIR
        and not full.exists()
        and not full.is_symlink()
    ):
        findings.append(
            _lossy(
                DEEPCODE_CLAUDE_FALLBACK,
                f"{ctx.config.display_path(full)} does not exist yet: DeepCode reads "
                "~/.claude/settings.json in its place, and once twsrt writes it nothing from the "
                "Claude Code file (hooks, MCP servers, model settings) reaches DeepCode; copy "
                "what you still need into it",
                ctx.config.location(f"/targets/{SETTINGS_KEY}"),
            )
        )
    findings.append(
        _lossy(
            DEEPCODE_ARRAY_LAYERS,
            "DeepCode's project and local settings layers replace lists instead of extending "
            "them: a .deepcode/settings.json that sets permissions.deny, permissions.ask or a "
            "sandbox list drops what twsrt writes here",
            ctx.config.location(f"/targets/{_configured_key(ctx)}"),
        )
    )
    return findings


def compile_file(
    ctx: Context, located: tuple[str, Path] | None, key_named: str, extra: list[Finding]
) -> Result:
    """One settings file of this run (``located``: its key and path, None when not
    configured); ``key_named``: the key an unpinned home is reported at; ``extra``: what
    writing that layer costs."""
    managed, findings = translate(ctx.policy, ctx.yolo, ctx.sandbox_mode, ctx.config.output_home)
    if ctx.full_access:
        findings.append(
            ctx.full_access_finding(
                NAME,
                "sandbox.mode is danger-full-access and the permission deny rules stay in force",
            )
        )

    def preview() -> str:
        return dump(managed.fragment(), "  ") + "\n"

    if located is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    key, path = located
    if managed.home_used and ctx.config.pinned_home is None:
        # the lint's text and place when the key is configured: reported once
        findings.append(unpinned_home(ctx.config, key_named))
    findings += extra
    files = TargetFiles(ctx.config, ctx.documents)
    files.settings(key, path, SETTINGS_FILE, managed)
    return files.result(NAME, preview, findings, origins=managed.origins)
