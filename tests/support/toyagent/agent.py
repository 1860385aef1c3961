"""The toy agent's compile: the srt settings as written, ``enabled`` forced on, the whole file."""

from __future__ import annotations

import json

from support.toyagent.declaration import AGENT_SPEC, KEY, NAME
from twsrt.agents.base import Context, Drift, DriftItem, Result, read_target
from twsrt.writes import FileWrite


def document(ctx: Context) -> str:
    return json.dumps({**ctx.policy.srt, "enabled": True}, indent=2) + "\n"


class ToyAgent:
    spec = AGENT_SPEC
    name = AGENT_SPEC.name
    target_keys = AGENT_SPEC.keys

    def compile(self, ctx: Context) -> Result:
        text = document(ctx)
        path = ctx.config.targets.get(KEY)
        if path is None:
            return Result(NAME, lambda: text, target_configured=False)
        display = ctx.config.display_path(path)
        disk = read_target(path, display, ctx.config, ctx.documents)
        drift = Drift(display, target_key=KEY, old_text=disk, new_text=text)
        drift.missing_file = disk is None
        if disk is not None and disk != text:
            drift.extra = [DriftItem("document", "changed by hand")]
        change = FileWrite(path, display, text, disk, new_mode=0o600)
        return Result(NAME, lambda: text, changes=[change], drift=[drift])


AGENT = ToyAgent()
