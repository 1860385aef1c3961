"""What the Codex CLI target is: its keys, the approval settings it pins, and the compiled
profile and rules (``Compiled``)."""

from __future__ import annotations

import re
from dataclasses import field
from typing import Any

from twsrt.agents.base import Accepted, AgentSpec, StateFile, TargetSpec, discovered, state_names
from twsrt.agents.codex.rules import CODEX_NESTED_UNPROTECTED
from twsrt.agents.targets import agent_finding
from twsrt.locations import Location
from twsrt.records import record

NAME = "codex"


# The managed files, per OS, where they lie in the managed output tree: DIR/<os>/<the path
# Codex reads them from> (Linux and macOS both read /etc/codex; configuration management ships
# DIR/<os>/ as is). Generated whole; the same bytes for both systems.
MANAGED_FILES = {
    "codex_requirements": (
        "requirements.toml",
        "the allowed sandbox modes and approval policies, the bound twsrt profile and the bash "
        "rules",
    ),
    "codex_managed_config": (
        "managed_config.toml",
        "the defaults Codex applies over the user's config.toml",
    ),
}
MANAGED_SYSTEMS = ("linux", "macos")

MANAGED_TARGETS = tuple(
    TargetSpec(
        f"{key}_{system}",
        "toml-config",
        f"Codex {name} for {system} in the managed output tree (deployed as /etc/codex/{name}): "
        f"{what}.",
        f"{system}/etc/codex/{name}",
        "etc/codex/" + re.escape(name),
        scaffold=False,
        scope="managed",
    )
    for key, (name, what) in MANAGED_FILES.items()
    for system in MANAGED_SYSTEMS
)


# What Codex 0.171.0 writes for itself in $CODEX_HOME (seen after `codex login` and
# `codex exec`): the login, session transcripts and history, logs, its state databases.
STATE_FILES = (
    StateFile("~/.codex/auth.json", "login (API key or ChatGPT tokens)", credential=True),
    *state_names(
        "~/.codex",
        "auth.json.lock auth.lock .login.lock sessions archived_sessions history.jsonl "
        "log memories shell_snapshots *.sqlite *.sqlite-* installation_id "
        "models_cache.json version.json .sandbox_migration .tmp tmp thread-writer-locks "
        "skills/.system",
    ),
)


NESTED = """\
# Codex keeps srt's mandatory files (.bashrc, .vscode/, a repository's .git/hooks, the agents'
# project layers) read-only only at the top of each write root, not deeper (@ID@): remove
# this once a write root holds another repository or project, or run Codex under srt.
"""
NESTED_REASON = "no other repository or project lies inside a Codex write root"


AGENT_SPEC = AgentSpec(
    NAME,
    "Codex",
    (
        TargetSpec(
            "codex_config",
            "toml-config",
            "Codex config.toml: twsrt manages its permission profile and sandbox keys, the rest "
            "stays yours.",
            "~/.codex/config.toml",
            r"\.codex/config\.toml",
            examples=("home/.codex/config.toml",),
        ),
        TargetSpec(
            "codex_rules",
            "exec-rules",
            "Codex exec-policy rules file; omit to skip escalation rules.",
            "~/.codex/rules/twsrt.rules",
            r"\.codex/rules/[^/]+\.rules",
        ),
        TargetSpec(
            "codex_project_config",
            "toml-config",
            "Codex's project layer, loaded for a trusted project: twsrt manages its own "
            "permission profile (twsrt-project) and sandbox keys, the rest stays yours.",
            ".codex/config.toml",
            r"\.codex/config\.toml",
            scaffold=False,
            scope="project",
        ),
        TargetSpec(
            "codex_project_rules",
            "exec-rules",
            "Codex exec-policy rules of the project (trusted projects only); omit to skip them.",
            ".codex/rules/twsrt.rules",
            r"\.codex/rules/[^/]+\.rules",
            scaffold=False,
            scope="project",
        ),
        *MANAGED_TARGETS,
    ),
    # what Codex 0.171.0 discovers: $CODEX_HOME (~/.codex) config.toml, the profiles
    # `--profile NAME` layers on top of it ($CODEX_HOME/NAME.config.toml), exec-policy rules,
    # hooks, instructions and skills; a trusted project's .codex/; the managed /etc/codex
    (
        *discovered(
            "user",
            """
            ~/.codex/               Codex's home ($CODEX_HOME)
            ~/.codex/config.toml    user config (permission profiles)
            ~/.codex/*.config.toml  profiles layered by --profile
            ~/.codex/rules/         user exec-policy rules
            ~/.codex/hooks.json     user lifecycle hooks
            ~/.codex/AGENTS.md      global instructions
            ~/.codex/skills/        user skills
            """,
        ),
        *discovered(
            "project",
            """
            .codex/config.toml  project config (trusted projects)
            .codex/rules/       project exec-policy rules
            .codex/hooks.json   project lifecycle hooks
            """,
        ),
        *discovered(
            "managed",
            """
            /etc/codex/requirements.toml    managed requirements
            /etc/codex/managed_config.toml  managed defaults
            /etc/codex/config.toml          system config
            /etc/codex/rules/               system exec-policy rules
            """,
        ),
    ),
    state_files=STATE_FILES,
    effective="twsrt.agents.codex.effective",
    engine="twsrt.agents.codex.engine",
    rules="twsrt.agents.codex.rules",
    planted_layer_rules=(CODEX_NESTED_UNPROTECTED,),
    init_default=True,
    project_rules_merge=True,
    directory_write_roots=True,  # it mounts protected entries (.git, ...) inside every root
    config_template=(
        '# codex_config = "~/.codex/config.toml"\n'
        '# codex_rules = "~/.codex/rules/twsrt.rules"      # optional: omit to skip escalation '
        "rules\n"
    ),
    # TWS465 is an error on every Codex write root; a starter repository accepts it in the
    # open, with the condition it rests on, rather than failing its first check
    accepted=(Accepted(CODEX_NESTED_UNPROTECTED, NESTED, NESTED_REASON, "roots"),),
)


PROFILE = "twsrt"


# The host's managed layer Codex reads, per OS (Linux and macOS alike; the effective check
# reads them through effective.host_path).
SYSTEM_REQUIREMENTS = {system: "/etc/codex/requirements.toml" for system in ("linux", "macos")}
SYSTEM_MANAGED_CONFIG = {system: "/etc/codex/managed_config.toml" for system in ("linux", "macos")}


# Pinned approval invariants: escalations are asked of the user, never auto-reviewed, and the
# shell does not source login profiles that could undo the sandbox environment.
OWNED_TOP = {
    "default_permissions": PROFILE,
    "approval_policy": "on-request",
    "approvals_reviewer": "user",
    "allow_login_shell": False,
}


LEGACY_KEYS = ("sandbox_mode", "sandbox_workspace_write")


# Codex expands ** deny globs by scanning at sandbox start and stops at this many levels.
# Codex 0.171 scans without limit when the key is absent; an explicit, generous depth keeps
# that coverage while silencing the missing-depth warning of versions that print it.
GLOB_SCAN_MAX_DEPTH = 64


WORKSPACE = ":workspace_roots"


# What Codex keeps read-only itself at the top of every write entry (a placeholder when
# missing, observed with 0.171.0). A write entry of one of these names (a pin) would undo that:
# `".git" = "write"` let a command write `.git/config`; so none is ever written.
CODEX_KEEPS = (".git", ".codex", ".agents")


FULL_ACCESS = ":danger-full-access"  # Codex's built-in profile without a sandbox


STRICTNESS = {"write": 0, "read": 1, "deny": 2}


REMINDER = (
    "twsrt: codex: another Codex config layer (managed, project, profile) setting sandbox_mode, "
    "or --sandbox on the command line, silently deactivates the twsrt profile; run `codex "
    "doctor` after changing them"
)


# The srt keys this module compiles or reports itself (a pointer covers its subtree); every
# other key the policy sets is reported by srtkeys.unhandled_key_findings.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/allowUnixSockets",
    "/filesystem/denyRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
    "/credentials/files",
)


# Codex's own words for keys it cannot take (each would widen access or has no equivalent).
REASONS = {
    "/network/allowLocalBinding": "Codex's allow_local_binding would open every local port",
    "/network/allowAllUnixSockets": "Codex's switch for it would open every Unix socket",
    "/network/httpProxyPort": "Codex's proxy_url is an upstream for its own proxy, not a filter",
    "/network/socksProxyPort": "Codex's socks_url is an upstream for its own proxy, not a filter",
    "/network/deniedResolvedAddresses": "Codex domain rules cannot name resolved addresses",
    "/network/parentProxy": "Codex's own proxy takes no upstream from the policy",
    "/network/requireHostMatch": "Codex's proxy has no Host/SNI match setting",
    "/network/refuseOpaqueTunnels": "Codex's proxy has no switch to refuse opaque tunnels",
    "/network/tlsTerminate": "Codex's proxy does not terminate TLS for credential masking",
    "/filesystem/allowRead": "a Codex profile has no read exception inside a denied path",
    "/credentials/envVars": "Codex's shell_environment_policy is the user's, not twsrt's",
}


@record(frozen=False)
class Compiled:
    """Everything twsrt owns in Codex's files, for any mode (Codex output is mode-free)."""

    top: dict[str, Any] = field(default_factory=dict)
    network_proxy: bool = False
    name: str = PROFILE  # the [permissions.NAME] table: the project layer's has its own name
    profile: dict[str, Any] = field(default_factory=dict)
    rules: str = ""
    origins: dict[str, Location] = field(default_factory=dict)


_lossy = agent_finding(NAME)
