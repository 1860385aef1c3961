"""What the pi target is: its ``[targets]`` key, the layers pi loads, the members twsrt owns in
the sandbox extension's file and the srt keys the extension passes on. The facts come from
headless runs of pi 1.4.0 (``@earendil-works/pi-coding-agent``) with the sandbox extension
example it ships and that example's srt 0.0.26 (docs/agents/pi-droid-observed.md, pi rows;
docs/agents/pi.md)."""

from __future__ import annotations

from twsrt.agents.base import (
    Accepted,
    AgentSpec,
    StateFile,
    TargetSpec,
    discovered,
    state_names,
)
from twsrt.agents.pi.rules import PI_NESTED_UNPROTECTED, PI_PLANTED_LAYERS
from twsrt.agents.targets import agent_finding

NAME = "pi"
LABEL = "pi"
SANDBOX_KEY = "pi_sandbox"
PROJECT_KEY = "pi_project"
# the extension's global file: its getAgentDir()/extensions/sandbox.json (row 1); examples
# before pi-mono moved it named ~/.pi/agent/sandbox.json, which the pinned build ignores
DEFAULT_PATH = "~/.pi/agent/extensions/sandbox.json"
LEGACY_NAME = "sandbox.json"  # directly in the agent directory
AGENT_DIR = "~/.pi/agent"
# the variable that moves the agent directory, and the extension's global file with it (row 2)
AGENT_DIR_VARIABLE = "PI_CODING_AGENT_DIR"
# the project file the extension reads from the directory pi starts in (rows 9, 10)
PROJECT_FILE = ".pi/sandbox.json"
# what srt needs on Linux; without one the extension runs bash unsandboxed (row 11)
SANDBOX_TOOLS = ("bwrap", "socat", "rg")

# What pi 1.4.0 writes for itself in its agent directory (its docs/configuration.md).
STATE_FILES = (
    StateFile("~/.pi/agent/auth.json", "pi's saved API keys and OAuth logins", credential=True),
    *state_names("~/.pi/agent", "sessions bin"),
)

_PLANTED_COMMENT = """\
# srt 0.0.26, which @LABEL@'s sandbox extension runs, skips glob write denies on Linux: a command
# can create .pi/sandbox.json in a subdirectory of a write root, which a pi started there obeys
# (@ID@). Accepted here until pi starts only where twsrt check ran; delete this entry to have
# `check` fail on it again.
"""

_NESTED_COMMENT = """\
# Below the top of a write root other than the launch directory (/tmp), @LABEL@'s sandbox does
# not protect a nested repository's .git/hooks and .git/config (@ID@): remove this once a
# repository lies inside such a root.
"""

AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SANDBOX_KEY,
            "json-settings",
            "pi's sandbox extension file (the srt settings plus enabled, every list written "
            "out), e.g. ~/.pi/agent/extensions/sandbox.json; older extension examples read "
            "~/.pi/agent/sandbox.json.",
            DEFAULT_PATH,
            r"\.pi/agent/(extensions/)?sandbox\.json",
        ),
        # project scope (agents/pi/project.py): the sandbox extension's project file
        TargetSpec(
            PROJECT_KEY,
            "json-settings",
            "pi's sandbox extension project file (project scope; default .pi/sandbox.json "
            "under the project root).",
            PROJECT_FILE,
            r"\.pi/sandbox\.json",
            scaffold=False,
            examples=(PROJECT_FILE,),
            scope="project",
        ),
    ),
    # what pi 1.4.0 and its sandbox extension load (docs/configuration.md and security.md of
    # the package, the extension's loadConfig; rows 1, 9, 15)
    (
        *discovered(
            "user",
            """
            ~/.pi/                       pi's directory, whole (a Codex started in ~ holds .pi)
            ~/.pi/agent/                 pi's agent directory (settings, models, extensions)
            ~/.pi/agent/extensions/      user extensions, the sandbox extension's file among them
            ~/.pi/agent/extensions/sandbox.json  the sandbox extension's settings
            ~/.pi/agent/sandbox.json     the sandbox settings older extension examples read
            ~/.pi/agent/settings.json    user settings (tools, packages, project trust)
            ~/.pi/agent/trust.json       the project trust decisions (which .pi/ loads)
            """,
        ),
        *discovered(
            "project",
            """
            .pi/sandbox.json     the sandbox extension's project settings (replace lists, enabled)
            .pi/settings.json    project settings (tools, packages) once trusted
            .pi/extensions/      project extensions (a bash tool of their own) once trusted
            .pi/mcp.json         project MCP servers once trusted
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.pi.effective",
    rules="twsrt.agents.pi.rules",
    engine="twsrt.agents.pi.engine",
    planted_layer_rules=(PI_PLANTED_LAYERS,),
    config_template='# pi_sandbox = "~/.pi/agent/extensions/sandbox.json"\n',
    accepted=(
        Accepted(
            PI_PLANTED_LAYERS,
            _PLANTED_COMMENT,
            "accepted until pi starts only in directories twsrt check has seen",
        ),
        # TWS655 is an error on every write root but the launch directory (the scaffold's /tmp)
        Accepted(
            PI_NESTED_UNPROTECTED,
            _NESTED_COMMENT,
            "no repository lies inside a pi write root other than the launch directory",
            "roots",
        ),
    ),
)

# The members twsrt owns in the extension's file: every key its loadConfig merges over its
# defaults. ``network`` and ``filesystem`` are owned whole: the extension passes each object to
# srt as it is, so a key a user adds inside one would reach srt.
ENABLED, NETWORK, FILESYSTEM = "enabled", "network", "filesystem"
IGNORE_VIOLATIONS, NESTED = "ignoreViolations", "enableWeakerNestedSandbox"
OWNED = (ENABLED, NETWORK, FILESYSTEM, IGNORE_VIOLATIONS, NESTED)
NETWORK_LISTS = ("allowedDomains", "deniedDomains")
FILESYSTEM_LISTS = ("denyRead", "allowWrite", "denyWrite")

# The srt keys the pi target compiles or reports itself.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/strictAllowlist",
    "/filesystem/denyRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)

_SRT = "the extension's srt 0.0.26"
_PASSED = "the extension passes only network, filesystem, ignoreViolations and "
_PASSED += "enableWeakerNestedSandbox to srt, and twsrt writes only the lists srt 0.0.26 has"
REASONS = {
    "/filesystem/allowRead": f"{_SRT} has no allowRead: a denied path stays denied whole",
    "/filesystem/disabled": f"{_SRT} has no switch that drops the filesystem rules",
    "/filesystem/allowGitConfig": _PASSED,
    "/network/allowLocalBinding": _PASSED,
    "/network/allowUnixSockets": _PASSED,
    "/network/allowAllUnixSockets": _PASSED,
    "/network/httpProxyPort": _PASSED,
    "/network/socksProxyPort": _PASSED,
    "/ignoreViolations": _PASSED,
    "/enableWeakerNestedSandbox": _PASSED,
    "/credentials": f"{_SRT} has no credential masking, and the extension passes no such key",
    "/mandatoryDenySearchDepth": "the extension does not pass it to srt",
    "/ripgrep": "the extension does not pass it to srt",
    "/seccomp": "the extension does not pass it to srt",
    "/allowPty": "the extension does not pass it to srt",
}

_lossy = agent_finding(NAME)
