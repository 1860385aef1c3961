"""What the Factory Droid target is: its ``[targets]`` key, the layers it loads, the settings
members twsrt owns. The facts come from headless runs of Droid 0.225.2
(docs/agents/pi-droid-observed.md) and its bundle (the settings loader's file names, the
sandbox's always-writable and always-allowed lists)."""

from __future__ import annotations

from twsrt.agents.base import (
    Accepted,
    AgentSpec,
    Layer,
    StateFile,
    TargetSpec,
    discovered,
    state_names,
)
from twsrt.agents.droid.rules import DROID_NESTED_LAYERS_OPEN, DROID_OWN_GRANTS
from twsrt.agents.targets import agent_finding

NAME = "droid"
LABEL = "Factory Droid"
SETTINGS_KEY = "droid_settings"
PROJECT_KEY = "droid_project"

# Where Droid 0.225.2 reads the org-managed settings on each OS (its bundle's managed-settings
# paths; FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH names another file)
INSTALL_PATHS = {
    "linux": "/etc/factory/settings.json",
    "macos": "/Library/Application Support/Factory/settings.json",
    "windows": "C:\\Program Files\\Factory\\settings.json",
}
TREE_PATHS = {
    "linux": "linux/etc/factory/settings.json",
    "macos": "macos/Library/Application Support/Factory/settings.json",
    "windows": "windows/Program Files/Factory/settings.json",
}
MANAGED_TARGETS = tuple(
    TargetSpec(
        f"droid_managed_{system}",
        "json-settings",
        f"Factory Droid org-managed settings for {system}, in the managed output tree (deployed "
        f"as {INSTALL_PATHS[system]}).",
        tree_path,
        r"[Ff]actory/settings\.json",
        scaffold=False,
        scope="managed",
    )
    for system, tree_path in TREE_PATHS.items()
)

# The directories of ~/.factory that Droid's sandbox always lets commands write (the bundle's
# list, joined under ~/.factory). ``temp`` is the commands' TMPDIR and stays writable
# (DROID_OWN_GRANTS); twsrt write-denies the rest: Droid writes them from its own process, which
# runs outside the per-command sandbox, and some of them are loaded again (droids, commands,
# skills, plugins, automations, crons).
FACTORY_TEMP = "~/.factory/temp"
FACTORY_WRITABLE = tuple(
    f"~/.factory/{name}"
    for name in [
        "missions",
        "missionsV2",
        "repl-runs",
        "specs",
        "sessions",
        "logs",
        "cache",
        "artifacts",
        "snapshots",
        "crons",
        "skills",
        "droids",
        "commands",
        "plugins",
        "updates",
        "mermaid",
        "automations",
        "software-factory",
        "worktree-setups",
        "state",
        "telemetry",
        "generated-images",
    ]
)

# What Droid 0.225.2 loads from ~/.factory (its settings loader's file names and folders): the
# protected set holds ~/.factory whole for every other agent; Droid's own sandbox gets these
# (and FACTORY_WRITABLE) instead, so ~/.factory/temp stays its commands' TMPDIR
FACTORY_HOME = "~/.factory"
FACTORY_LAYERS = tuple(
    f"{FACTORY_HOME}/{name}"
    for name in [
        "settings.json",
        "settings.local.json",
        "hooks.json",
        "mcp.json",
        "config.json",
        "droids",
        "commands",
        "skills",
        "plugins",
        "automations",
        "crons",
    ]
)

# What Droid 0.225.2 writes for itself in ~/.factory (its bundle's file names)
STATE_FILES = (
    StateFile("~/.factory/auth.v2.file", "Factory login", credential=True),
    StateFile("~/.factory/auth.v2.key", "Factory login key", credential=True),
    StateFile("~/.factory/auth.encrypted", "Factory login", credential=True),
    *state_names("~/.factory", "sessions logs cache state telemetry temp"),
)

_ACCEPTED_COMMENT = """\
# @LABEL@ always lets sandboxed commands reach Factory's own hosts and write ~/.factory/temp
# (@ID@); no settings key removes them. Accepted here until @LABEL@ is started under srt;
# delete this entry to have `check` fail on it again.
"""
_NESTED_COMMENT = """\
# @LABEL@'s sandbox does not protect .factory/ below the top of a write root, so a command can
# plant sub/.factory/settings.json for a later launch in sub/ (@ID@). Accepted here until
# @LABEL@ is started under srt; delete this entry to have `check` fail on it again.
"""

AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "Factory Droid settings.json whose sandbox block and commandBlocklist, "
            "commandDenylist and commandAllowlist twsrt manages, e.g. ~/.factory/settings.json.",
            "~/.factory/settings.json",
            r"\.factory/settings\.json",
        ),
        # project scope (agents/droid/project.py): the project's own settings file, whose
        # sandbox and lists add to the user's (observed)
        TargetSpec(
            PROJECT_KEY,
            "json-settings",
            "Factory Droid project settings (project scope; default .factory/settings.json under "
            "the project root).",
            ".factory/settings.json",
            r"\.factory/settings\.json",
            scaffold=False,
            examples=(".factory/settings.json",),
            scope="project",
        ),
        # managed scope (agents/droid/managed.py): the org-managed settings, one copy per OS
        *MANAGED_TARGETS,
    ),
    # what Droid 0.225.2 loads (its settings loader: settings.json, settings.local.json,
    # hooks.json, mcp.json in the user, project and folder .factory directories, and the
    # .agents directories beside them)
    (
        *discovered(
            "user",
            """
            ~/.factory/   Droid's config directory (settings, hooks, MCP servers, droids, commands)
            ~/.agents/    agent folder (skills, droids)
            """,
        ),
        *discovered(
            "project",
            """
            .factory/settings.json        project settings (sandbox, command lists)
            .factory/settings.local.json  local project settings
            .factory/hooks.json           project hooks (run outside the sandbox)
            .factory/mcp.json             project MCP servers
            .factory/droids/              project droids
            .factory/commands/            project commands
            .factory/skills/              project skills
            .agents/                      project agent folder (skills, droids)
            """,
        ),
        *(
            Layer(path, "managed", False, "org-managed settings")
            for path in dict.fromkeys(INSTALL_PATHS.values())
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.droid.effective",
    rules="twsrt.agents.droid.rules",
    planted_layer_rules=(DROID_NESTED_LAYERS_OPEN,),
    config_template='# droid_settings = "~/.factory/settings.json"\n',
    engine="twsrt.agents.droid.engine",
    accepted=(
        Accepted(
            DROID_OWN_GRANTS,
            _ACCEPTED_COMMENT,
            "accepted until @LABEL@ is started under srt, which reaches only the policy's hosts",
        ),
        Accepted(
            DROID_NESTED_LAYERS_OPEN,
            _NESTED_COMMENT,
            "accepted until @LABEL@ is started under srt, which keeps nested config layers "
            "read-only",
        ),
    ),
)

# The settings members twsrt owns: the whole sandbox object and the three top-level lists.
SANDBOX_KEY = "sandbox"
BLOCKLIST, DENYLIST, ALLOWLIST = "commandBlocklist", "commandDenylist", "commandAllowlist"
LIST_KEYS = (BLOCKLIST, DENYLIST, ALLOWLIST)
FS_KEYS = ("allowWrite", "allowRead", "denyWrite", "denyRead")

# The srt keys the Droid target compiles or reports itself.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/allowUnixSockets",
    "/network/allowAllUnixSockets",
    "/network/allowLocalBinding",
    "/network/httpProxyPort",
    "/network/socksProxyPort",
    "/filesystem/denyRead",
    "/filesystem/allowRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)

REASONS = {
    "/network/deniedDomains": "Droid hands srt an empty deniedDomains whatever its settings say",
    "/network/strictAllowlist": "Droid may ask to allow a host outside its list in an "
    "interactive session",
}

_lossy = agent_finding(NAME)
