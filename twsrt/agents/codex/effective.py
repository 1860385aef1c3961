"""Codex: the profile files beside ``config.toml`` that ``codex --profile NAME`` loads.

Observed with Codex 0.171.0 (tests/real/test_effective_codex.py): ``--profile NAME`` reads
``NAME.config.toml`` from the Codex home on top of ``config.toml``; a ``default_permissions`` or
``sandbox_mode`` there replaces the twsrt profile (a write into a denied directory succeeds),
while a ``[sandbox_workspace_write]`` table alone changes nothing. The legacy
``[profiles.NAME]`` tables and ``profile = "NAME"`` in config.toml are refused by Codex when
selected, so they cannot widen; ``sandbox_mode``/``sandbox_workspace_write`` in config.toml
itself are TWS202, which the compile already reports.
"""

from __future__ import annotations

from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.codex import agent as target
from twsrt.agents.codex.declaration import NAME, SYSTEM_MANAGED_CONFIG, SYSTEM_REQUIREMENTS
from twsrt.agents.codex.profile_files import PROFILE_SUFFIX, profile_files
from twsrt.agents.codex.rules import CODEX_LEGACY_SANDBOX, CODEX_OTHER_PERMISSIONS
from twsrt.effective import (
    Layer,
    PolicyView,
    host_path,
    host_system,
    load_layer,
    report,
    sandbox_origin,
)
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.rules import USER_SKIPS_APPROVAL


def findings(ctx: Context) -> list[Finding]:
    if ctx.config.scope == "project":
        from twsrt.agents.codex import effective_project as codex_project

        return codex_project.findings(ctx)
    config_path = ctx.config.targets.get("codex_config")
    if config_path is None:
        return []
    view = PolicyView(ctx)
    main, out = load_layer(config_path, "toml", NAME, ctx.config, ctx.documents)
    if main is None and out:
        return []  # an unreadable config.toml is the compile's target-unusable
    for path in profile_files(config_path):
        layer, problems = load_layer(path, "toml", NAME, ctx.config, ctx.documents)
        out += problems
        if layer is not None:
            out += _check_profile(layer, main, view)
    if main is not None and isinstance(main.value, dict) and _sandboxed_writes(ctx):
        from twsrt.agents.codex.effective_trust import planted_findings, trusted_entries

        out += planted_findings(main, ctx.policy, ctx.config.home, list(trusted_entries(main)))
        from twsrt.agents.codex.effective_host import missing_parent_findings

        out += missing_parent_findings(main, _selected_profile(ctx), ctx.config.home)
    system = (SYSTEM_REQUIREMENTS, SYSTEM_MANAGED_CONFIG)  # the host's managed /etc/codex
    if host_system() in SYSTEM_REQUIREMENTS and any(host_path(p).exists() for p in system):
        from twsrt.agents.codex import effective_managed as codex_managed

        out += codex_managed.findings(ctx, main)
    return out


def _sandboxed_writes(ctx: Context) -> bool:
    """Whether the profile has write roots at all (read-only has none; full access has no
    sandbox to escape, which its own finding says)."""
    return not (ctx.read_only or ctx.full_access)


def _selected_profile(ctx: Context) -> str:
    return target.FULL_ACCESS if ctx.full_access else target.PROFILE


def _check_profile(layer: Layer, main: Layer | None, view: PolicyView) -> list[Finding]:
    doc: dict[str, Any] = layer.value
    profile = layer.path.name[: -len(PROFILE_SUFFIX)]
    out, wider = _profile_sandbox(doc, profile, layer, main, view)
    redefined = doc.get("permissions", {})
    if isinstance(redefined, dict) and target.PROFILE in redefined and not view.ctx.full_access:
        out.append(
            report(
                CODEX_OTHER_PERMISSIONS,
                f"{layer.display} redefines [permissions.{target.PROFILE}], so `codex --profile "
                f"{profile}` runs with a profile twsrt did not generate",
                layer,
                f"/permissions/{target.PROFILE}",
                NAME,
                [sandbox_origin(view.policy)],
            )
        )
    reviewer = doc.get("approvals_reviewer")
    if isinstance(reviewer, str) and reviewer != target.OWNED_TOP["approvals_reviewer"]:
        out.append(
            report(
                USER_SKIPS_APPROVAL,
                f"approvals_reviewer '{quoted(reviewer)}' in {layer.display} lets a model approve "
                "commands that leave the sandbox instead of the user",
                layer,
                "/approvals_reviewer",
                NAME,
            )
        )
    if doc.get("approval_policy") == "never" and wider is not None:
        out.append(
            report(
                USER_SKIPS_APPROVAL,
                f"approval_policy 'never' in {layer.display} runs every command with the "
                "sandbox this profile selects, which is not the policy's, without asking",
                layer,
                "/approval_policy",
                NAME,
                [wider],
            )
        )
    return out


def _profile_sandbox(
    doc: dict[str, Any], profile: str, layer: Layer, main: Layer | None, view: PolicyView
) -> tuple[list[Finding], Location | None]:
    """A profile file that selects other permissions or a legacy sandbox mode, and where the
    first of them replaces the policy's sandbox (None when neither does)."""
    out: list[Finding] = []
    ours = _selected_profile(view.ctx)
    wider: Location | None = None  # where this file replaces the policy's sandbox
    selected = doc.get("default_permissions")
    if isinstance(selected, str) and selected != ours and not view.ctx.full_access:
        related = [sandbox_origin(view.policy)]
        table = _permissions_table(selected, layer, main)
        if table is not None:
            related.append(table)
        found = report(
            CODEX_OTHER_PERMISSIONS,
            f"`codex --profile {profile}` selects permissions '{quoted(selected)}' instead of "
            f"'{quoted(ours)}', so the policy's filesystem and network rules do not apply in that "
            "profile",
            layer,
            "/default_permissions",
            NAME,
            related,
        )
        out.append(found)
        wider = found.location
    mode = doc.get("sandbox_mode")
    if isinstance(mode, str) and not view.ctx.full_access:
        found = report(
            CODEX_LEGACY_SANDBOX,
            f"legacy 'sandbox_mode' in {layer.display} makes `codex --profile {profile}` ignore "
            "default_permissions and the twsrt profile; remove it",
            layer,
            "/sandbox_mode",
            NAME,
            [sandbox_origin(view.policy)],
        )
        out.append(found)
        wider = wider or found.location
    return out, wider


def _permissions_table(name: str, *layers: Layer | None) -> Location | None:
    """Where ``[permissions.NAME]`` is defined (the profile file first, then config.toml)."""
    for layer in layers:
        if layer is None:
            continue
        tables = layer.value.get("permissions")
        if isinstance(tables, dict) and name in tables:
            return layer.at(f"/permissions/{name}")
    return None
