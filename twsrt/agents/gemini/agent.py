"""Gemini CLI target: a policy file twsrt writes whole (``~/.gemini/policies/twsrt.toml``) and
the sandbox keys of ``~/.gemini/settings.json``, spliced into the user's file with every other
byte kept.

One pair of files serves every launch, with or without ``--yolo``: Gemini reads no per-mode
file, so both approval modes compile the same bytes (as Codex's do) and the yolo-only losses
are findings. The package: ``declaration`` (keys, layers, priorities), ``rules``, ``translate``
(the pure translation), ``settings`` (the owned members and their merge), ``managed`` and
``project`` (the other two scopes), ``effective`` (the files beside twsrt's that Gemini also
loads); this module compiles a user-scope run (shared machinery: ``agents.targets``,
``agents.targetfiles``).
"""

from __future__ import annotations

from twsrt.agents.abspaths import unpinned_home
from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.gemini.declaration import AGENT_SPEC, NAME, POLICY_KEY, SETTINGS_KEY
from twsrt.agents.gemini.rules import GEMINI_POLICY_NOT_WRITTEN, GEMINI_SANDBOX_NOT_WRITTEN
from twsrt.agents.gemini.settings import SETTINGS_FILE, policy_items
from twsrt.agents.gemini.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump


class GeminiAgent(DeclaredAgent):
    spec = AGENT_SPEC
    # the admin policy and system settings per OS; the workspace's .gemini/settings.json
    scoped = {
        "managed": "twsrt.agents.gemini.managed:compile_managed",
        "project": "twsrt.agents.gemini.project:compile_project",
    }

    def compile_user(self, ctx: Context) -> Result:
        home, mode = ctx.config.output_home, ctx.sandbox_mode
        compiled, findings = ctx.once((NAME, home, mode), lambda: translate(ctx.policy, home, mode))
        findings = list(findings)
        if ctx.full_access:
            what = "security.toolSandboxing is false and the policy file's deny rules stay"
            findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
        policy_path = ctx.config.targets.get(POLICY_KEY)
        settings_path = ctx.config.targets.get(SETTINGS_KEY)
        if compiled.home_used and ctx.config.pinned_home is None and policy_path is not None:
            findings.append(unpinned_home(ctx.config, POLICY_KEY))
        findings += _missing_targets(ctx, policy_path is None, settings_path is None)
        text = compiled.policy_text()

        def preview() -> str:
            fragment = dump(compiled.settings, "  ")
            commented = "".join(f"# {line}\n" for line in fragment.splitlines())
            where = (
                "settings.json" if settings_path is None else ctx.config.display_path(settings_path)
            )
            return f"{text}\n# {where} (managed keys only)\n{commented}"

        if policy_path is None and settings_path is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        files = TargetFiles(ctx.config, ctx.documents)
        if policy_path is not None:
            files.add(POLICY_KEY, policy_path, text, policy_items, form=True)
        if settings_path is not None:
            files.settings(SETTINGS_KEY, settings_path, SETTINGS_FILE, compiled.settings)
        return files.result(NAME, preview, findings, origins=compiled.origins)


def _missing_targets(ctx: Context, no_policy: bool, no_settings: bool) -> list[Finding]:
    """One of the pair left out: what that loses (neither: the agent is not a target)."""
    if no_policy == no_settings:
        return []
    if no_settings and not ctx.full_access:
        message = (
            "no gemini_settings target is configured, so Gemini's tool sandbox stays off "
            "(security.toolSandboxing defaults to false); add one to [targets]"
        )
        return [
            finding(
                GEMINI_SANDBOX_NOT_WRITTEN,
                message,
                ctx.config.location(f"/targets/{POLICY_KEY}"),
                agent=NAME,
            )
        ]
    if no_policy:
        message = (
            "no gemini_policy target is configured, so the bash rules and the file- and "
            "web-tool denies are not written for Gemini; add one to [targets]"
        )
        return [
            finding(
                GEMINI_POLICY_NOT_WRITTEN,
                message,
                ctx.config.location(f"/targets/{SETTINGS_KEY}"),
                agent=NAME,
            )
        ]
    return []


AGENT = GeminiAgent()
