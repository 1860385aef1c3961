"""What the OpenCode target is: its ``[targets]`` key, the layers it loads, the members of
``permission`` twsrt owns. The facts come from headless runs of OpenCode 1.18.33
(docs/agents/opencode-observed.md)."""

from __future__ import annotations

from twsrt.agents.base import Accepted, AgentSpec, StateFile, TargetSpec, discovered, state_names
from twsrt.agents.opencode.rules import OPENCODE_NO_SANDBOX
from twsrt.agents.targets import agent_finding

NAME = "opencode"
LABEL = "OpenCode"
SETTINGS_KEY = "opencode_config"
PROJECT_KEY = "opencode_project"

# Where OpenCode 1.18.33 reads its managed config on each OS (its bundle's managedConfigDir;
# $OPENCODE_TEST_MANAGED_CONFIG_DIR replaces it), the file name observed on Linux (row 17), and
# where the file lies in the managed output tree: DIR/<os>/<that path from the filesystem root>.
INSTALL_PATHS = {
    "linux": "/etc/opencode/opencode.json",
    "macos": "/Library/Application Support/opencode/opencode.json",
    "windows": "C:\\ProgramData\\opencode\\opencode.json",
}
TREE_PATHS = {
    "linux": "linux/etc/opencode/opencode.json",
    "macos": "macos/Library/Application Support/opencode/opencode.json",
    "windows": "windows/ProgramData/opencode/opencode.json",
}
MANAGED_TARGETS = tuple(
    TargetSpec(
        f"opencode_managed_{system}",
        "json-settings",
        f"OpenCode managed config for {system}, in the managed output tree (deployed as "
        f"{INSTALL_PATHS[system]}).",
        tree_path,
        r"(etc|Application Support|ProgramData)/opencode/opencode\.json",
        scaffold=False,
        scope="managed",
    )
    for system, tree_path in TREE_PATHS.items()
)

# What OpenCode 1.18.33 writes for itself (its XDG data and state directories).
STATE_FILES = (
    StateFile("~/.local/share/opencode/auth.json", "provider logins", credential=True),
    StateFile("~/.local/share/opencode/mcp-auth.json", "MCP server logins", credential=True),
    *state_names("~/.local/share/opencode", "log project snapshot storage tool-output"),
    *state_names("~/.config/opencode", "node_modules package.json package-lock.json"),
)

_NO_SANDBOX_COMMENT = """\
# @LABEL@ has no OS sandbox: a shell command writes past its rules and can plant an
# opencode.json or .opencode/plugins/*.js that the next launch loads and runs (@ID@). Accepted
# here until @LABEL@ is started under srt; delete this entry to have `check` fail on it again.
"""

AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "OpenCode opencode.json whose permission.bash/read/edit/external_directory/webfetch/"
            'websearch and "$schema" twsrt manages, e.g. ~/.config/opencode/opencode.json.',
            "~/.config/opencode/opencode.json",
            r"opencode/opencode\.jsonc?",
        ),
        # project scope (agents/opencode/project.py): the project's own opencode.json
        TargetSpec(
            PROJECT_KEY,
            "json-settings",
            "OpenCode project config (project scope; default opencode.json at the project root).",
            "opencode.json",
            r"opencode\.jsonc?",
            scaffold=False,
            examples=("opencode.json",),
            scope="project",
        ),
        # managed scope (agents/opencode/managed.py): the managed config, one copy per OS
        *MANAGED_TARGETS,
    ),
    # what OpenCode 1.18.33 loads (rows 14-17, 21, 23 of the observed page)
    (
        *discovered(
            "user",
            """
            ~/.config/opencode/                 its config directory (plugins, agents, commands)
            ~/.config/opencode/opencode.json    user config (permission rules)
            ~/.config/opencode/opencode.jsonc   user config (permission rules)
            ~/.config/opencode/config.json      user config (permission rules)
            """,
        ),
        *discovered(
            "project",
            """
            opencode.json    project config, also found walking up from a non-git directory
            opencode.jsonc   project config, also found walking up from a non-git directory
            .opencode/       project config directory (opencode.json, plugins run at start)
            """,
        ),
        *discovered(
            "managed",
            """
            /etc/opencode/   managed config (opencode.json), below OPENCODE_PERMISSION
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.opencode.effective",
    rules="twsrt.agents.opencode.rules",
    planted_layer_rules=(OPENCODE_NO_SANDBOX,),
    config_template='# opencode_config = "~/.config/opencode/opencode.json"\n',
    accepted=(
        Accepted(
            OPENCODE_NO_SANDBOX,
            _NO_SANDBOX_COMMENT,
            "accepted until @LABEL@ is started under srt, which confines its commands and "
            "keeps the directory's config layers read-only",
        ),
    ),
    no_engine="OpenCode has no sandbox of its own to probe; start it under srt and test srt",
)

# The members of ``permission`` twsrt owns, in the order it writes them. ``$schema``: OpenCode
# adds it to a file without one at start (row 21), so the generated file carries it.
PERMISSION_KEYS = ("bash", "read", "edit", "external_directory", "webfetch", "websearch")
SCHEMA_KEY, SCHEMA_URL = "$schema", "https://opencode.ai/config.json"

# The srt keys the OpenCode target compiles or reports itself.
HANDLED_SRT_KEYS = (
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/filesystem/denyRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)

_NONE = "OpenCode has no sandbox to take it (TWS452)"
REASONS = {
    "/enabled": _NONE,
    "/filesystem/allowRead": "OpenCode's read denies cover the whole denied path, a path "
    "re-allowed below it included",
    "/network": _NONE,
    "/filesystem": _NONE,
}

_lossy = agent_finding(NAME)
