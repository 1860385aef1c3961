"""GitHub Copilot CLI target: a launch-flag snippet and the native ``sandbox`` settings.

Copilot CLI reads two things twsrt can compile: per-launch flags (``--allow-tool``,
``--deny-tool``, ``--allow-url``, ``--deny-url``, ``--yolo``), written as a shell snippet to
stdout or ``copilot_output``; and the ``sandbox`` object of ``~/.copilot/settings.json`` (plus
the ``allowedUrls`` / ``deniedUrls`` lists), spliced into the user's file with every other byte
kept. Translation is pure; the sandbox side takes only absolute paths, whole subtrees and no
wildcards, so ``~`` is expanded with the config's home and every rule it cannot express is a
finding at the source rule — never a wider grant.

Facts pinned by the real-client tests against Copilot CLI 1.0.102:

- a flag value is split at top-level commas and parsed as ``kind(argument)``; an argument
  holding ``)`` is rejected ("Invalid rule format"), a value starting with ``-`` is read as an
  option. URL patterns without a scheme mean ``https://`` only.
- ``userPolicy.network`` host rules take a hostname, an IP, ``*.example.com`` or ``*`` — no
  port and no URL; one bad entry makes Copilot load the whole settings file as ``{}``.

The package: ``declaration`` (keys and managed sandbox keys), ``flags`` (launch flags),
``settings`` (the sandbox object, merge and drift members); this module compiles one run
(shared machinery: ``agents.targets``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twsrt.agents.abspaths import unpinned_home
from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.copilot.declaration import (
    AGENT_SPEC,
    ALLOW_TOOLS,
    FLAGS_KEY,
    FLAGS_ONLY_SRT_KEYS,
    FLAGS_YOLO_KEY,
    FS_KEYS,
    HANDLED_SRT_KEYS,
    NAME,
    NET_KEYS,
    NO_SETTINGS,
    REASONS,
    SETTINGS_KEY,
    TOP_KEYS,
    URL_KEYS,
    Compiled,
)
from twsrt.agents.copilot.flags import (
    _flag_items,
    compile_flags,
    parse_snippet,
    quote,
    render_snippet,
)
from twsrt.agents.copilot.settings import (
    SETTINGS,
    SETTINGS_FILE,
    SETTINGS_SPEC,
    compile_sandbox,
    merge,
    merged_settings,
    settings_items,
)
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import mode_target, strict_allowlist_note
from twsrt.findings import Finding
from twsrt.jsonedit import dump
from twsrt.locations import Location
from twsrt.policy import Policy

__all__ = [
    "AGENT_SPEC",
    "ALLOW_TOOLS",
    "Compiled",
    "FLAGS_KEY",
    "FLAGS_YOLO_KEY",
    "FS_KEYS",
    "HANDLED_SRT_KEYS",
    "NAME",
    "NET_KEYS",
    "REASONS",
    "SETTINGS",
    "SETTINGS_KEY",
    "SETTINGS_SPEC",
    "TOP_KEYS",
    "URL_KEYS",
    "compile_flags",
    "compile_sandbox",
    "merge",
    "merged_settings",
    "parse_snippet",
    "quote",
    "render_snippet",
    "settings_items",
]


# compile_sandbox's outputs and the origins it noted, in the order it noted them
SandboxPart = tuple[dict[str, Any], dict[str, list[str]], bool, list[Finding], dict[str, Location]]


def sandbox_part(policy: Policy, home: str, sandbox_mode: str) -> SandboxPart:
    """The settings' ``sandbox`` part, which the approval mode does not change: made once for
    both modes of a check (``Context.once``)."""
    origins: dict[str, Location] = {}
    sandbox, urls, used, findings = compile_sandbox(policy, home, origins, sandbox_mode)
    return sandbox, urls, used, findings, origins


def translate(
    policy: Policy,
    yolo: bool,
    home: str,
    with_settings: bool,
    sandbox_mode: str = "workspace-write",
    part: SandboxPart | None = None,
) -> tuple[Compiled, list[Finding]]:
    """Pure translation: the flags for the mode and, when wanted, the sandbox settings
    (``part``: ``sandbox_part`` of the same arguments, already made; never changed here)."""
    out = Compiled()
    out.argv, findings = compile_flags(policy, yolo, out.origins, sandbox_mode)
    if with_settings:
        if part is None:
            part = sandbox_part(policy, home, sandbox_mode)
        out.sandbox, out.urls, out.home_used, more, origins = part
        for key, origin in origins.items():  # as compile_sandbox notes them: the flags' first
            out.origins.setdefault(key, origin)
        findings += more
    return out, findings


def srt_key_findings(policy: Policy, with_settings: bool) -> list[Finding]:
    """Findings for the srt keys Copilot does not take, and the note for strictAllowlist."""
    findings: list[Finding] = []
    if not with_settings:
        reasons = {**REASONS, "/filesystem": NO_SETTINGS, "/network": NO_SETTINGS}
        return unhandled_key_findings(policy, NAME, FLAGS_ONLY_SRT_KEYS, reasons)
    findings += strict_allowlist_note(
        policy,
        NAME,
        "Copilot's sandbox: a non-empty allowedHosts list already refuses every other host "
        "without asking",
    )
    return findings + unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)


def flags_target(ctx: Context) -> tuple[str, Path] | None:
    return mode_target(ctx.config.targets, FLAGS_KEY, FLAGS_YOLO_KEY, ctx.yolo)


class CopilotAgent(DeclaredAgent):
    spec = AGENT_SPEC

    def compile_user(self, ctx: Context) -> Result:
        settings_path = ctx.config.targets.get(SETTINGS_KEY)
        home, mode = ctx.config.output_home, ctx.sandbox_mode
        part = None
        if settings_path is not None:
            part = ctx.once(
                (NAME, "sandbox", home, mode), lambda: sandbox_part(ctx.policy, home, mode)
            )
        compiled, findings = translate(
            ctx.policy, ctx.yolo, home, settings_path is not None, mode, part
        )
        if ctx.full_access:
            what = "the --deny-tool and --deny-url flags stay in force"
            if settings_path is not None:
                what = "sandbox.enabled is false and " + what
            findings.append(ctx.full_access_finding(NAME, what))
        if compiled.home_used and ctx.config.pinned_home is None:
            findings.append(unpinned_home(ctx.config, SETTINGS_KEY))
        findings += srt_key_findings(ctx.policy, settings_path is not None)
        snippet = render_snippet(compiled.argv)
        settings_display = None if settings_path is None else ctx.config.display_path(settings_path)

        def preview() -> str:
            if settings_display is None:
                return snippet
            fragment = dump(compiled.settings_fragment(), "  ")
            commented = "".join(f"# {line}\n" for line in fragment.splitlines())
            return f"{snippet}\n# {settings_display} (managed keys only)\n{commented}"

        flags = flags_target(ctx)
        printed = snippet if flags is None else ""  # no copilot_output: stdout, as the seed says
        if flags is None and settings_path is None:
            return Result(NAME, preview, findings=findings, target_configured=False, stdout=printed)
        files = TargetFiles(ctx.config, ctx.documents)
        if flags is not None:
            # generated whole: a change of form drifts too (a lost continuation breaks the paste)
            files.add(*flags, snippet, _flag_items, form=True)
        if settings_path is not None:
            files.settings(SETTINGS_KEY, settings_path, SETTINGS_FILE, compiled)
        return files.result(NAME, preview, findings, origins=compiled.origins, stdout=printed)


AGENT = CopilotAgent()
