"""What the DeepCode target is: its keys, the settings members it manages, and the managed
content of one mode (``Managed``)."""

from __future__ import annotations

from copy import deepcopy
from dataclasses import field
from typing import Any

from twsrt.agents.abspaths import PathTarget
from twsrt.agents.base import Accepted, AgentSpec, StateFile, TargetSpec, discovered, state_names
from twsrt.agents.deepcode.rules import DEEPCODE_MANDATORY_NAMES_OPEN
from twsrt.agents.targets import agent_finding
from twsrt.locations import Location
from twsrt.records import record

NAME = "deepcode"


LABEL = "DeepCode"


SETTINGS_KEY, YOLO_KEY = "deepcode_settings", "deepcode_settings_yolo"
PROJECT_KEY = "deepcode_project"


# What DeepCode writes for itself in ~/.deepcode (its source): the API key, sessions and
# their checkpoints, background jobs and tasks.
STATE_FILES = (
    StateFile("~/.deepcode/credentials.json", "API key", credential=True),
    *state_names(
        "~/.deepcode",
        "sessions session-env projects checkpoints jobs tasks task-lists",
    ),
)


AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "DeepCode settings.json whose permissions.deny/ask and sandbox twsrt manages, e.g. "
            "~/.deepcode/settings.json (creating it ends DeepCode's fallback to "
            "~/.claude/settings.json).",
            "~/.deepcode/settings.json",
            r"\.deepcode/settings[^/]*\.json",
            home_dependent=True,
        ),
        TargetSpec(
            YOLO_KEY,
            "json-settings",
            "DeepCode settings for yolo mode, passed with `deepcode --settings` (default: .yolo "
            "inserted before the extension).",
            "~/.deepcode/settings.yolo.json",
            r"\.deepcode/settings[^/]*\.json",
            yolo_of=SETTINGS_KEY,
            home_dependent=True,
            scaffold=False,
        ),
        # project scope (agents/deepcode/project.py): the project's own settings file
        TargetSpec(
            PROJECT_KEY,
            "json-settings",
            "DeepCode project settings (project scope; default .deepcode/settings.json under "
            "the project root), holding the whole policy: its lists replace the user's.",
            ".deepcode/settings.json",
            r"\.deepcode/settings[^/]*\.json",
            home_dependent=True,
            scaffold=False,
            examples=(".deepcode/settings.json",),
            scope="project",
        ),
    ),
    # what DeepCode discovers (packages/core/src/config/loader.ts, file-contract-loader.ts):
    # ~/.deepcode/settings.json, else ~/.claude/settings.json in its place; the project's
    # settings and local settings; the file contract of the project, else the user's
    (
        *discovered(
            "user",
            """
            ~/.deepcode/                    DeepCode's config directory
            ~/.deepcode/settings.json       user settings
            ~/.claude/settings.json         user settings (fallback)
            ~/.deepcode/file-contract.yaml  user file contract
            ~/.deepcode/file-contract.yml   user file contract
            """,
        ),
        *discovered(
            "project",
            """
            .deepcode/settings.json        project settings
            .deepcode/settings.local.json  project local settings
            .deepcode/file-contract.yaml   project file contract
            .deepcode/file-contract.yml    project file contract
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.deepcode.effective",
    rules="twsrt.agents.deepcode.rules",
    # whoever plants a layer, a DeepCode started under srt stays inside srt's policy
    planted_layer_rules=(DEEPCODE_MANDATORY_NAMES_OPEN,),
    engine="twsrt.agents.deepcode.engine",
    config_template=(
        '# deepcode_settings = "~/.deepcode/settings.json"  # creating it ends DeepCode\'s '
        "~/.claude fallback\n"
    ),
    # its sandbox protects none of srt's mandatory-deny set (TWS472): accepted until it runs
    # under srt
    accepted=(Accepted.mandatory_names_open(DEEPCODE_MANDATORY_NAMES_OPEN),),
)


# DeepCode's user settings file; while it is missing DeepCode reads ~/.claude/settings.json
USER_DIR, USER_FILE = ".deepcode", "settings.json"


# The managed keys, in DeepCode's declaration order (config/types.ts). Every other key of
# `permissions` (allow, defaultMode, additionalDirectories) and of `sandbox` (excludedCommands)
# is the user's and kept.
PERMISSION_KEYS = ("deny", "ask")


FS_KEYS = ("allowWrite", "denyWrite", "allowRead", "denyRead")


NET_KEYS = ("allowedDomains", "deniedDomains", "allowUnixSockets", "allowLocalBinding")


# the legacy switch: `mode` wins over it, so a stale one is only confusing
LEGACY_KEYS = ("enabled",)


SPEC = PathTarget(NAME, LABEL, {key: f"sandbox.filesystem.{key}" for key in FS_KEYS})


# The srt keys DeepCode compiles or reports itself (srtkeys reports every other key it is set).
# strictAllowlist needs no key: DeepCode's allow-list never asks.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/strictAllowlist",
    "/network/allowUnixSockets",
    "/network/allowAllUnixSockets",
    "/network/allowLocalBinding",
    "/filesystem/denyRead",
    "/filesystem/allowRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)


# DeepCode's own reasons for srt keys it has no faithful key for; the generic reason from
# srtkeys serves the rest.
REASONS = {
    "/network/allowMachLookup": "DeepCode has no Mach service grant",
    "/network/deniedResolvedAddresses": "DeepCode cannot deny resolved addresses",
    "/network": "DeepCode filters the network by DNS only and has no HTTP proxy",
    "/credentials": "DeepCode has no credential masking",
    "/filesystem/disabled": "DeepCode always isolates the filesystem when its sandbox is on",
}


@record(frozen=False)
class Managed:
    """The content twsrt owns in a DeepCode settings file, for one mode."""

    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    mode: str = "workspace-write"
    filesystem: dict[str, list[str]] = field(default_factory=dict)  # only the keys emitted
    network: dict[str, Any] = field(default_factory=dict)
    home_used: bool = False
    origins: dict[str, Location] = field(default_factory=dict)

    def sandbox(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode}
        if self.filesystem:
            out["filesystem"] = deepcopy(self.filesystem)
        out["network"] = deepcopy(self.network)
        return out

    def fragment(self) -> dict[str, Any]:
        return {
            "permissions": {"deny": list(self.deny), "ask": list(self.ask)},
            "sandbox": self.sandbox(),
        }


_lossy = agent_finding(NAME)
