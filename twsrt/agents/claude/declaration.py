"""What the Claude Code target is: its keys, the sandbox keys it manages, and the managed
sections of one mode (``Managed``)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from twsrt.agents.base import (
    Accepted,
    AgentSpec,
    Layer,
    StateFile,
    TargetSpec,
    discovered,
    state_names,
)
from twsrt.agents.claude.rules import CLAUDE_NESTED_UNPROTECTED, CLAUDE_PLANTED_LAYERS
from twsrt.locations import Location
from twsrt.records import record

NAME = "claude"
LABEL = "Claude"  # how messages name the agent


LINK_NAME = "settings.json"


# Where Claude Code 2.1.332 reads the file on each OS (its built-in managed directory), and
# where the file lies in the managed output tree: DIR/<os>/<that path from the filesystem root>.
INSTALL_PATHS = {
    "linux": "/etc/claude-code/managed-settings.json",
    "macos": "/Library/Application Support/ClaudeCode/managed-settings.json",
    "windows": "C:\\Program Files\\ClaudeCode\\managed-settings.json",
}
MANAGED_DROP_INS = "managed-settings.d"  # beside the file: more managed files, read after it
TREE_PATHS = {
    "linux": "linux/etc/claude-code/managed-settings.json",
    "macos": "macos/Library/Application Support/ClaudeCode/managed-settings.json",
    "windows": "windows/Program Files/ClaudeCode/managed-settings.json",
}

MANAGED_TARGETS = tuple(
    TargetSpec(
        f"claude_managed_{system}",
        "json-settings",
        f"Claude Code managed settings for {system}, in the managed output tree (deployed as "
        f"{INSTALL_PATHS[system]}).",
        tree_path,
        r"managed-settings\.json",
        scaffold=False,
        scope="managed",
    )
    for system, tree_path in TREE_PATHS.items()
)


# What Claude Code 2.1.332 writes for itself in ~/.claude (seen after a real run, and in the
# names its own sandbox masks): logins, transcripts, history, caches; and ~/.claude.json, which
# it rewrites on every start (per-project state, the account; observed through a link too).
STATE_FILES = (
    StateFile("~/.claude/.credentials.json", "login tokens", credential=True),
    StateFile("~/.claude/.device-keys.json", "device keys", credential=True),
    StateFile("~/.claude.json", "per-project state and the account it rewrites on every start"),
    StateFile("~/.claude/.config.json", "settings it manages itself"),
    *state_names(
        "~/.claude",
        "projects sessions history.jsonl todos plans statsig telemetry shell-snapshots "
        "session-env file-history paste-cache backups cache debug logs ide child-logs "
        "dev-mods seed-admin remote ssh bridge-spawn daemon .cc-writes usage-data "
        "stats-cache.json mcp-discovery-cache remote-settings.json* policy-limits.json*",
    ),
)


PLANTED_LAYERS = """\
# Claude Code loads .claude/settings.json, settings.local.json and .mcp.json of the directory it
# starts in, and its sandbox lets a command create them in any subdirectory (@ID@): only the
# managed settings (`twsrt generate --managed DIR`, docs/managed.md) bind the next launch.
# Accepted here until they are deployed; delete this entry to have `check` fail on it again.
"""
PLANTED_REASON = (
    "accepted until the managed settings are deployed: a Claude started in a subdirectory may "
    "load a layer planted there"
)


NESTED = """\
# Below the top of a write root other than the launch directory (/tmp), Claude Code's sandbox
# does not protect a nested repository's .git/hooks and .git/config (@ID@): remove this once
# a repository lies inside such a root.
"""
NESTED_REASON = "no repository lies inside a Claude write root other than the launch directory"


AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            "claude_settings",
            "json-settings",
            "Claude Code settings written in full mode, e.g. ~/.claude/settings.full.json.",
            "~/.claude/settings.full.json",
            r"\.claude/settings[^/]*\.json",
            link=LINK_NAME,
            examples=("home/.claude/settings.full.json",),
        ),
        TargetSpec(
            "claude_settings_yolo",
            "json-settings",
            "Claude Code settings written in yolo mode (default: .yolo inserted before the "
            "extension).",
            "~/.claude/settings.yolo.json",
            r"\.claude/settings[^/]*\.json",
            yolo_of="claude_settings",
            link=LINK_NAME,
        ),
        # project scope (agents/claude/project.py): the project's own settings file
        TargetSpec(
            "claude_project",
            "json-settings",
            "Claude Code project settings (project scope; default .claude/settings.json under "
            "the project root).",
            ".claude/settings.json",
            r"\.claude/settings[^/]*\.json",
            scaffold=False,
            examples=(".claude/settings.json",),
            scope="project",
        ),
        # managed scope (agents/claude/managed.py): managed-settings.json, one copy per OS
        *MANAGED_TARGETS,
    ),
    # what Claude Code 2.1.332 discovers and loads at launch (its settings hierarchy, MCP
    # servers, slash commands, subagents, skills, plugins, memory)
    (
        *discovered(
            "user",
            """
            ~/.claude/                     Claude Code's config directory
            ~/.claude/settings.json        user settings (sandbox, hooks)
            ~/.claude/settings.local.json  user local settings
            ~/.claude.json                 MCP servers and per-project state
            ~/.claude/CLAUDE.md            user memory (instructions)
            ~/.claude/commands/            user slash commands
            ~/.claude/agents/              user subagents
            ~/.claude/skills/              user skills
            ~/.claude/plugins/             installed plugins (hooks, MCP servers)
            """,
        ),
        *discovered(
            "project",
            """
            .claude/settings.json        project settings
            .claude/settings.local.json  project local settings
            .mcp.json                    project MCP servers
            .claude/commands/            project slash commands
            .claude/agents/              project subagents
            .claude/skills/              project skills
            """,
        ),
        *(
            Layer(path, "managed", False, "managed settings")
            for path in dict.fromkeys(INSTALL_PATHS.values())
        ),
        *discovered(
            "managed",
            """
            /etc/claude-code/managed-settings.d/  managed drop-ins
            /etc/claude-code/managed-mcp.json     managed MCP servers
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.claude.effective",
    rules="twsrt.agents.claude.rules",
    planted_layer_rules=(CLAUDE_PLANTED_LAYERS,),
    engine="twsrt.agents.claude.engine",
    init_default=True,
    project_lists_merge=True,
    project_rules_merge=True,
    config_template=(
        'claude_settings = "{claude}"   # settings.json becomes a symlink to it\n'
        '# claude_settings_yolo = "{claude_yolo}"\n'
    ),
    accepted=(
        # no user-scope setting keeps a sandboxed command from planting a Claude config layer in
        # a subdirectory; the managed settings do
        Accepted(CLAUDE_PLANTED_LAYERS, PLANTED_LAYERS, PLANTED_REASON),
        # TWS629 is an error on every write root but the launch directory (the scaffold's /tmp)
        Accepted(CLAUDE_NESTED_UNPROTECTED, NESTED, NESTED_REASON, "roots"),
    ),
)


PRODUCT = "Claude Code"  # how the settings-link findings name the program


FULL_KEY, YOLO_KEY = (target.key for target in AGENT_SPEC.targets[:2])
PROJECT_KEY = "claude_project"


WEBFETCH_PREFIX = "WebFetch(domain:"


WEB_PORTS = ("80", "443")


# Sandbox keys copied from the srt settings (seed table plus the newer keys Claude reads).
NETWORK_KEYS = (
    "allowedDomains",
    "deniedDomains",
    "allowLocalBinding",
    "allowUnixSockets",
    "allowAllUnixSockets",
    "allowMachLookup",
    "httpProxyPort",
    "socksProxyPort",
    "strictAllowlist",
    "tlsTerminate",
)


FILESYSTEM_KEYS = ("allowWrite", "denyWrite", "denyRead", "allowRead", "disabled")


TOP_KEYS = (
    "enabled",
    "enableWeakerNetworkIsolation",
    "enableWeakerNestedSandbox",
    "ignoreViolations",
    "allowAppleEvents",
    "allowNestedUserNamespaces",
    "credentials",
    "ripgrep",
)


# Sub-keys Claude Code 2.1.332 takes where its object is narrower than srt's (it drops the rest).
SUB_KEYS = {"tlsTerminate": ("caCertPath", "caKeyPath"), "ripgrep": ("command", "args")}


# Claude-only keys: set only by [sandbox_overrides], never removed by twsrt.
CLAUDE_ONLY_KEYS = (
    "autoAllowBashIfSandboxed",
    "allowUnsandboxedCommands",
    "excludedCommands",
    "failIfUnavailable",
)


# The srt keys this target compiles or reports itself; srtkeys reports every other key set.
HANDLED_SRT_KEYS: tuple[str, ...] = (
    "/enabled",
    *(f"/network/{key}" for key in NETWORK_KEYS if key not in SUB_KEYS),
    *(f"/network/tlsTerminate/{key}" for key in SUB_KEYS["tlsTerminate"]),
    *(f"/filesystem/{key}" for key in FILESYSTEM_KEYS),
    *(f"/{key}" for key in TOP_KEYS if key not in SUB_KEYS and key != "enabled"),
    *(f"/ripgrep/{key}" for key in SUB_KEYS["ripgrep"]),
)


# Why Claude Code cannot take an srt key, where srt's own reason would not say it.
REASONS = {
    "/network/tlsTerminate": "Claude Code's sandbox.network.tlsTerminate takes only caCertPath "
    "and caKeyPath",
    "/ripgrep/argv0": "Claude Code's sandbox.ripgrep takes only command and args",
    "/bwrapPath": "Claude Code reads sandbox.bwrapPath from managed settings only",
    "/socatPath": "Claude Code reads sandbox.socatPath from managed settings only",
    "/windows": "Claude Code's sandbox.windows is a different setting (backend sandboxuser or mxc)",
}


# What each sandbox mode forces in the sandbox section, after the srt values and the overrides:
# read-only keeps every command inside an enabled sandbox (no escape hatch, no excluded
# commands, which would run unsandboxed and could write); danger-full-access switches it off.
MODE_FORCED: dict[str, dict[str, Any]] = {
    "read-only": {"enabled": True, "allowUnsandboxedCommands": False},
    "danger-full-access": {"enabled": False},
}


MODE_DROPPED: dict[str, tuple[str, ...]] = {"read-only": ("excludedCommands",)}


# A bare tool name denies the tool for every path: no file edits at all under read-only.
READ_ONLY_DENY = "Edit"


# Claude's switch for running a command outside the sandbox (absent means allowed, once approved).
ESCAPE_HATCH = "allowUnsandboxedCommands"


# The in-process web tools: outside the sandbox, approved unasked in a yolo file's
# bypassPermissions mode, so a yolo file denies them whole (a deny outranks every allow, TWS638).
WEB_TOOLS = ("WebFetch", "WebSearch")


@record(frozen=False)
class Managed:
    """The sections twsrt owns in a Claude settings file, for one mode."""

    deny: list[str] = field(default_factory=list)
    ask: list[str] | None = None
    webfetch_allow: list[str] = field(default_factory=list)
    sandbox: dict[str, Any] = field(default_factory=dict)
    override_keys: tuple[str, ...] = ()
    dropped_keys: tuple[str, ...] = ()  # Claude-only keys removed by the sandbox mode
    origins: dict[str, Location] = field(default_factory=dict)

    @property
    def sandbox_keys(self) -> tuple[str, ...]:
        """Claude-only sandbox keys twsrt manages in this run (set or removed)."""
        return (*self.override_keys, *self.dropped_keys)

    def fragment(self) -> dict[str, Any]:
        permissions: dict[str, Any] = {"deny": self.deny}
        if self.ask is not None:
            permissions["ask"] = self.ask
        permissions["allow"] = self.webfetch_allow
        return {"permissions": permissions, "sandbox": self.sandbox}
