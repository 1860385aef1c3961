"""DeepCode: user keys in its settings files (the user file and the yolo ``--settings`` layer).

From DeepCode's source (oratis/deepcode 14d0f7f): ``evaluatePermission`` checks deny, then ask,
then allow; ``bypassPermissions`` skips the permission rules entirely (deny rules included);
``permissions.additionalDirectories`` is folded into the sandbox's ``allowWrite``
(sandbox/additional-dirs.ts); ``sandbox.excludedCommands`` run without the sandbox.
"""

from __future__ import annotations

from os.path import lexists  # False, never an error, for a name no file can have
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.deepcode.declaration import NAME, PROJECT_KEY, SETTINGS_KEY, YOLO_KEY
from twsrt.agents.deepcode.layer import target
from twsrt.effective import (
    Layer,
    PolicyView,
    child,
    command_reaches,
    load_layer,
    report,
    sandbox_origin,
    srt_key,
    strings,
)
from twsrt.findings import Finding, quoted
from twsrt.policy import Policy
from twsrt.rules import (
    USER_ALLOW_SHADOWED,
    USER_SKIPS_APPROVAL,
    USER_UNSANDBOXED_COMMAND,
    USER_WRITE_ROOT,
)


def findings(ctx: Context) -> list[Finding]:
    view = PolicyView(ctx)
    out: list[Finding] = []
    for path in _files(ctx):
        layer, problems = load_layer(path, "json", NAME, ctx.config, ctx.documents)
        out += problems
        if layer is not None:
            out += _check(layer, view)
    return out


def _files(ctx: Context) -> list[Path]:
    targets = ctx.config.targets
    if ctx.config.scope == "project":  # the project file and the local layer DeepCode reads after
        project = targets.get(PROJECT_KEY)
        return [] if project is None else [project, project.with_name("settings.local.json")]
    files = []
    full = targets.get(SETTINGS_KEY)
    if full is not None and not ctx.yolo:
        files.append(full)
    yolo = target(ctx if ctx.yolo else _yolo(ctx))
    if yolo is not None and (ctx.yolo or YOLO_KEY in targets or lexists(yolo[1])):
        files.append(yolo[1])
    return list(dict.fromkeys(files))


def _yolo(ctx: Context) -> Context:
    from dataclasses import replace

    return replace(ctx, yolo=True)


def _check(layer: Layer, view: PolicyView) -> list[Finding]:
    out: list[Finding] = []
    policy = view.policy
    permissions = child(layer.value, "permissions")
    if child(permissions, "defaultMode") == "bypassPermissions":
        related = [e.origin for e in policy.bash_deny[:1]]
        out.append(
            report(
                USER_SKIPS_APPROVAL,
                "permissions.defaultMode bypassPermissions makes DeepCode skip its permission "
                "rules entirely, so the policy's bash deny and ask rules are not applied",
                layer,
                "/permissions/defaultMode",
                NAME,
                related,
            )
        )
    out += _shadowed_allows(layer, permissions, policy)
    if view.sandboxed:
        out += _sandbox_widened(layer, permissions, view)
    return out


def _shadowed_allows(layer: Layer, permissions: Any, policy: Policy) -> list[Finding]:
    """Bash allow rules that name what a policy deny or ask covers (the policy still holds)."""
    out: list[Finding] = []
    for rule, pointer in strings(child(permissions, "allow"), "/permissions/allow"):
        tool, _, rest = rule.partition("(")
        if tool != "Bash" or not rest.endswith(")"):
            continue
        for kind, entries in (("deny", policy.bash_deny), ("ask", policy.bash_ask)):
            hit = next((e for e in entries if command_reaches(rest[:-1], e.value)), None)
            if hit is not None:
                out.append(
                    report(
                        USER_ALLOW_SHADOWED,
                        f"allow rule '{quoted(rule)}' names what the policy's bash {kind} "
                        f"'{quoted(hit.value)}' covers; DeepCode evaluates {kind} rules before "
                        "allow rules, so the policy still holds while that rule is there — remove "
                        "the allow entry",
                        layer,
                        pointer,
                        NAME,
                        [hit.origin],
                        key=False,
                    )
                )
                break
    return out


def _sandbox_widened(layer: Layer, permissions: Any, view: PolicyView) -> list[Finding]:
    """Extra write roots and commands run outside the sandbox."""
    out: list[Finding] = []
    for path, pointer in strings(
        child(permissions, "additionalDirectories"), "/permissions/additionalDirectories"
    ):
        if view.absolute(path):
            widens = view.writable(path) is None
        else:  # resolved against the working directory, which workspace-write makes writable
            widens = view.ctx.read_only or path.split("/")[0] == ".."
        if widens:
            out.append(
                report(
                    USER_WRITE_ROOT,
                    f"permissions.additionalDirectories '{quoted(path)}' becomes a write root of "
                    "DeepCode's sandbox, outside the policy's allowWrite",
                    layer,
                    pointer,
                    NAME,
                    srt_key(view.policy, "/filesystem/allowWrite"),
                    key=False,
                )
            )
    excluded = child(layer.value, "sandbox", "excludedCommands")
    for command, pointer in strings(excluded, "/sandbox/excludedCommands"):
        out.append(
            report(
                USER_UNSANDBOXED_COMMAND,
                f"sandbox.excludedCommands runs '{quoted(command)}' outside DeepCode's sandbox, "
                "where the policy's filesystem and network rules do not apply",
                layer,
                pointer,
                NAME,
                [sandbox_origin(view.policy)],
                key=False,
            )
        )
    return out
