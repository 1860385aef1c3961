"""Claude Code: user keys in the targets and a ``settings.local.json`` beside them.

Claude merges permission and sandbox lists across its settings layers, turns ``Edit(...)`` allow
rules into sandbox write roots and ``WebFetch(domain:...)`` allow rules into allowed hosts, and
evaluates deny before ask before allow (docs; agents-formats §2.2/§2.3). So an allow entry that
names a denied path or command is shadowed (a note), while a grant the sandbox takes is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from os.path import lexists  # False, never an error, for a name no file can have
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context, yolo_variant
from twsrt.agents.claude import agent as target
from twsrt.agents.claude.declaration import INSTALL_PATHS, MANAGED_DROP_INS, NAME
from twsrt.agents.claude.effective_layers import below_other_roots, planted_layers
from twsrt.agents.claude.effective_permissions import permission_findings
from twsrt.effective import (
    Layer,
    PolicyView,
    child,
    host_path,
    load_layer,
    report,
    sandbox_origin,
    srt_key,
    strings,
)
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.rules import (
    AGENT_SANDBOX_OFF,
    USER_ALLOW_RULE,
    USER_NETWORK_GRANT,
    USER_SANDBOX_GRANT,
    USER_UNSANDBOXED_COMMAND,
    USER_WRITE_ROOT,
    Rule,
)

LOCAL_NAME = "settings.local.json"
# switches that open the sandbox wider when true (JSON pointer below /sandbox)
GRANT_SWITCHES = (
    "/network/allowLocalBinding",
    "/network/allowAllUnixSockets",
    "/filesystem/disabled",
    "/enableWeakerNetworkIsolation",
    "/enableWeakerNestedSandbox",
    "/allowAppleEvents",
    "/allowNestedUserNamespaces",
)
# settings values that hand the sandbox's filtering to someone else
GRANT_VALUES = ("/network/httpProxyPort", "/network/socksProxyPort")
SANDBOX_PLATFORMS = ("linux", "macos")  # where Claude's sandbox runs (bubblewrap, Seatbelt)


def findings(ctx: Context) -> list[Finding]:
    view = PolicyView(ctx)
    if ctx.config.scope == "managed":  # the output tree's files (effective_managed.py)
        from twsrt.agents.claude import effective_managed as claude_managed

        return claude_managed.tree_findings(ctx, view, _check, _managed(ctx, "full"))
    managed, out = _managed_layer(ctx)
    targets: list[Layer] = []  # twsrt's own files, whose rules a managed rules-only mode drops
    files = _layers(ctx)
    first = Location(ctx.config.display_path(files[0][0])) if files else None
    out += planted_layers(ctx, managed, first)  # between launches (effective_layers.py)
    out += below_other_roots(ctx)
    for path, yolo, owned in files:
        layer, problems = load_layer(path, "json", NAME, ctx.config, ctx.documents)
        out += problems
        if layer is None:
            continue
        found = _check(layer, view, yolo, owned)
        if managed is not None:
            found = managed.rebind(layer, found, owned)
            targets += [layer] if owned("permissions.deny") else []
        out += found
    return out if managed is None else out + managed.findings(view, _check, targets)


def _managed_layer(ctx: Context) -> tuple[Any, list[Finding]]:
    """This machine's Claude managed settings (effective_managed.py), None when it has
    none (or the run checks a project's files); that module is imported only then."""
    path = host_path(INSTALL_PATHS)
    if ctx.config.scope != "user" or not (lexists(path) or lexists(path.parent / MANAGED_DROP_INS)):
        return None, []
    from twsrt.agents.claude import effective_managed as claude_managed

    return claude_managed.load(ctx)


def _layers(ctx: Context) -> list[tuple[Path, bool, Callable[[str], bool]]]:
    """Each file Claude may load in this run: (path, yolo file?, is-this-key-managed)."""
    targets = ctx.config.targets
    project = targets.get(target.PROJECT_KEY)
    if ctx.config.scope == "project" and project is not None:  # the project and its local file
        return [(project, False, _managed(ctx, "full")), (project.parent / LOCAL_NAME, False, _no)]
    full = targets.get("claude_settings")
    yolo = targets.get("claude_settings_yolo") or (yolo_variant(full) if full else None)
    files: list[tuple[Path, bool, Callable[[str], bool]]] = []
    if full is not None and not ctx.yolo:
        files.append((full, False, _managed(ctx, "full")))
    if yolo is not None and (ctx.yolo or "claude_settings_yolo" in targets or lexists(yolo)):
        files.append((yolo, True, _managed(ctx, "yolo")))
    anchor = full or yolo
    if anchor is not None:
        link = anchor.parent / target.LINK_NAME
        # a regular settings.json that is not a target is what Claude loads until migrated
        if link.is_file() and not link.is_symlink() and link not in (full, yolo):
            files.append((link, ctx.yolo, _managed(ctx, "yolo" if ctx.yolo else "full")))
        files.append((anchor.parent / LOCAL_NAME, ctx.yolo, lambda _key: False))
    return files


def _no(_key: str) -> bool:
    return False


def _managed(ctx: Context, mode: str) -> Callable[[str], bool]:
    """``sandbox.x`` / ``sandbox.network.x`` / ``permissions.x`` keys twsrt writes in a target:
    drift detection covers them."""
    keys = {f"sandbox.{k}" for k in target.TOP_KEYS}
    keys |= {f"sandbox.{k}" for k in ctx.config.overrides.get(mode, {})}
    keys |= {f"sandbox.{k}" for k in target.MODE_FORCED.get(ctx.sandbox_mode, {})}
    keys |= {f"sandbox.{k}" for k in target.MODE_DROPPED.get(ctx.sandbox_mode, ())}
    keys |= {f"sandbox.network.{k}" for k in target.NETWORK_KEYS}
    keys |= {f"sandbox.filesystem.{k}" for k in target.FILESYSTEM_KEYS}
    keys |= {"permissions.deny", "permissions.ask"}
    return keys.__contains__


def _dotted(pointer: str) -> str:
    return pointer.strip("/").replace("/", ".")


def _check(
    layer: Layer, view: PolicyView, yolo: bool, owned: Callable[[str], bool]
) -> list[Finding]:
    doc = layer.value

    def user(pointer: str) -> bool:
        """Present in this file and not managed by twsrt."""
        return (
            not owned(_dotted(pointer)) and child(doc, *pointer.strip("/").split("/")) is not None
        )

    out: list[Finding] = []
    if view.sandboxed:
        out += _sandbox_switches(layer, view, user)
        if isinstance(child(doc, "sandbox"), dict):
            out += _sandbox_grants(layer, view, user)
    return out + permission_findings(layer, view, yolo, owned)


def _sandbox_switches(layer: Layer, view: PolicyView, user: Callable[[str], bool]) -> list[Finding]:
    """User keys that turn the sandbox off, or let commands run outside it."""
    sandbox = child(layer.value, "sandbox")
    origin = [sandbox_origin(view.policy)]
    return _sandbox_off(layer, sandbox, user, origin) + _unsandboxed(layer, sandbox, user, origin)


def _sandbox_off(
    layer: Layer, sandbox: Any, user: Callable[[str], bool], origin: list[Location]
) -> list[Finding]:
    """The sandbox switched off, or off on a platform the policy's sandbox covers."""
    out: list[Finding] = []
    if user("/sandbox/enabled") and child(sandbox, "enabled") is False:
        out.append(
            report(
                AGENT_SANDBOX_OFF,
                f"sandbox.enabled is false in {layer.display}: Claude Code runs every command "
                "without its sandbox although the policy's sandbox is on",
                layer,
                "/sandbox/enabled",
                NAME,
                origin,
            )
        )
    platforms = child(sandbox, "enabledPlatforms")
    if user("/sandbox/enabledPlatforms") and isinstance(platforms, list):
        missing = [p for p in SANDBOX_PLATFORMS if p not in platforms]
        if missing:
            out.append(
                report(
                    AGENT_SANDBOX_OFF,
                    f"sandbox.enabledPlatforms leaves out {' and '.join(missing)}: there Claude "
                    "Code runs every command without its sandbox",
                    layer,
                    "/sandbox/enabledPlatforms",
                    NAME,
                    origin,
                )
            )
    return out


def _unsandboxed(
    layer: Layer, sandbox: Any, user: Callable[[str], bool], origin: list[Location]
) -> list[Finding]:
    """Commands the user's keys let run outside the sandbox."""
    out: list[Finding] = []
    if user("/sandbox/excludedCommands"):
        for command, pointer in strings(
            child(sandbox, "excludedCommands"), "/sandbox/excludedCommands"
        ):
            out.append(
                report(
                    USER_UNSANDBOXED_COMMAND,
                    f"sandbox.excludedCommands runs '{quoted(command)}' outside Claude's sandbox, "
                    "where the policy's filesystem and network rules do not apply",
                    layer,
                    pointer,
                    NAME,
                    origin,
                    key=False,
                )
            )
    unsandboxed = child(sandbox, "allowUnsandboxedCommands") is True
    if unsandboxed and user("/sandbox/allowUnsandboxedCommands"):
        out.append(
            report(
                USER_UNSANDBOXED_COMMAND,
                "sandbox.allowUnsandboxedCommands is true: Claude may rerun any command "
                "outside its sandbox (after asking), where the policy's rules do not apply",
                layer,
                "/sandbox/allowUnsandboxedCommands",
                NAME,
                origin,
            )
        )
    return out


def _sandbox_grants(layer: Layer, view: PolicyView, user: Callable[[str], bool]) -> list[Finding]:
    """Sandbox lists and switches in a file where twsrt does not own them."""
    sandbox = layer.value["sandbox"]
    out = _switch_grants(layer, view, user)
    for key, judge in _LIST_GRANTS:
        pointer = f"/sandbox/{key}"
        if not user(pointer):
            continue
        for item, at in strings(child(sandbox, *key.split("/")), pointer):
            found = judge(item, at, layer, view)
            if found is not None:
                out.append(found)
    return out


def _switch_grants(layer: Layer, view: PolicyView, user: Callable[[str], bool]) -> list[Finding]:
    """Sandbox switches turned on, and proxies named, that the policy does not set."""
    sandbox = layer.value["sandbox"]
    srt = view.policy.srt
    out: list[Finding] = []
    for sub in GRANT_SWITCHES:
        pointer = "/sandbox" + sub
        keys = sub.strip("/").split("/")
        if user(pointer) and child(sandbox, *keys) is True and child(srt, *keys) is not True:
            out.append(
                report(
                    USER_SANDBOX_GRANT,
                    f"{_dotted(pointer)} is true in {layer.display}; the policy does not grant it",
                    layer,
                    pointer,
                    NAME,
                )
            )
    for sub in GRANT_VALUES:
        pointer = "/sandbox" + sub
        value = child(sandbox, *sub.strip("/").split("/"))
        if user(pointer) and value is not None and value != child(srt, *sub.strip("/").split("/")):
            out.append(
                report(
                    USER_SANDBOX_GRANT,
                    f"{_dotted(pointer)} hands the sandbox's host filtering to a proxy the policy "
                    "does not name",
                    layer,
                    pointer,
                    NAME,
                )
            )
    return out


def _entry(
    rule: Rule, message: str, layer: Layer, pointer: str, related: Iterable[Location] = ()
) -> Finding:
    """The finding of one entry of a sandbox list a user file widens (at its value)."""
    return report(rule, message, layer, pointer, NAME, related, key=False)


def _socket_grant(socket: str, pointer: str, layer: Layer, view: PolicyView) -> Finding | None:
    if socket in set(child(view.policy.srt, "network", "allowUnixSockets") or []):
        return None
    return _entry(
        USER_SANDBOX_GRANT,
        f"sandbox.network.allowUnixSockets opens '{quoted(socket)}', which the policy does not "
        "allow",
        layer,
        pointer,
    )


def _beyond(
    key: str, rule: Rule, grant: str, layer: Layer, pointer: str, view: PolicyView
) -> Finding:
    """An entry of the sandbox list ``key`` that grants beyond the policy's own list of that name
    (its related place): ``grant`` says what the entry does."""
    where = "sandbox." + key.replace("/", ".")
    message = f"{where} in {layer.display} {grant}"
    return _entry(rule, message, layer, pointer, srt_key(view.policy, "/" + key))


def _domain_grant(host: str, pointer: str, layer: Layer, view: PolicyView) -> Finding | None:
    if any(host == e.value for e in view.policy.allowed_domains) or view.domain_allowed(host):
        return None
    grant = f"adds '{quoted(host)}', which the policy's allowedDomains does not list"
    return _beyond("network/allowedDomains", USER_NETWORK_GRANT, grant, layer, pointer, view)


def _write_grant(path: str, pointer: str, layer: Layer, view: PolicyView) -> Finding | None:
    if not view.absolute(path) or view.writable(path) is not None:
        return None
    grant = f"makes '{quoted(path)}' writable, outside the policy's allowWrite"
    return _beyond("filesystem/allowWrite", USER_WRITE_ROOT, grant, layer, pointer, view)


def _read_grant(path: str, pointer: str, layer: Layer, view: PolicyView) -> Finding | None:
    if not view.absolute(path):
        return None
    policy = view.policy
    hit = view.denied(path, policy.deny_read)
    granted = any(view.expand(r.path) == view.expand(path) for r in policy.allow_read)
    if hit is None or granted:
        return None
    return _entry(
        USER_ALLOW_RULE,
        f"sandbox.filesystem.allowRead in {layer.display} re-opens '{quoted(path)}' inside the "
        f"policy's denyRead '{quoted(hit.path)}' (allowRead wins over denyRead)",
        layer,
        pointer,
        [hit.origin],
    )


# sandbox lists a user file may widen, each entry judged against the policy
_LIST_GRANTS: tuple[tuple[str, Callable[[str, str, Layer, PolicyView], Finding | None]], ...] = (
    ("network/allowUnixSockets", _socket_grant),
    ("network/allowedDomains", _domain_grant),
    ("filesystem/allowWrite", _write_grant),
    ("filesystem/allowRead", _read_grant),
)


__all__ = ["findings"]
