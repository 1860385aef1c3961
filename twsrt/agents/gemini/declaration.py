"""What the Gemini CLI target is: its two ``[targets]`` keys, the layers it loads, the settings
keys twsrt owns and the priorities of the rules it writes."""

from __future__ import annotations

from twsrt.agents.abspaths import PathTarget
from twsrt.agents.base import Accepted, AgentSpec, StateFile, TargetSpec, discovered, state_names
from twsrt.agents.gemini.rules import GEMINI_MANDATORY_NAMES_OPEN, GEMINI_NETWORK_OPEN
from twsrt.agents.targets import agent_finding

NAME = "gemini"
LABEL = "Gemini"
POLICY_KEY, SETTINGS_KEY = "gemini_policy", "gemini_settings"

# What Gemini CLI 0.61.0 writes for itself in ~/.gemini (names read from its bundle).
STATE_FILES = (
    StateFile("~/.gemini/oauth_creds.json", "Google login", credential=True),
    StateFile("~/.gemini/mcp-oauth-tokens.json", "MCP server logins", credential=True),
    StateFile("~/.gemini/a2a-oauth-tokens.json", "agent-to-agent logins", credential=True),
    StateFile("~/.gemini/google_accounts.json", "the accounts it logged in with"),
    *state_names("~/.gemini", "installation_id user_id projects.json tmp history antigravity"),
)

_NETWORK_OPEN_COMMENT = """\
# @LABEL@'s sandbox network is on under --yolo, and a tool call can switch it on for itself
# (@ID@): it has no domain filter. Accepted here until @LABEL@ is started under srt, whose
# proxy filters hosts; delete this entry to have `check` fail on it again.
"""

AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "Gemini CLI settings.json whose sandbox keys (security.toolSandboxing, "
            "tools.sandboxNetworkAccess, ...) twsrt manages, e.g. ~/.gemini/settings.json.",
            "~/.gemini/settings.json",
            r"\.gemini/settings\.json",
        ),
        TargetSpec(
            POLICY_KEY,
            "policy-toml",
            "Gemini CLI policy file twsrt writes whole, e.g. ~/.gemini/policies/twsrt.toml "
            "(Gemini loads every *.toml in that directory). ~ in paths expands with the pinned "
            "home.",
            "~/.gemini/policies/twsrt.toml",
            r"\.gemini/policies/[^/]*\.toml",
            home_dependent=True,
        ),
    ),
    # what Gemini CLI 0.61.0 loads (its bundle's Storage paths; workspace policy files are
    # switched off in that version, observed, but it is still a layer a later version reads)
    (
        *discovered(
            "user",
            """
            ~/.gemini/                  Gemini CLI's config directory
            ~/.gemini/settings.json     user settings (sandbox, tools, policyPaths)
            ~/.gemini/policies/         user policy files (every *.toml loads)
            ~/.gemini/trustedFolders.json  the folders it trusts
            ~/.gemini/commands/         user custom commands
            ~/.gemini/extensions/       user extensions (their own policies and MCP servers)
            ~/.gemini/system.md         a system prompt override
            ~/.gemini/.env              variables it loads at start (a trusted folder)
            ~/.env                      variables it loads at start when no nearer .env is found
            """,
        ),
        *discovered(
            "project",
            """
            .gemini/settings.json   workspace settings (sandbox, tools, MCP servers)
            .gemini/policies/       workspace policy files
            .gemini/commands/       workspace custom commands
            .gemini/extensions/     workspace extensions
            .gemini/.env            variables it loads at start (the nearest .env, walking up)
            .env                    variables it loads at start (the nearest .env, walking up)
            """,
        ),
        *discovered(
            "managed",
            """
            /etc/gemini-cli/settings.json   system settings
            /etc/gemini-cli/policies/       admin policy files
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.gemini.effective",
    engine="twsrt.agents.gemini.engine",
    rules="twsrt.agents.gemini.rules",
    planted_layer_rules=(GEMINI_MANDATORY_NAMES_OPEN,),
    config_template='# gemini_policy = "~/.gemini/policies/twsrt.toml"\n'
    '# gemini_settings = "~/.gemini/settings.json"\n',
    accepted=(
        Accepted.mandatory_names_open(GEMINI_MANDATORY_NAMES_OPEN),
        Accepted(
            GEMINI_NETWORK_OPEN,
            _NETWORK_OPEN_COMMENT,
            "accepted until @LABEL@ is started under srt, whose proxy filters hosts",
        ),
    ),
)

SHELL_TOOL = "run_shell_command"
# the file tools by the argument that names their path (bundle: buildFilePathArgsPattern,
# buildDirPathArgsPattern); a deny pattern anchors on that argument
READ_FILE_TOOLS = ("read_file",)
WRITE_FILE_TOOLS = ("write_file", "replace")
DIRECTORY_TOOLS = ("list_directory", "glob", "grep_search")
# the tools that fetch in the agent's own process, where no sandbox filters hosts
WEB_TOOLS = ("web_fetch", "google_web_search")

# User-tier rules score 4 + priority/1000; tools.allowed in settings scores 4.3 and an
# auto-saved "allow for all future sessions" rule is written at 950 (observed). Every deny sits
# above every ask, every ask above both of those and above every allow.
DENY_PRIORITY = 999
ASK_PRIORITY = 990
ALLOW_PRIORITY = 500

# the settings keys twsrt owns (dotted), with the value they always take except where the
# policy or the sandbox mode chooses (translate.settings_fragment)
SETTINGS_KEYS = (
    "security.toolSandboxing",
    "security.disableAlwaysAllow",
    "security.enablePermanentToolApproval",
    "tools.sandboxNetworkAccess",
    "tools.sandboxAllowedPaths",
)

_TOOL_RULES = "its file-tool deny rules"
PATHS = PathTarget(NAME, LABEL, {"denyRead": _TOOL_RULES, "denyWrite": _TOOL_RULES})

# The srt keys the Gemini target compiles or reports itself.
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
    "/filesystem/allowRead": "Gemini's shell reads everywhere, and its file-tool denies cover "
    "the whole denied path, a path re-allowed below it included",
    "/network/allowLocalBinding": "Gemini's sandbox network is only on or off",
    "/network/allowUnixSockets": "Gemini's sandbox has no per-socket grant",
    "/network/allowAllUnixSockets": "Gemini's sandbox has no Unix socket switch",
    "/filesystem/disabled": "Gemini's sandbox always isolates the filesystem when it is on",
}

_lossy = agent_finding(NAME)
