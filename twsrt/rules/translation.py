"""Translation rules (TWS4xx): lossy or refused mappings, located at the source rule."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

LOSSY_PORT_DOMAIN = Rule(
    "TWS403",
    "lossy-port-domain",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A domain with a :port cannot be expressed as a per-port agent rule.",
    "Agent rules name hosts, not ports. An allowed `host:port` is left out (narrower); a "
    "denied `host:80/443` denies the host on every port (stricter); a denied entry for "
    "another port is left to the sandbox.",
)

LOSSY_LITERAL_GLOB = Rule(
    "TWS404",
    "lossy-literal-glob",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A literal path containing glob characters cannot be expressed exactly.",
    'A `{"path": ..., "literal": true}` deny whose path contains `*?[]` (or, for Claude '
    "Code's Read/Edit rules, `{}`) is read as a pattern by the agent, which may not match the "
    "literal path, so the file may stay "
    "reachable. Protect a parent directory without glob characters. (Such a grant is left "
    "out instead: TWS443.)",
)

LOSSY_UNSUPPORTED_KEY = Rule(
    "TWS405",
    "lossy-unsupported-key",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "An SRT setting that this agent cannot take is not compiled.",
    "The srt setting has no equivalent in this agent's file, or taking it would widen access "
    "(local binding, external proxies, all Unix sockets, weaker isolation). It is not "
    "compiled; run the agent under srt to enforce it.",
)

LOSSY_STRICTER_GLOB = Rule(
    "TWS407",
    "lossy-stricter-glob",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A deny glob is enforced more strictly than asked because the agent cannot express it.",
    "The agent can only deny a glob outright, so a write-protect glob also blocks reads. This"
    " is stricter than the policy, never weaker.",
)

LOSSY_WRITE_ROOT = Rule(
    "TWS408",
    "lossy-write-root",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A write root cannot be granted as asked and is skipped.",
    "The write root is `~`, `/`, a wildcard, a relative path that climbs above the launch "
    "directory with `..`, or lies inside a denied path; the agent cannot grant it exactly, "
    "so it is skipped and the deny wins.",
)


LOSSY_UNIX_SOCKET = Rule(
    "TWS410",
    "lossy-unix-socket",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A Unix socket entry is not an exact socket path and is skipped.",
    "Only exact absolute socket paths can be allowed; a directory or a pattern would open "
    "more sockets than the policy names.",
)

UNEXPRESSIBLE_PATH = Rule(
    "TWS411",
    "unexpressible-path",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A deny path cannot be written in the agent's format without dropping it.",
    "The deny cannot be written in the agent's format (a malformed `/~/` path, the whole home"
    " directory, a glob that would scan the whole filesystem, or a `..` that climbs above the "
    "launch or home directory, which Codex refuses to load). twsrt refuses instead of "
    "dropping it. `.` and `..` components that have one meaning are folded for every agent "
    "(`~/a/../b` is `~/b`).",
)


UNEXPRESSIBLE_COMMAND = Rule(
    "TWS406",
    "unexpressible-command",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A bash rule cannot be written in the agent's rule syntax.",
    "The bash rule contains a character the agent's rule syntax cannot hold (for Claude a `)`"
    " inside `Bash(...)`) or cannot be split into words. twsrt refuses rather than drop a "
    "deny.",
)


UNCOMPILED_KEY_NOTE = Rule(
    "TWS414",
    "uncompiled-key-note",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "An srt setting that grants or only configures srt itself is not compiled for an agent.",
    "The setting would grant more (local binding, Unix sockets, weaker isolation) or only "
    "configures the sandbox runtime's own machinery (binary paths, proxies, TLS "
    "termination, Windows), so the agent has nothing to take, or taking it would widen "
    "access. Leaving it out is stricter than the policy, or changes nothing; run the agent "
    "under srt when it needs the grant. A restricting setting the agent cannot take is "
    "TWS405 instead.",
)


# Agents that take only absolute paths, whole trees and plain host names (TWS421-TWS423)

LOSSY_RELATIVE_PATH = Rule(
    "TWS421",
    "lossy-relative-path",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A relative path cannot be given to an agent that takes only absolute paths.",
    "A relative srt path is anchored at the directory the sandboxed process starts in, which "
    "the agent's settings cannot know. A relative deny is left out of the agent's sandbox, "
    "so only an srt wrapper enforces it. Use `~/` or absolute paths for anything that must "
    "be enforced by the agent's own sandbox. (A relative grant is left out instead: "
    "TWS441.)",
)

LOSSY_GLOB_PATH = Rule(
    "TWS422",
    "lossy-glob-path",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A glob path cannot be expressed by an agent that takes no wildcards.",
    "The agent's sandbox names whole directory trees only. A glob deny is normally "
    "replaced by its concrete parent directory (TWS407); when that parent is `/` or the "
    "whole home directory, which would lock the agent out, it is left out and reported "
    "here. (A glob grant is left out instead: TWS442.)",
)

UNEXPRESSIBLE_DOMAIN = Rule(
    "TWS423",
    "unexpressible-domain",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A domain cannot be written as the agent's URL or host rule.",
    "The agent takes a hostname, an IP address, `*.example.com` or `*`, optionally with "
    "`:port`. Anything else (a comma, a path, a leading `-`, a port out of range) would be "
    "rejected or misread by the agent, so twsrt refuses rather than drop a rule.",
)

# The note forms of rules whose loss depends on the policy (TWS440-TWS445 allocated)

RELATIVE_GRANT_LEFT_OUT = Rule(
    "TWS441",
    "relative-grant-left-out",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A relative grant is left out for an agent that takes only absolute paths.",
    "A relative srt path is anchored at the directory the sandboxed process starts in, which "
    "the agent's settings cannot know, so a relative allowWrite or allowRead is not granted: "
    "stricter than the policy, never weaker. Write it with `~/` or an absolute path if the "
    "agent should grant it.",
)

GLOB_GRANT_LEFT_OUT = Rule(
    "TWS442",
    "glob-grant-left-out",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A glob grant is left out for an agent that takes no wildcards.",
    "The agent's sandbox names whole directory trees only, and any directory that holds the "
    "glob's matches would grant more, so the grant is left out: stricter than the policy, "
    "never weaker. Name the directories to grant.",
)

LITERAL_GLOB_GRANT_LEFT_OUT = Rule(
    "TWS443",
    "literal-glob-grant-left-out",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A literal grant whose path contains glob characters is left out.",
    'A `{"path": ..., "literal": true}` grant whose path contains `*?[]` would be read as '
    "a pattern by the agent and grant more than the literal path, so it is left out: "
    "stricter than the policy, never weaker.",
)


# Scopes (the project and managed runs)

SCOPE_AGENT_LEFT_OUT = Rule(
    "TWS448",
    "scope-agent-left-out",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "An agent has no file in this run's scope (project or managed), so it is left out.",
    "A project-scope run writes the agents' project files, a managed-scope run the files an "
    "administrator deploys. An agent without such a layer (Copilot CLI reads only its user "
    "settings and launch flags) has nothing to write there: it is left out of the run with "
    "this note, at the [project]/[managed] `agents` entry that names it (else at the scope's "
    "table, or the config). Its user files are compiled by a run in user scope; named with "
    "`--agent` it is a usage error (TWS017).",
)
