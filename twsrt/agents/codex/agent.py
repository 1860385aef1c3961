"""Codex CLI target: a ``[permissions.twsrt]`` profile in ``config.toml`` and ``twsrt.rules``.

Translation is pure (Policy -> managed TOML values, rules text, lossy findings); the merge edits
only the owned keys (tomlkit, or text where the result is known) so comments, order and every
other table survive; previews
and drift reports contain only managed security data, never the user's other values.

The package: ``declaration`` (keys, pinned settings, ``Compiled``), ``paths`` (filesystem
entries and pins), ``translate`` (profile, network, rules), ``files`` (TOML merge and drift
members), ``project`` (the project layer); this module compiles one run (shared machinery:
``agents.targets``).
"""

from __future__ import annotations

from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.codex.declaration import (
    AGENT_SPEC,
    FULL_ACCESS,
    HANDLED_SRT_KEYS,
    NAME,
    OWNED_TOP,
    PROFILE,
    REASONS,
    REMINDER,
    Compiled,
)
from twsrt.agents.codex.files import (
    CONFIG,
    CONFIG_SPEC,
    RULES,
    _legacy_locations,
    _merged_or_refused,
    _rule_items,
    managed_view,
    merged_config,
    parsed_config,
    preview_toml,
)
from twsrt.agents.codex.paths import _split_glob
from twsrt.agents.codex.translate import full_access_lost, render_rules, translate
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import Members
from twsrt.findings import Finding, TwsrtError

__all__ = [
    "AGENT_SPEC",
    "CONFIG",
    "CONFIG_SPEC",
    "Compiled",
    "FULL_ACCESS",
    "HANDLED_SRT_KEYS",
    "NAME",
    "OWNED_TOP",
    "PROFILE",
    "REASONS",
    "RULES",
    "_split_glob",
    "managed_view",
    "merged_config",
    "preview_toml",
    "render_rules",
    "translate",
]


def compile_project(ctx: Context) -> Result:
    """The project's layer: its own profile and rules (``.codex/``)."""
    from twsrt.agents.codex import project

    compiled, findings = project.translate_project(
        ctx.policy, ctx.sandbox_mode, ctx.config.output_home
    )
    keys = (project.CONFIG_KEY, project.RULES_KEY)
    return compile_files(ctx, compiled, findings, *keys, project.PROJECT_CONFIG)


class CodexAgent(DeclaredAgent):
    spec = AGENT_SPEC
    scoped = {
        "project": "twsrt.agents.codex.agent:compile_project",
        "managed": "twsrt.agents.codex.managed:compile_managed",
    }

    def compile_user(self, ctx: Context) -> Result:
        compiled, findings = translate(ctx.policy, ctx.sandbox_mode, ctx.config.output_home)
        return compile_files(ctx, compiled, findings, "codex_config", "codex_rules", CONFIG)


def compile_files(
    ctx: Context,
    compiled: Compiled,
    findings: list[Finding],
    config_key: str,
    rules_key: str,
    members: Members,
) -> Result:
    """One Codex config layer's files (``config_key``'s config.toml, whose owned keys are
    ``members``, and ``rules_key``'s rules) merged, compared and previewed for ``compiled``."""
    if ctx.full_access:
        # no profile, so no sandbox key the policy sets is enforced; name each one
        what = f"default_permissions is {FULL_ACCESS} and the exec-policy rules still forbid"
        findings.append(full_access_lost(ctx, what + " the denied commands"))
    config_path = ctx.config.targets.get(config_key)
    rules_path = ctx.config.targets.get(rules_key)
    notices = [] if ctx.full_access else [REMINDER]  # no profile to deactivate

    # a project's layer is named from the project root, as the agent finds it there
    layer = ".codex/" if ctx.config.scope == "project" else ""

    def preview() -> str:
        text = f"# {layer}config.toml (managed keys only)\n" + preview_toml(compiled)
        if rules_path is not None:
            text += f"\n# {layer}rules/twsrt.rules\n" + compiled.rules
        return text

    if config_path is None:
        return Result(NAME, preview, findings=findings, target_configured=False, notices=notices)
    documents = ctx.documents

    def config_text(disk: str | None, display: str) -> str:
        disk_value = None
        if disk is not None:
            parsed = parsed_config(disk, display, documents)
            legacy = _legacy_locations(parsed, display)
            if legacy:
                raise TwsrtError(legacy)
            disk_value = parsed.value
        return _merged_or_refused(disk, compiled, display, disk_value)

    files = TargetFiles(ctx.config, ctx.documents)
    owned = members.using(documents)
    files.add(config_key, config_path, config_text, owned.text_items, owned.view)
    if rules_path is not None:
        files.add(rules_key, rules_path, compiled.rules, _rule_items)
    return files.result(NAME, preview, findings, notices=notices, origins=compiled.origins)


AGENT = CodexAgent()
