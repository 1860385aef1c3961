"""Copilot CLI: user keys in ``~/.copilot/settings.json`` beside the managed sandbox keys.

twsrt owns every switch of the ``sandbox`` object that opens or closes it, the three
``userPolicy.filesystem`` lists, the network keys and the URL lists; what stays the user's and
can still grant more is the macOS keychain switch (plain and experimental), which lets sandboxed
commands read the login keychain the policy never names.
"""

from __future__ import annotations

from twsrt.agents.base import Context
from twsrt.effective import PolicyView, child, load_layer, report
from twsrt.findings import Finding
from twsrt.rules import USER_SANDBOX_GRANT

NAME = "copilot"
KEYCHAIN = (
    ("userPolicy", "seatbelt", "keychainAccess"),
    ("userPolicy", "experimental", "seatbelt", "keychainAccess"),
)


def findings(ctx: Context) -> list[Finding]:
    path = ctx.config.targets.get("copilot_settings")
    if path is None or not PolicyView(ctx).sandboxed:
        return []
    layer, out = load_layer(path, "json", NAME, ctx.config, ctx.documents)
    if layer is None:
        return []  # an unreadable target is the compile's target-unusable
    sandbox = child(layer.value, "sandbox")
    for keys in KEYCHAIN:
        if child(sandbox, *keys) is True:
            pointer = "/sandbox/" + "/".join(keys)
            out.append(
                report(
                    USER_SANDBOX_GRANT,
                    f"sandbox.{'.'.join(keys)} lets sandboxed commands use the macOS keychain, "
                    "which the policy does not grant",
                    layer,
                    pointer,
                    NAME,
                )
            )
    return out
