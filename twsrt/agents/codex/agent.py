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

from twsrt.agents.base import Context, Result, read_target
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
from twsrt.agents.targets import Members, compare, target_write
from twsrt.findings import Finding, TwsrtError
from twsrt.writes import Change

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


class CodexAgent:
    spec = AGENT_SPEC
    name = AGENT_SPEC.name
    target_keys = AGENT_SPEC.keys

    def compile(self, ctx: Context) -> Result:
        if ctx.config.scope == "project":
            from twsrt.agents.codex import project

            compiled, findings = project.translate_project(
                ctx.policy, ctx.sandbox_mode, ctx.config.output_home
            )
            return compile_files(
                ctx,
                compiled,
                findings,
                project.CONFIG_KEY,
                project.RULES_KEY,
                project.PROJECT_CONFIG,
            )
        if ctx.config.scope == "managed":
            from twsrt.agents.codex.managed import compile_managed

            return compile_managed(ctx)
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
    display = ctx.config.display_path(config_path)
    disk = read_target(config_path, display, ctx.config)
    disk_value = None
    if disk is not None:
        parsed = parsed_config(disk, display, ctx.config.documents)
        legacy = _legacy_locations(parsed, display)
        if legacy:
            raise TwsrtError(legacy)
        disk_value = parsed.value
    new_text = _merged_or_refused(disk, compiled, display, disk_value)
    changes: list[Change] = [target_write(config_path, display, new_text, disk)]
    owned = members.using(ctx.config.documents)
    drift = [compare(display, config_key, disk, new_text, owned.text_items, owned.view)]
    if rules_path is not None:
        rules_display = ctx.config.display_path(rules_path)
        rules_disk = read_target(rules_path, rules_display, ctx.config)
        changes.append(target_write(rules_path, rules_display, compiled.rules, rules_disk))
        rules = compiled.rules
        drift.append(compare(rules_display, rules_key, rules_disk, rules, _rule_items))
    return Result(
        NAME,
        preview,
        changes=changes,
        findings=findings,
        drift=drift,
        notices=notices,
        origins=compiled.origins,
    )


AGENT = CodexAgent()
