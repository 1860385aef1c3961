"""Effective rules of Codex across launches (TWS625-TWS627): what the user's config.toml on this
machine lets a later Codex load that a command could have planted."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

CODEX_TRUSTED_PROJECT_PLANTABLE = Rule(
    "TWS625",
    "codex-trusted-project-plantable",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "Codex trusts a project that a write root reaches: a planted .codex/config.toml loads.",
    "Codex 0.171.0 loads `.codex/config.toml` (and `.codex/rules/`, hooks and MCP servers) of "
    "every directory between a trusted project's root and the directory it starts in, and "
    "keeps only the one at the top of a write root read-only (TWS465). A sandboxed command "
    "can therefore write `sub/.codex/config.toml`, and the next Codex started in `sub` loads "
    'it: observed, `default_permissions = ":danger-full-access"` there ran unconfined and read '
    "a denied file, and an `[mcp_servers]` entry started its command outside the sandbox. "
    "Trust is what switches this on: an untrusted project (no entry, or `trust_level = "
    '"untrusted"`) loads none of it, and `project_root_markers = []` does not help (Codex '
    "still takes the git root's trust). The twsrt profile in your config.toml needs no trust, "
    'so remove the entry or set `trust_level = "untrusted"`. Where a project layer of twsrt\'s '
    "needs the trust (`--project`), start Codex only in the project root, where Codex keeps "
    "`.codex` read-only, and report it with that reason. twsrt's managed `requirements.toml` "
    "binds the permission profile (a planted `default_permissions` falls back to it, "
    "observed) but not the MCP servers or hooks a planted layer adds.",
)
