"""The toy agent's effective check: ``sandbox.local.json`` beside the target may switch the
sandbox off (an error at its line)."""

from __future__ import annotations

from support.toyagent.declaration import KEY, LOCAL, NAME
from support.toyagent.rules import TOY_SANDBOX_OFF
from twsrt.agents.base import Context
from twsrt.effective import load_layer, report
from twsrt.findings import Finding


def findings(ctx: Context) -> list[Finding]:
    target = ctx.config.targets.get(KEY)
    if target is None:
        return []
    layer, out = load_layer(target.parent / LOCAL, "json", NAME, ctx.config, ctx.documents)
    if layer is not None and layer.value.get("enabled") is False:
        out.append(report(TOY_SANDBOX_OFF, "the toy sandbox is off", layer, "/enabled", NAME))
    return out
