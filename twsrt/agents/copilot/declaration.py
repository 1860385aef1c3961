"""What the Copilot CLI target is: its keys, the flags and sandbox keys it manages, and the
compiled output of one mode (``Compiled``)."""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from twsrt.agents.abspaths import PathTarget
from twsrt.agents.base import Accepted, AgentSpec, StateFile, TargetSpec, discovered, state_names
from twsrt.agents.copilot.rules import COPILOT_MANDATORY_NAMES_OPEN
from twsrt.agents.targets import agent_finding
from twsrt.locations import Location
from twsrt.records import record

NAME = "copilot"


FLAGS_KEY, FLAGS_YOLO_KEY, SETTINGS_KEY = (
    "copilot_output",
    "copilot_output_yolo",
    "copilot_settings",
)


# What Copilot CLI writes for itself in ~/.copilot (its config directory reference):
# config.json holds the login when no system keychain is there.
STATE_FILES = (
    StateFile("~/.copilot/config.json", "login and application state", credential=True),
    StateFile("~/.copilot/permissions-config.json", "tool approvals it saved"),
    *state_names(
        "~/.copilot",
        "session-state command-history-state session-store.db logs ide plugin-data",
    ),
)


AGENT_SPEC = AgentSpec(
    NAME,
    "Copilot",
    (
        TargetSpec(
            FLAGS_KEY,
            "flags-text",
            "Copilot CLI flag snippet (stdout when omitted).",
            "~/.config/twsrt/copilot-flags.txt",
            r"copilot-flags[^/]*\.txt",
        ),
        TargetSpec(
            FLAGS_YOLO_KEY,
            "flags-text",
            "Copilot CLI flag snippet for yolo mode (default: .yolo inserted before the "
            "extension).",
            "~/.config/twsrt/copilot-flags.yolo.txt",
            r"copilot-flags[^/]*\.txt",
            yolo_of=FLAGS_KEY,
            scaffold=False,
        ),
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "Copilot CLI settings.json whose sandbox object (and allowedUrls/deniedUrls) twsrt "
            "manages, e.g. ~/.copilot/settings.json. ~ in paths expands with the pinned home.",
            "~/.copilot/settings.json",
            r"\.copilot/settings\.json",
            home_dependent=True,
        ),
    ),
    # what Copilot CLI discovers in its config directory (~/.copilot, $COPILOT_HOME) and a
    # repository's settings (cli-config-dir-reference.md)
    (
        *discovered(
            "user",
            """
            ~/.copilot/                         Copilot CLI's config directory
            ~/.copilot/settings.json            user settings (sandbox, URL rules)
            ~/.copilot/config.json              user config (older releases)
            ~/.copilot/mcp-config.json          user MCP servers
            ~/.copilot/permissions-config.json  saved tool approvals
            ~/.copilot/agents/                  user custom agents
            ~/.copilot/skills/                  user skills
            """,
        ),
        *discovered(
            "project",
            """
            .github/copilot/settings.json        repository settings
            .github/copilot/settings.local.json  local settings
            .github/agents/                      repository custom agents
            .github/skills/                      repository skills
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.copilot.effective",
    rules="twsrt.agents.copilot.rules",
    # its own layers are no way in (a planted one changed nothing, observed), srt's names are
    planted_layer_rules=(COPILOT_MANDATORY_NAMES_OPEN,),
    no_engine="Copilot CLI's sandbox runs only for a logged-in user, so it cannot be probed here",
    config_template='# copilot_output = "~/.config/twsrt/copilot-flags.txt"\n',
    # its sandbox protects none of srt's mandatory-deny set (TWS471): accepted until it runs
    # under srt
    accepted=(Accepted.mandatory_names_open(COPILOT_MANDATORY_NAMES_OPEN),),
)


# The seed's full-mode grant when anything is writable. Copilot 1.0.102 has no `edit` kind (the
# pattern names an MCP server and approves nothing); it stays for seed compatibility.
ALLOW_TOOLS = ("shell(*)", "read", "edit", "write")


WRITE_TOOLS = ("edit", "write")


# read-only denies the file-writing tool outright: --yolo would allow it, and Copilot's sandbox
# covers shell commands only.
READ_ONLY_DENY_TOOL = "write"


# sandbox keys twsrt owns; the rest of the object (auth, credentials, proxy, seatbelt, ...) is
# the user's and kept. Fail-safe values for keys the policy has no word for:
# - addCurrentWorkingDirectory follows "." in allowWrite (Copilot defaults it to true);
# - allowDevToolAccess off: its default grants writes to shared caches the policy never named;
# - allowBypass off: one settings file serves every launch, and a bypass request goes through
#   the permission flow that --yolo answers with yes;
# - MCP and LSP servers stay inside the sandbox like every other spawned command.
TOP_KEYS = (
    "enabled",
    "addCurrentWorkingDirectory",
    "allowDevToolAccess",
    "allowBypass",
    "sandboxMcpServers",
    "sandboxLspServers",
)


FS_KEYS = ("readwritePaths", "readonlyPaths", "deniedPaths")


# allowLocalNetwork stays off: Copilot's switch opens the whole LAN, SRT has no such grant.
NET_KEYS = ("allowOutbound", "allowLocalNetwork", "allowedHosts", "blockedHosts")


URL_KEYS = ("allowedUrls", "deniedUrls")


PATHS = PathTarget(NAME, "Copilot", {"denyRead": "deniedPaths", "denyWrite": "readonlyPaths"})


# The srt keys Copilot compiles or reports itself (srtkeys reports every other key it is set).
# strictAllowlist needs no key: a non-empty allowedHosts list blocks every other host unasked.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/strictAllowlist",
    "/filesystem/denyRead",
    "/filesystem/allowRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)


# Without copilot_settings only the launch flags are written: URLs and the deny rules.
FLAGS_ONLY_SRT_KEYS = ("/enabled", "/network/allowedDomains", "/network/deniedDomains")


# Copilot's own reasons for srt keys it has no faithful key for (each would widen or differs
# in meaning); the generic reason from srtkeys serves the rest.
REASONS = {
    "/network/allowLocalBinding": "Copilot's allowLocalNetwork would open the whole LAN",
    "/network/allowUnixSockets": "Copilot has no per-socket grant",
    "/network/allowAllUnixSockets": "Copilot has no Unix socket switch",
    "/network/httpProxyPort": "Copilot's proxy setting is an upstream, not a filter",
    "/network/socksProxyPort": "Copilot's proxy setting is an upstream, not a filter",
    "/network/deniedResolvedAddresses": "Copilot host rules cannot name resolved addresses",
    "/credentials": "Copilot's credential masking has a different shape",
    "/filesystem/disabled": "Copilot always isolates the filesystem when its sandbox is on",
}


NO_SETTINGS = (
    "no copilot_settings target is configured, so Copilot's sandbox is not written (add one "
    "to [targets])"
)


_LABEL = r"[\w-]+"


_DOMAIN = re.compile(
    rf"(?P<host>\*|(?:\*\.)?{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]+\])(?::(?P<port>\d{{1,5}}))?"
)


@record(frozen=False)
class Compiled:
    """Everything twsrt writes for Copilot in one mode."""

    argv: list[str] = field(default_factory=list)
    sandbox: dict[str, Any] = field(default_factory=dict)
    urls: dict[str, list[str]] = field(default_factory=dict)
    home_used: bool = False
    origins: dict[str, Location] = field(default_factory=dict)

    def settings_fragment(self) -> dict[str, Any]:
        return {"sandbox": self.sandbox, **{k: v for k, v in self.urls.items() if v}}


_lossy = agent_finding(NAME)
