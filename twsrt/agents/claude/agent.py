"""Claude Code target: permissions and sandbox sections of ``settings.json``.

Translation is pure (Policy -> managed sections + lossy findings); the merge splices only the
managed members into the user's file; file placement handles the full/yolo files, the
``settings.json`` symlink and the first-run migration of a regular ``settings.json``.

The package: ``declaration`` (keys and the managed sections of a mode), ``translate`` (the
pure translation and the sandbox modes), ``settings`` (merge and drift members); this module
compiles one run and places the files (shared machinery: ``agents.targets``).
"""

from __future__ import annotations

from pathlib import Path

from twsrt.agents.base import Context, DeclaredAgent, Result, read_target
from twsrt.agents.claude.declaration import (
    AGENT_SPEC,
    CLAUDE_ONLY_KEYS,
    FILESYSTEM_KEYS,
    FULL_KEY,
    HANDLED_SRT_KEYS,
    LINK_NAME,
    MODE_DROPPED,
    MODE_FORCED,
    NAME,
    NETWORK_KEYS,
    PRODUCT,
    PROJECT_KEY,
    REASONS,
    TOP_KEYS,
    WEBFETCH_PREFIX,
    YOLO_KEY,
    Managed,
)
from twsrt.agents.claude.modes import mode_findings
from twsrt.agents.claude.settings import (
    SETTINGS_FILE,
    managed_spec,
    merge,
    merged_text,
    settings_members,
)
from twsrt.agents.claude.translate import deny_rules, translate
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targets import mode_files, mode_target, plan_link, target_write
from twsrt.jsonedit import dump
from twsrt.writes import Change

__all__ = [
    "AGENT_SPEC",
    "CLAUDE_ONLY_KEYS",
    "FILESYSTEM_KEYS",
    "FULL_KEY",
    "HANDLED_SRT_KEYS",
    "LINK_NAME",
    "MODE_DROPPED",
    "MODE_FORCED",
    "Managed",
    "NAME",
    "NETWORK_KEYS",
    "PRODUCT",
    "PROJECT_KEY",
    "REASONS",
    "TOP_KEYS",
    "WEBFETCH_PREFIX",
    "YOLO_KEY",
    "managed_spec",
    "merge",
    "merged_text",
    "mode_findings",
    "settings_members",
    "translate",
]


def target_path(ctx: Context) -> Path | None:
    located = mode_target(ctx.config.targets, FULL_KEY, YOLO_KEY, ctx.yolo)
    return None if located is None else located[1]


class ClaudeAgent(DeclaredAgent):
    spec = AGENT_SPEC
    # managed-settings.json per OS; the project's .claude/settings.json
    scoped = {
        "managed": "twsrt.agents.claude.managed:compile_managed",
        "project": "twsrt.agents.claude.project:compile_project",
    }

    def compile_user(self, ctx: Context) -> Result:
        overrides = ctx.config.overrides.get(ctx.mode, {})
        denies = ctx.once((NAME, "deny"), lambda: deny_rules(ctx.policy))
        managed, findings = translate(
            ctx.policy, ctx.yolo, overrides, ctx.sandbox_mode, denies=denies, once=ctx.once
        )
        findings += mode_findings(ctx)
        findings += unhandled_key_findings(ctx.policy, NAME, HANDLED_SRT_KEYS, REASONS)

        def preview() -> str:
            return dump(managed.fragment(), "  ") + "\n"

        targets = ctx.config.targets
        located = mode_target(targets, FULL_KEY, YOLO_KEY, ctx.yolo)
        if located is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        key, target = located
        display = ctx.config.display_path(target)
        disk_text = read_target(target, display, ctx.config, ctx.documents)
        seed = targets.get(FULL_KEY) if ctx.yolo else None  # a new yolo file starts as the full
        ours = mode_files(targets, FULL_KEY, YOLO_KEY)
        plan = plan_link(
            link_path(targets, target),
            located,
            disk_text,
            ours,
            seed,
            NAME,
            PRODUCT,
            ctx.config,
            ctx.documents,
        )
        findings += plan.findings
        documents = ctx.documents
        new_text = merged_text(plan.base_text, plan.base_display, managed, documents)
        # a new settings file is private (hooks, apiKeyHelper); one made from another file
        # (migration, yolo seed) takes that file's mode and owner
        changes: list[Change] = [target_write(target, display, new_text, disk_text, plan.base_file)]
        members = settings_members(managed.sandbox_keys)
        if plan.change is not None:
            changes.append(plan.change)
        return Result(
            NAME,
            preview,
            changes=changes,
            findings=findings,
            drift=[
                SETTINGS_FILE.drift(display, disk_text, new_text, key, documents, members),
                *plan.drift,
            ],
            origins=managed.origins,
        )


def link_path(targets: dict[str, Path], target: Path) -> Path:
    """Where twsrt's settings.json link lives: beside the full settings (Claude Code reads
    it there), also when the yolo file is configured in another directory."""
    anchor = targets.get(FULL_KEY) or targets.get(YOLO_KEY) or target
    return anchor.parent / LINK_NAME


AGENT = ClaudeAgent()
