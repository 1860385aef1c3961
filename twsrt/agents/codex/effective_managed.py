"""Codex: the host's managed layer (``/etc/codex/requirements.toml`` and
``/etc/codex/managed_config.toml``) over the user's config.toml.

Observed with Codex 0.171.0 (tests/real/test_codex_managed.py): managed_config.toml's keys win
over the user's config.toml; requirements.toml binds its ``default_permissions`` profile when
``[allowed_permission_profiles]`` does not list the user's, and its ``[features]`` pin the
user's. So a managed key decides what Codex runs with: one that grants more than the policy is
an error (TWS614), a bound profile that is not the policy's cannot be checked (TWS615), and a
user key the managed layer replaces with the policy's own value is a note (TWS613).

The layer is read where Codex reads it, below ``effective.host_root()`` (``$TWSRT_MANAGED_ROOT``
when set: tests; or a managed output tree's ``<os>/`` checked before it is deployed). No managed
file: no finding.
"""

from __future__ import annotations

from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.codex.declaration import (
    FULL_ACCESS,
    OWNED_TOP,
    PROFILE,
    SYSTEM_MANAGED_CONFIG,
    SYSTEM_REQUIREMENTS,
)
from twsrt.agents.codex.rules import (
    CODEX_MANAGED_OVERRIDES,
    CODEX_MANAGED_PROFILE_DIFFERS,
    CODEX_MANAGED_WIDENS,
)
from twsrt.effective import Layer, host_path, load_layer, report, sandbox_origin
from twsrt.findings import Finding, quoted

NAME = "codex"

# built-in profiles wider than any profile twsrt compiles (which extend :read-only)
WIDE_BUILTINS = (FULL_ACCESS, ":workspace")


def findings(ctx: Context, main: Layer | None) -> list[Finding]:
    """What the host's managed layer does to the user's config.toml (``main``, None when the
    user has none)."""
    config = ctx.config.confined(None)  # system files: outside any repository, on purpose
    requirements, out = load_layer(
        host_path(SYSTEM_REQUIREMENTS), "toml", NAME, config, ctx.documents
    )
    managed, problems = load_layer(
        host_path(SYSTEM_MANAGED_CONFIG), "toml", NAME, config, ctx.documents
    )
    out += problems
    if managed is not None:
        out += _managed_config(ctx, managed, main)
    if requirements is not None:
        out += _requirements(ctx, requirements, main)
    return out + _profile(ctx, requirements, managed, main)


def _wanted_profile(ctx: Context) -> str:
    return FULL_ACCESS if ctx.full_access else PROFILE


def _domain_rules(ctx: Context) -> bool:
    return bool(ctx.policy.allowed_domains or ctx.policy.denied_domains)


def _widens(layer: Layer, pointer: str, message: str, ctx: Context) -> Finding:
    return report(
        CODEX_MANAGED_WIDENS,
        f"{message} in {layer.display}, which Codex applies over the user's config.toml",
        layer,
        pointer,
        NAME,
        [sandbox_origin(ctx.policy)],
    )


def _managed_config(ctx: Context, managed: Layer, main: Layer | None) -> list[Finding]:
    doc: dict[str, Any] = managed.value
    out: list[Finding] = []
    if isinstance(doc.get("sandbox_mode"), str) and not ctx.full_access:
        message = f"legacy sandbox_mode '{quoted(doc['sandbox_mode'])}' replaces the twsrt profile"
        out.append(_widens(managed, "/sandbox_mode", message, ctx))
    reviewer = doc.get("approvals_reviewer")
    if isinstance(reviewer, str) and reviewer != OWNED_TOP["approvals_reviewer"]:
        message = f"approvals_reviewer '{quoted(reviewer)}' lets a model approve escalations"
        out.append(_widens(managed, "/approvals_reviewer", message, ctx))
    if doc.get("allow_login_shell") is True:
        message = "allow_login_shell = true lets the shell source login profiles"
        out.append(_widens(managed, "/allow_login_shell", message, ctx))
    if _proxy_off(doc) and _domain_rules(ctx) and not ctx.full_access:
        message = "features.network_proxy = false leaves the policy's domain rules unenforced"
        out.append(_widens(managed, "/features/network_proxy", message, ctx))
    if main is not None:
        out += _overridden(managed, main)
    return out


def _proxy_off(doc: dict[str, Any]) -> bool:
    features = doc.get("features")
    return isinstance(features, dict) and features.get("network_proxy") is False


def _overridden(managed: Layer, main: Layer) -> list[Finding]:
    """The user's top-level keys (and feature switches) that managed_config.toml replaces."""
    out = []
    pairs = [(f"/{key}", main.value.get(key), managed.value.get(key)) for key in main.value]
    user_features, managed_features = main.value.get("features"), managed.value.get("features")
    if isinstance(user_features, dict) and isinstance(managed_features, dict):
        pairs += [
            (f"/features/{key}", value, managed_features.get(key))
            for key, value in user_features.items()
        ]
    for pointer, user, wins in pairs:
        if wins is None or isinstance(wins, dict) or wins == user:
            continue
        out.append(
            report(
                CODEX_MANAGED_OVERRIDES,
                f"'{quoted(pointer[1:].replace('/', '.'))}' is replaced by {managed.display}, "
                "which Codex applies over this file",
                main,
                pointer,
                NAME,
                [managed.at(pointer)],
            )
        )
    return out


def _requirements(ctx: Context, requirements: Layer, main: Layer | None) -> list[Finding]:
    out: list[Finding] = []
    if _proxy_off(requirements.value) and _domain_rules(ctx) and not ctx.full_access:
        message = "features.network_proxy = false leaves the policy's domain rules unenforced"
        out.append(_widens(requirements, "/features/network_proxy", message, ctx))
    if main is not None:
        out += _refused(requirements, main)
    return out


def _profile(
    ctx: Context, requirements: Layer | None, managed: Layer | None, main: Layer | None
) -> list[Finding]:
    """The permissions profile Codex runs with, when a managed layer chooses it: the managed
    config's ``default_permissions`` over the user's, and the requirements' own when their
    ``[allowed_permission_profiles]`` does not list that one."""
    chosen = _selected(managed, main)
    runs, chooser, fallback = chosen, None, False
    if chosen is not None and chosen[1] is managed:
        chooser = managed
    allowed = requirements.value.get("allowed_permission_profiles") if requirements else None
    bound = requirements.value.get("default_permissions") if requirements else None
    if (
        requirements is not None
        and isinstance(allowed, dict)
        and isinstance(bound, str)
        and (chosen is None or allowed.get(chosen[0]) is not True)
    ):
        runs, chooser, fallback = (bound, requirements), requirements, True
    if runs is None or chooser is None:
        return []  # the user's own choice runs: the checks of the user's files cover it
    name = runs[0]
    if ctx.full_access:
        pass  # no profile is wider than the policy's own full access
    elif name in WIDE_BUILTINS:
        message = f"default_permissions '{quoted(name)}' replaces the twsrt profile"
        return [_widens(chooser, "/default_permissions", message, ctx)]
    elif not name.startswith(":") and not _policy_profile(ctx, name, requirements, managed):
        return [
            report(
                CODEX_MANAGED_PROFILE_DIFFERS,
                f"{chooser.display} makes Codex run with permissions '{quoted(name)}', which "
                "is not the profile this policy compiles to",
                chooser,
                "/default_permissions",
                NAME,
                [sandbox_origin(ctx.policy)],
            )
        ]
    if not (fallback and chosen is not None and chosen[1] is main and chosen[0] != name):
        return []  # a managed config that replaces the user's choice: ``_overridden`` notes it
    return [
        report(
            CODEX_MANAGED_OVERRIDES,
            f"default_permissions '{quoted(chosen[0])}' is not allowed by {chooser.display}; "
            f"Codex runs with '{quoted(name)}' instead, which holds the policy",
            chosen[1],
            "/default_permissions",
            NAME,
            [chooser.at("/default_permissions")],
        )
    ]


# user keys whose values requirements.toml constrains to an allowed set
ALLOWED_SETS = {
    "approval_policy": "allowed_approval_policies",
    "approvals_reviewer": "allowed_approvals_reviewers",
}


def _refused(requirements: Layer, main: Layer) -> list[Finding]:
    """The user's values outside the requirements' allowed sets: Codex falls back to an allowed
    value and says so at start-up."""
    out = []
    for key, allowed_key in ALLOWED_SETS.items():
        value, allowed = main.value.get(key), requirements.value.get(allowed_key)
        if value is None or not isinstance(allowed, list) or value in allowed:
            continue
        shown = value if isinstance(value, str) else "a table"
        out.append(
            report(
                CODEX_MANAGED_OVERRIDES,
                f"{key} '{quoted(shown)}' is not allowed by {requirements.display}; Codex falls "
                "back to an allowed value",
                main,
                f"/{key}",
                NAME,
                [requirements.at(f"/{allowed_key}")],
            )
        )
    return out


def _selected(managed: Layer | None, main: Layer | None) -> tuple[str, Layer] | None:
    """The profile the config layers select and the layer that selects it (managed first)."""
    for layer in (managed, main):
        if layer is not None and isinstance(layer.value.get("default_permissions"), str):
            return layer.value["default_permissions"], layer
    return None


def _policy_profile(ctx: Context, name: str, *layers: Layer | None) -> bool:
    """Is ``[permissions.NAME]`` (in the first managed layer that defines it) the profile the
    policy compiles to?"""
    from twsrt.agents.codex.files import _same
    from twsrt.agents.codex.translate import translate

    for layer in layers:
        tables = layer.value.get("permissions") if layer is not None else None
        table = tables.get(name) if isinstance(tables, dict) else None
        if isinstance(table, dict):
            compiled, _ = translate(ctx.policy, ctx.sandbox_mode, None)
            return _same(table, compiled.profile)
    return False
