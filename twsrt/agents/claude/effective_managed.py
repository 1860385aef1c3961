"""Claude Code's managed layer on this machine, as the effective check of the user files sees it.

Claude reads ``managed-settings.json`` and the ``managed-settings.d/*.json`` drop-ins of its
managed directory (``effective.host_path``) above every other layer (observed with
Claude Code 2.1.332 in a private mount namespace): a value set there wins over the user's;
``allowManagedPermissionRulesOnly`` drops the user's permission rules (yet an ``Edit(...)``
allow rule still adds a sandbox write root), ``allowManagedDomainsOnly`` the user's hosts and
``allowManagedReadPathsOnly`` the user's allowRead paths, and ``disableBypassPermissionsMode``
refuses a user's ``defaultMode: bypassPermissions``. So:

- a user finding at a key the managed layer overrides becomes a note (TWS610), and so does
  every other user key it overrides with another value;
- the managed layer itself is checked as any settings file, and what grants more than the
  policy there is an error (TWS611);
- managed rules-only mode without the policy's deny and ask rules drops them (TWS612).

Host-dependent: findings only, never an output change.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.claude.declaration import INSTALL_PATHS, MANAGED_DROP_INS, MANAGED_TARGETS
from twsrt.agents.claude.rules import (
    MANAGED_DROPS_POLICY_RULES,
    MANAGED_LAYER_GRANT,
    MANAGED_OVERRIDES_USER_KEY,
)
from twsrt.effective import Layer, PolicyView, child, host_path, load_layer, report, strings
from twsrt.findings import Finding, finding, quoted
from twsrt.records import record
from twsrt.rules import USER_ALLOW_SHADOWED, USER_WRITE_ROOT

NAME = "claude"

# What each switch of the managed layer makes Claude ignore in the other files.
IGNORED_BY = {
    "/allowManagedPermissionRulesOnly": (
        "/permissions/allow",
        "/permissions/deny",
        "/permissions/ask",
    ),
    "/sandbox/network/allowManagedDomainsOnly": ("/sandbox/network/allowedDomains",),
    "/sandbox/filesystem/allowManagedReadPathsOnly": ("/sandbox/filesystem/allowRead",),
}

# A user value a managed switch refuses: pointer -> (switch, its value, the refused user value).
REFUSED_BY = {
    "/permissions/defaultMode": (
        "/permissions/disableBypassPermissionsMode",
        "disable",
        "bypassPermissions",
    ),
}

Check = Callable[[Layer, PolicyView, bool, Callable[[str], bool]], list[Finding]]


@record(frozen=False)
class ManagedLayers:
    """The managed files found on this machine, in Claude's order (the file, then drop-ins)."""

    layers: list[Layer]

    def value(self, pointer: str) -> Any:
        """The value the managed layer gives ``pointer`` (the last file that sets it wins)."""
        found = None
        for layer in self.layers:
            node = child(layer.value, *pointer.strip("/").split("/"))
            if node is not None:
                found = node
        return found

    def setter(self, pointer: str) -> Layer:
        """The last managed file that sets ``pointer``."""
        parts = pointer.strip("/").split("/")
        return [layer for layer in self.layers if child(layer.value, *parts) is not None][-1]

    def rules(self) -> set[str]:
        """Every deny and ask rule of the managed layer."""
        out: set[str] = set()
        for layer in self.layers:
            for kind in ("deny", "ask"):
                out |= {rule for rule, _at in strings(child(layer.value, "permissions", kind), "")}
        return out

    def rebind(
        self, layer: Layer, found: list[Finding], owned: Callable[[str], bool]
    ) -> list[Finding]:
        return rebind(self, layer, found, owned)

    def findings(self, view: PolicyView, check: Check, targets: list[Layer]) -> list[Finding]:
        return managed_findings(self, view, check, targets)

    def ignored(self) -> dict[str, str]:
        """User list pointers the managed switches make Claude ignore -> the switch."""
        return {
            pointer: switch
            for switch, pointers in IGNORED_BY.items()
            if self.value(switch) is True
            for pointer in pointers
        }


def load(ctx: Context) -> tuple[ManagedLayers, list[Finding]]:
    """The managed files Claude would load on this machine (none: an empty layer list)."""
    config = ctx.config.confined(None)  # system files, outside any repository
    layers, problems = [], []
    for each in with_drop_ins(host_path(INSTALL_PATHS)):
        layer, found = load_layer(each, "json", NAME, config, ctx.documents)
        problems += found
        if layer is not None:
            layers.append(layer)
    return ManagedLayers(layers), problems


def with_drop_ins(path: Path) -> list[Path]:
    """A managed file and the drop-ins Claude reads after it (``managed-settings.d/*.json``
    beside it, in name order)."""
    drop_ins = path.parent / MANAGED_DROP_INS
    if not drop_ins.is_dir():
        return [path]
    return [path, *sorted(p for p in drop_ins.iterdir() if p.suffix == ".json")]


def rebind(
    managed: ManagedLayers, layer: Layer, found: list[Finding], owned: Callable[[str], bool]
) -> list[Finding]:
    """A user file's findings under the managed layer: those at keys it overrides become
    notes (an ``Edit(...)`` write root stays: Claude still adds it), plus a note per other
    key it overrides."""
    overridden = _overridden(layer, managed)
    out: list[Finding] = []
    noted: set[str] = set()
    for item in found:
        pointer = item.location.pointer
        hit = next((p for p in overridden if _under(pointer, p)), None)
        if hit is None or item.rule is USER_WRITE_ROOT or item.rule is USER_ALLOW_SHADOWED:
            out.append(item)
            continue
        noted.add(hit)
        out.append(_note(layer, hit, overridden[hit], managed, item.message))
    for pointer, why in overridden.items():
        if pointer not in noted and not owned(_dotted(pointer)):  # twsrt's own: TWS611/612
            out.append(_note(layer, pointer, why, managed, ""))
    return out


def _overridden(layer: Layer, managed: ManagedLayers) -> dict[str, str]:
    """User pointers the managed layer overrides -> the managed switch that ignores them
    (a pointer), or ``value`` for a scalar the managed layer sets to another value."""
    out: dict[str, str] = {}
    for pointer, switch in managed.ignored().items():
        value = child(layer.value, *pointer.strip("/").split("/"))
        if isinstance(value, list) and value:
            out[pointer] = switch
    for pointer, (switch, setting, refused) in REFUSED_BY.items():
        value = child(layer.value, *pointer.strip("/").split("/"))
        if value == refused and managed.value(switch) == setting:
            out[pointer] = switch
    for pointer, value in _leaves(layer.value, ""):
        theirs = managed.value(pointer)
        if theirs is not None and not isinstance(theirs, dict | list) and theirs != value:
            out[pointer] = "value"
    return out


def _leaves(node: Any, pointer: str) -> list[tuple[str, Any]]:
    """Every scalar member of a JSON object with its pointer (lists are not walked)."""
    if not isinstance(node, dict):
        return [] if isinstance(node, list) or not pointer else [(pointer, node)]
    out: list[tuple[str, Any]] = []
    for key, value in node.items():
        out += _leaves(value, f"{pointer}/{key}")
    return out


def _under(pointer: str, prefix: str) -> bool:
    return pointer == prefix or pointer.startswith(prefix + "/")


def _dotted(pointer: str) -> str:
    return pointer.strip("/").replace("/", ".")


def _note(layer: Layer, pointer: str, why: str, managed: ManagedLayers, was: str) -> Finding:
    if why == "value":
        setter = managed.setter(pointer)
        shown = json.dumps(managed.value(pointer))
        message = (
            f"{_dotted(pointer)} in {layer.display} has no effect on this machine: its managed "
            f"settings ({setter.display}) set it to {quoted(shown)}"
        )
        related = (setter.at(pointer),)
    else:
        setter = managed.setter(why)
        message = (
            f"{_dotted(pointer)} in {layer.display} is ignored on this machine: its managed "
            f"settings ({setter.display}) set {_dotted(why)}"
        )
        related = (setter.at(why),)
    if was:
        message += f" (so this is not in effect: {was})"
    return finding(
        MANAGED_OVERRIDES_USER_KEY, message, layer.at(pointer), agent=NAME, related=related
    )


def managed_findings(
    managed: ManagedLayers, view: PolicyView, check: Check, targets: list[Layer]
) -> list[Finding]:
    """What the managed files grant beyond the policy (TWS611), and the policy's rules that
    managed rules-only mode drops (TWS612)."""
    out: list[Finding] = []
    for layer in managed.layers:
        out += _as_managed(check(layer, view, False, lambda _key: False))
    if managed.value("/allowManagedPermissionRulesOnly") is True:
        out += _dropped_rules(managed, targets)
    return out


def tree_findings(
    ctx: Context, view: PolicyView, check: Check, twsrt_keys: Callable[[str], bool]
) -> list[Finding]:
    """A managed-scope run: the keys of the output tree's files that twsrt does not own (the
    administrator's, kept by the merge, and the drop-ins beside them) and that grant more than
    the policy (TWS611)."""
    from twsrt.agents.claude.managed import BINDING, MANAGED_ONLY_KEYS, SANDBOX_DEFAULTS

    extra = {pointer.strip("/").replace("/", ".") for pointer in BINDING}
    extra |= {f"sandbox.{key}" for key in (*SANDBOX_DEFAULTS, *MANAGED_ONLY_KEYS)}

    def owned(key: str) -> bool:
        return twsrt_keys(key) or key in extra

    out: list[Finding] = []
    for spec in MANAGED_TARGETS:
        path = ctx.config.targets.get(spec.key)
        if path is None:
            continue
        for each in with_drop_ins(path):
            layer, problems = load_layer(each, "json", NAME, ctx.config, ctx.documents)
            out += problems
            if layer is not None:  # a drop-in is the administrator's whole
                mine = owned if each == path else lambda _key: False
                out += _as_managed(check(layer, view, False, mine))
    return out


def _as_managed(found: list[Finding]) -> list[Finding]:
    """Findings of a managed file: what grants more is TWS611 (the shadowed-allow notes stay)."""
    return [
        item
        if item.rule is USER_ALLOW_SHADOWED
        else finding(
            MANAGED_LAYER_GRANT,
            f"managed settings: {item.message}",
            item.location,
            agent=NAME,
            related=item.related,
        )
        for item in found
    ]


def _dropped_rules(managed: ManagedLayers, targets: list[Layer]) -> list[Finding]:
    """twsrt's deny and ask rules in the user targets that the managed layer does not carry."""
    carried = managed.rules()
    missing: list[tuple[str, Layer, str]] = []
    for layer in targets:
        for kind in ("deny", "ask"):
            pointer = f"/permissions/{kind}"
            for rule, at in strings(child(layer.value, "permissions", kind), pointer):
                if rule not in carried:
                    missing.append((rule, layer, at))
    if not missing:
        return []
    rule, layer, at = missing[0]
    switch = "/allowManagedPermissionRulesOnly"
    setter = managed.setter(switch)
    more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
    return [
        report(
            MANAGED_DROPS_POLICY_RULES,
            f"allowManagedPermissionRulesOnly makes Claude Code ignore the permission rules of "
            f"the user settings, and the managed settings do not carry '{quoted(rule)}'{more} "
            f"that twsrt wrote there: those rules are not enforced on this machine",
            setter,
            switch,
            NAME,
            [layer.at(at, key=False)],
        )
    ]
