"""DeepCode target: ``permissions.deny``/``ask`` and the ``sandbox`` object of its settings file.

DeepCode (oratis/deepcode) reads ``~/.deepcode/settings.json`` (or, while that file does not
exist, ``~/.claude/settings.json``), then the project and local layers, then ``--settings
<file>``. Layers are deep-merged, but a list in a later layer replaces the earlier list whole.
twsrt writes the user file in full mode and a ``--settings`` file in yolo mode; both carry the
whole managed content, so the yolo layer restates every list (its ``permissions.ask`` is ``[]``,
which switches the user's ask rules off).

What the target can hold, from DeepCode's source (agents-formats §5):

- permission rules are string prefixes on the tool's primary input: ``Bash(cmd)`` and
  ``Bash(cmd *)`` work, path rules match nothing, so only the bash rules are compiled;
- ``sandbox.mode`` (read-only / workspace-write / danger-full-access) wins over the legacy
  ``sandbox.enabled``, which twsrt removes;
- ``sandbox.filesystem`` takes absolute paths without wildcards (Linux does not expand ``~``),
  so ``~`` is expanded with the config's home; denyRead/denyWrite bind only on macOS;
- ``sandbox.network.allowedDomains``: absent = every host, ``[]`` = none, a list = a DNS
  allow-list on Linux only; ``deniedDomains`` is not enforced; ``allowUnixSockets`` is a
  boolean for every socket.

Translation is pure; the merge splices only the top-level ``permissions`` and ``sandbox``
members into the user's file and keeps every other byte.

The package: ``declaration`` (keys and the managed content of a mode), ``translate`` (the
pure translation and its findings), ``settings`` (merge and drift members); this module
compiles one run (shared machinery: ``agents.targets``).
"""

from __future__ import annotations

from pathlib import Path

from twsrt.agents.abspaths import unpinned_home
from twsrt.agents.base import Context, Result, read_target
from twsrt.agents.deepcode.declaration import (
    AGENT_SPEC,
    HANDLED_SRT_KEYS,
    LABEL,
    NAME,
    PROJECT_KEY,
    REASONS,
    SETTINGS_KEY,
    USER_DIR,
    USER_FILE,
    YOLO_KEY,
    Managed,
    _lossy,
)
from twsrt.agents.deepcode.settings import SETTINGS, SETTINGS_SPEC, drift, merge, merged_text
from twsrt.agents.deepcode.translate import translate
from twsrt.agents.targets import mode_target, target_write
from twsrt.findings import Finding
from twsrt.jsonedit import dump
from twsrt.rules import DEEPCODE_ARRAY_LAYERS, DEEPCODE_CLAUDE_FALLBACK

__all__ = [
    "AGENT_SPEC",
    "HANDLED_SRT_KEYS",
    "LABEL",
    "Managed",
    "NAME",
    "PROJECT_KEY",
    "REASONS",
    "SETTINGS",
    "SETTINGS_KEY",
    "SETTINGS_SPEC",
    "USER_DIR",
    "USER_FILE",
    "YOLO_KEY",
    "drift",
    "merge",
    "merged_text",
    "translate",
]


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


class DeepCodeAgent:
    spec = AGENT_SPEC
    name = AGENT_SPEC.name
    target_keys = AGENT_SPEC.keys

    def compile(self, ctx: Context) -> Result:
        if ctx.config.scope == "project":  # the project's .deepcode/settings.json
            from twsrt.agents.deepcode.project import compile_project

            return compile_project(ctx)
        located = target(ctx)
        extra = [] if located is None else layer_findings(ctx)
        return compile_file(ctx, located, _configured_key(ctx), extra)


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
    display = ctx.config.display_path(path)
    disk_text = read_target(path, display, ctx.config)
    documents = ctx.config.documents
    new_text = merged_text(disk_text, display, managed, documents)
    change = target_write(path, display, new_text, disk_text)
    return Result(
        NAME,
        preview,
        changes=[change],
        findings=findings,
        drift=[drift(display, disk_text, new_text, key, documents)],
        origins=managed.origins,
    )


AGENT = DeepCodeAgent()
