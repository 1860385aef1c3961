"""The pure translation of a policy for OpenCode: the shared ``permission`` grammar
(``agents/opencodegrammar.py``) for OpenCode itself, and what only OpenCode has: no sandbox at
all (TWS452, with the srt launch line)."""

from __future__ import annotations

import shlex

from twsrt.agents.lossy import write_roots_location
from twsrt.agents.opencode.declaration import HANDLED_SRT_KEYS, LABEL, NAME, REASONS
from twsrt.agents.opencode.rules import OPENCODE_NO_SANDBOX
from twsrt.agents.opencodegrammar import (
    OPENCODE,
    Compiled,
    outside_pattern,
    relative_patterns,
    translate_permission,
    wildcard,
)
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.findings import Finding, finding
from twsrt.policy import Policy

__all__ = [
    "Compiled",
    "no_sandbox_finding",
    "outside_pattern",
    "relative_patterns",
    "translate",
    "wildcard",
]


def translate(policy: Policy, sandbox_mode: str, yolo: bool) -> tuple[Compiled, list[Finding]]:
    """OpenCode's ``permission`` members for one sandbox and approval mode, with findings. The
    bytes do not depend on ``yolo`` (OpenCode reads one file for every launch); only the
    findings do."""
    out, findings = translate_permission(OPENCODE, policy, sandbox_mode, yolo)
    findings.append(no_sandbox_finding(policy, LABEL, NAME, "opencode"))
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    return out, findings


def no_sandbox_finding(policy: Policy, label: str, agent: str, command: str) -> Finding:
    """TWS452 with the launch line that puts srt under the agent (``command``)."""
    launch = f"srt --settings {shlex.quote(policy.srt_display)} {command}"
    return finding(
        OPENCODE_NO_SANDBOX,
        f"{label} runs shell commands with no OS sandbox: its rules match a command's text "
        "and its own file tools' paths, so a redirect, an interpreter or `env cmd` writes past "
        "the policy's write roots, reads its denied paths and reaches any host, and can plant "
        "a project config or plugin that the next launch loads and runs; its edit rules "
        "cover the whole project (the git root), which may be more than the directory it "
        f"starts in. Start it under srt: `{launch}`",
        write_roots_location(policy),
        agent=agent,
    )
