"""What the Qwen Code target is: its ``[targets]`` key, the layers it loads, the settings
members twsrt owns and the tool names its rules use. The facts come from headless runs of
Qwen Code 0.24.4 (docs/agents/qwen-observed.md)."""

from __future__ import annotations

from twsrt.agents.abspaths import PathTarget
from twsrt.agents.base import (
    Accepted,
    AgentSpec,
    Layer,
    StateFile,
    TargetSpec,
    discovered,
    state_names,
)
from twsrt.agents.qwen.rules import QWEN_PROJECT_LAYER_OPEN
from twsrt.agents.targets import agent_finding

NAME = "qwen"
LABEL = "Qwen Code"
SETTINGS_KEY = "qwen_settings"
PROJECT_KEY = "qwen_project"

# Where Qwen Code 0.24.4 reads its system settings on each OS (its bundle's
# getSystemSettingsPath; $QWEN_CODE_SYSTEM_SETTINGS_PATH replaces it, and a project's .env cannot
# set that variable), and where the file lies in the managed output tree:
# DIR/<os>/<that path from the filesystem root>.
INSTALL_PATHS = {
    "linux": "/etc/qwen-code/settings.json",
    "macos": "/Library/Application Support/QwenCode/settings.json",
    "windows": "C:\\ProgramData\\qwen-code\\settings.json",
}
TREE_PATHS = {
    "linux": "linux/etc/qwen-code/settings.json",
    "macos": "macos/Library/Application Support/QwenCode/settings.json",
    "windows": "windows/ProgramData/qwen-code/settings.json",
}
MANAGED_TARGETS = tuple(
    TargetSpec(
        f"qwen_managed_{system}",
        "json-settings",
        f"Qwen Code system settings for {system}, in the managed output tree (deployed as "
        f"{INSTALL_PATHS[system]}).",
        tree_path,
        r"(qwen-code|QwenCode)/settings\.json",
        scaffold=False,
        scope="managed",
    )
    for system, tree_path in TREE_PATHS.items()
)

# What Qwen Code 0.24.4 writes for itself in ~/.qwen (names read from its bundle: Storage's
# getGlobalQwenDir() joins and the *_FILENAME constants).
STATE_FILES = (
    StateFile("~/.qwen/oauth_creds.json", "Qwen OAuth login", credential=True),
    StateFile("~/.qwen/mcp-oauth-tokens.json", "MCP server logins", credential=True),
    *state_names(
        "~/.qwen",
        "installation_id projects sessions tip_history.json usage_record.jsonl",
    ),
)

_PROJECT_LAYER_COMMENT = """\
# @LABEL@'s execution sandbox lets a command write the directory it starts in, so it can plant
# a .qwen/settings.json whose allow rules the next headless launch runs (@ID@). Accepted here
# until @LABEL@ is started under srt; delete this entry to have `check` fail on it again.
"""

AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "Qwen Code settings.json whose permissions.deny/ask/allow, tools.executionSandbox "
            'and "$version" twsrt manages, e.g. ~/.qwen/settings.json.',
            "~/.qwen/settings.json",
            r"\.qwen/settings\.json",
        ),
        # project scope (agents/qwen/project.py): the project's own settings file
        TargetSpec(
            PROJECT_KEY,
            "json-settings",
            "Qwen Code project settings (project scope; default .qwen/settings.json under the "
            "project root).",
            ".qwen/settings.json",
            r"\.qwen/settings\.json",
            scaffold=False,
            examples=(".qwen/settings.json",),
            scope="project",
        ),
        # managed scope (agents/qwen/managed.py): the system settings, one copy per OS
        *MANAGED_TARGETS,
    ),
    # what Qwen Code 0.24.4 loads (its bundle's Storage paths; the system paths from its docs)
    (
        *discovered(
            "user",
            """
            ~/.qwen/                 Qwen Code's config directory
            ~/.qwen/settings.json    user settings (permissions, execution sandbox)
            ~/.qwen/commands/        user custom commands
            ~/.qwen/extensions/      user extensions (their MCP servers)
            ~/.qwen/skills/          user skills
            ~/.qwen/trustedFolders.json  the folders it trusts
            ~/.env                   variables it loads at start (QWEN_CODE_SAFE_MODE drops rules)
            """,
        ),
        *discovered(
            "project",
            """
            .qwen/settings.json   workspace settings (permissions, MCP servers)
            .qwen/commands/       workspace custom commands
            .qwen/skills/         workspace skills
            .qwen/.env            variables it loads at start (QWEN_CODE_SAFE_MODE drops every rule)
            .env                  variables it loads at start, the nearest walking up (the same)
            """,
        ),
        *(
            Layer(path, "managed", False, "system settings")
            for path in dict.fromkeys(INSTALL_PATHS.values())
        ),
        *discovered(
            "managed",
            """
            /etc/qwen-code/system-defaults.json   system defaults
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.qwen.effective",
    rules="twsrt.agents.qwen.rules",
    planted_layer_rules=(QWEN_PROJECT_LAYER_OPEN,),
    # a project's rules are unioned with the user's, a deny before an ask before an allow (rows
    # 7, 25), and the sandbox stays the user's (row 19): the user's lists and rules stay
    project_lists_merge=True,
    project_rules_merge=True,
    engine="twsrt.agents.qwen.engine",
    config_template='# qwen_settings = "~/.qwen/settings.json"\n',
    accepted=(
        Accepted(
            QWEN_PROJECT_LAYER_OPEN,
            _PROJECT_LAYER_COMMENT,
            "accepted until @LABEL@ is started under srt, which keeps the directory's config "
            "layers read-only",
        ),
    ),
)

# The tool names of the rules: shell rules are matched under the alias Bash (deny, ask), but
# the headless switch that lets a shell call run without --yolo compares an allow rule's name
# with run_shell_command and Shell only (row 11), so allow rules are spelled Shell(...).
DENY_TOOL, ALLOW_TOOL = "Bash", "Shell"
# The in-process tools that reach hosts (web_fetch asks by default, which --yolo approves):
# denied whole, as a host allow rule cannot outrank a deny of the rest (TWS498).
WEB_TOOLS = ("WebFetch", "WebSearch")

# The settings members twsrt owns. "$version": Qwen rewrites a file without it at start (row
# 12), so the generated file carries the version the pinned Qwen writes and check sees no drift
# after a launch.
PERMISSION_KEYS = ("deny", "ask", "allow")
SANDBOX_KEY = "executionSandbox"
VERSION_KEY, SETTINGS_VERSION = "$version", 4

_RULES = "its Read(...)/Edit(...) deny rules"
PATHS = PathTarget(NAME, LABEL, {"denyRead": _RULES, "denyWrite": _RULES})

# The srt keys the Qwen target compiles or reports itself.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/strictAllowlist",
    "/filesystem/denyRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)

REASONS = {
    "/filesystem/allowRead": "Qwen's sandbox reads everywhere, and its Read(...) denies cover "
    "the whole denied path, a path re-allowed below it included",
    "/network/allowLocalBinding": "Qwen's sandbox network is only open or closed",
    "/network/allowUnixSockets": "Qwen's sandbox has no per-socket grant",
    "/network/allowAllUnixSockets": "Qwen's sandbox has no Unix socket switch",
    "/filesystem/disabled": "Qwen's sandbox always confines writes when it is on",
}

_lossy = agent_finding(NAME)
