"""What the Kilo Code CLI target is: its ``[targets]`` key, the layers it loads, the members
twsrt owns. Kilo is a fork of OpenCode with OpenCode's rule grammar (its translation is
``agents/opencode/translate.py``) and a bubblewrap sandbox of its own. The facts come from
headless runs of Kilo 7.7.7 (docs/agents/opencode-observed.md, rows 24-43)."""

from __future__ import annotations

from twsrt.agents.base import Accepted, AgentSpec, StateFile, TargetSpec, discovered, state_names
from twsrt.agents.kilo.rules import KILO_WORKSPACE_OPEN

NAME = "kilo"
LABEL = "Kilo Code CLI"
SETTINGS_KEY = "kilo_config"
PROJECT_KEY = "kilo_project"

# Where Kilo 7.7.7 reads its managed config on each OS (its bundle's managedConfigDir;
# $KILO_TEST_MANAGED_CONFIG_DIR replaces it), the file name observed on Linux (row 31), and
# where the file lies in the managed output tree.
INSTALL_PATHS = {
    "linux": "/etc/kilo/kilo.jsonc",
    "macos": "/Library/Application Support/kilo/kilo.jsonc",
    "windows": "C:\\ProgramData\\kilo\\kilo.jsonc",
}
TREE_PATHS = {
    "linux": "linux/etc/kilo/kilo.jsonc",
    "macos": "macos/Library/Application Support/kilo/kilo.jsonc",
    "windows": "windows/ProgramData/kilo/kilo.jsonc",
}
MANAGED_TARGETS = tuple(
    TargetSpec(
        f"kilo_managed_{system}",
        "json-settings",
        f"Kilo Code CLI managed config for {system}, in the managed output tree (deployed as "
        f"{INSTALL_PATHS[system]}).",
        tree_path,
        r"(etc|Application Support|ProgramData)/kilo/kilo\.jsonc",
        scaffold=False,
        scope="managed",
    )
    for system, tree_path in TREE_PATHS.items()
)

STATE_FILES = (
    StateFile("~/.local/share/kilo/auth.json", "provider logins", credential=True),
    StateFile("~/.local/share/kilo/mcp-auth.json", "MCP server logins", credential=True),
    *state_names("~/.local/share/kilo", "log project snapshot storage tool-output"),
    *state_names(
        "~/.config/kilo", "node_modules package.json package-lock.json .bash-permission-migrated"
    ),
)

_WORKSPACE_COMMENT = """\
# @LABEL@'s sandbox leaves the workspace writable, so a command can plant a kilo.jsonc or a
# .kilo/plugins/*.js that the next launch loads, the plugin outside the sandbox (@ID@).
# Accepted here until @LABEL@ is started under srt; delete this entry to have `check` fail on
# it again.
"""

AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "Kilo Code CLI kilo.jsonc whose permission.bash/read/edit/external_directory/"
            'webfetch/websearch, top-level sandbox and "$schema" twsrt manages, e.g. '
            "~/.config/kilo/kilo.jsonc.",
            "~/.config/kilo/kilo.jsonc",
            r"kilo/kilo\.jsonc?",
            home_dependent=True,
        ),
        # project scope (agents/kilo/project.py): the project's own kilo.jsonc
        TargetSpec(
            PROJECT_KEY,
            "json-settings",
            "Kilo Code CLI project config (project scope; default kilo.jsonc at the project root).",
            "kilo.jsonc",
            r"kilo\.jsonc?",
            scaffold=False,
            examples=("kilo.jsonc",),
            scope="project",
        ),
        # managed scope (agents/kilo/managed.py): the managed config, one copy per OS
        *MANAGED_TARGETS,
    ),
    # what Kilo 7.7.7 loads (rows 28-31, 41 of the observed page); OpenCode's project names,
    # which Kilo reads too, are OpenCode's declaration's
    (
        *discovered(
            "user",
            """
            ~/.config/kilo/                  its config directory (plugins, agents, commands)
            ~/.config/kilo/kilo.jsonc        user config (permission rules, sandbox)
            ~/.config/kilo/kilo.json         user config (permission rules, sandbox)
            ~/.config/kilo/config.json       user config (permission rules, sandbox)
            ~/.config/kilo/opencode.json     user config (permission rules, sandbox)
            ~/.config/kilo/opencode.jsonc    user config (permission rules, sandbox)
            """,
        ),
        *discovered(
            "project",
            """
            kilo.jsonc   project config (its rules come after the user's)
            kilo.json    project config (its rules come after the user's)
            .kilo/       project config directory (kilo.jsonc, plugins run outside the sandbox)
            """,
        ),
        *discovered(
            "managed",
            """
            /etc/kilo/   managed config (kilo.jsonc), below KILO_PERMISSION
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.kilo.effective",
    rules="twsrt.agents.kilo.rules",
    planted_layer_rules=(KILO_WORKSPACE_OPEN,),
    config_template='# kilo_config = "~/.config/kilo/kilo.jsonc"\n',
    accepted=(
        Accepted(
            KILO_WORKSPACE_OPEN,
            _WORKSPACE_COMMENT,
            "accepted until @LABEL@ is started under srt, which keeps the directory's config "
            "layers read-only",
        ),
    ),
    engine="twsrt.agents.kilo.engine",
)

PERMISSION_KEY, SANDBOX_KEY = "permission", "sandbox"
SCHEMA_KEY, SCHEMA_URL = "$schema", "https://app.kilo.ai/config.json"

HANDLED_SRT_KEYS = (
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/filesystem/denyRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)

REASONS = {
    "/filesystem/allowRead": "Kilo's read denies cover the whole denied path, a path "
    "re-allowed below it included",
    "/network/allowLocalBinding": "Kilo's sandbox has no local binding switch",
    "/network/allowUnixSockets": "Kilo's sandbox has no per-socket grant",
    "/network/allowAllUnixSockets": "Kilo's sandbox has no Unix socket switch",
    "/filesystem/disabled": "Kilo's sandbox always confines writes when it is on",
}
