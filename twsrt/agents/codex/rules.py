"""Codex's own rules, taken into the catalog through its declaration (``rules``): the translation
rules across launches (TWS465-TWS469: what a Codex command could leave for a later launch, which
the profile cannot forbid) and the effective rule of a trusted project (TWS625: what the user's
config.toml on this machine lets a later Codex load that a command could have planted)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

CODEX_NESTED_UNPROTECTED = Rule(
    "TWS465",
    "codex-nested-unprotected",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Below the top of a write root, Codex cannot protect what a later launch runs or loads.",
    "srt refuses writes to shell rc and profile files, `.gitconfig`, `.gitmodules`, "
    "`.ripgreprc`, `.mcp.json`, `.vscode/`, `.idea/`, `.claude/commands`, `.claude/agents` and "
    "every repository's `.git/hooks` and `.git/config`, because each of them runs or loads "
    "outside the sandbox later: a git hook at the next commit, an editor task when the folder "
    "opens, a shell rc at the next login. The agents' project layers (`.codex/config.toml`, "
    "`.claude/settings.json`, ...) are the same kind: the next agent started there loads them. "
    "Codex has none of these protections; twsrt writes each of them as a read-only entry at "
    "the top of every write root (observed with Codex 0.171.0: a missing one cannot be "
    "created, nor its missing parent, and an existing parent cannot be renamed aside), and "
    "Codex itself keeps `.git`, `.codex` and `.agents` read-only there. Deeper in the root "
    "nothing holds: Codex's deny globs match only files that exist when the sandbox starts, "
    "cannot cover a directory, and deny reads too (`**/.git/config` stops git). So a command "
    "can add a hook to a repository inside the write root, or plant `sub/.codex/config.toml`, "
    "which a trusted project's next Codex started in `sub` loads (observed: "
    '`default_permissions = ":danger-full-access"` ran unconfined, TWS625). Keep write roots '
    "free of other repositories and projects (a checkout, not the directory above all your "
    "checkouts), or run Codex under srt, which enforces the whole set. Suppress it with that "
    "reason when the root holds none.",
)

CODEX_LAUNCH_PINS_DEPTH = Rule(
    "TWS466",
    "codex-launch-pins-depth",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "A deny lies too deep for its ancestors to be pinned wherever Codex may start above it.",
    "With a relative write root, the directories between the launch directory and an "
    "absolute or `~/` deny below it are writable, and one renamed aside takes the deny with "
    "it: a command recreates the denied path with its own content (observed with Codex "
    "0.171.0; srt pins them when it starts). twsrt pins those directories relative to the "
    "launch directory, for each place Codex may start above the deny, up to 16 directories "
    "above its parent. A deny deeper than that below `/` or `~` is unpinned for launches "
    "further up; start Codex closer to it.",
)

CODEX_LAUNCH_PINS = Rule(
    "TWS467",
    "codex-launch-pins",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "Directories are pinned below every Codex launch directory so that a deny above holds.",
    'A deny below a relative write root (`allowWrite: ["."]`, `denyWrite: '
    '["~/dev/app/locked"]`) holds only if the directories between the launch directory and '
    "the deny cannot be renamed aside (observed with Codex 0.171.0: started in `~/dev`, a "
    "command renamed `app` and recreated `locked`). The launch directory is not known when "
    "twsrt compiles, so each such directory is pinned relative to it for every place Codex may "
    "start above the deny (`app`, `dev/app` and `dev` here). A pin is a directory of that name "
    "below whatever directory Codex starts in: a command cannot rename or remove it, and a "
    "repository in it keeps its `.git` read-only. Stricter than the policy, never weaker.",
)

CODEX_WHOLE_DIRECTORY = Rule(
    "TWS468",
    "codex-whole-directory",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A directory holding several protected paths is read-only whole at each Codex write root.",
    "Codex 0.171.0 fails to start its sandbox when two read-only entries lie below one "
    "directory that does not exist yet (`.claude/commands` and `.claude/agents` in a checkout "
    'without `.claude`: "Unable to mount source on destination"), and whether it exists is '
    "known only when Codex starts. So `.claude`, `.github` (Copilot's settings, agents and "
    "skills) and `.deepcode` are read-only as a whole at the top of every write root, not only "
    "the layers inside them: a command cannot change anything else there either, such as a "
    "workflow in `.github/workflows` (which CI runs outside the sandbox too). Stricter than "
    "the policy, never weaker.",
)

CODEX_RELATIVE_MEETS_ABSOLUTE = Rule(
    "TWS469",
    "codex-relative-meets-absolute",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A launch-relative write entry meets an absolute deny when Codex starts in some directory.",
    'Relative paths hang from the directory Codex starts in, and where a `"write"` entry '
    'and a `"read"` or `"deny"` entry name the same path, or the write entry lies below '
    "the other, Codex lets the write entry win (observed with Codex 0.171.0; srt lets the deny "
    'win). So `allowWrite: ["build"]` with `denyWrite: ["~/p/build"]` lets commands '
    "write `~/p/build` when Codex starts in `~/p`. A pin twsrt would write between a relative "
    "root and a relative deny (`a` for `a/secrets`) is left out where it could re-open an "
    "absolute deny ending in `a`: there a command can rename `a` aside and recreate "
    "`a/secrets` empty. Spell the deny and the write root the same way (both relative or both "
    "absolute), or never start Codex in that directory.",
)


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
