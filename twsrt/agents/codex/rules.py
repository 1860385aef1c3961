"""Codex's own rules, taken into the catalog through its declaration (``rules``): a legacy sandbox
setting that deactivates its profile (TWS202); what its files cannot carry (bash rules, deny
globs it expands once, masked credentials, mixed spellings: TWS409-TWS418); what its project
layer anchors at the launch directory (TWS457-TWS458); the translation rules across launches
(TWS465-TWS469: what a Codex command could leave for a later launch, which the profile cannot
forbid); the engine gaps `twsrt test` finds (TWS503-TWS505); and the effective rules of its
profile files, managed layer and project layer (TWS607-TWS617), among them a trusted project
(TWS625: what the user's config.toml on this machine lets a later Codex load that a command
could have planted)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

CODEX_LEGACY_SANDBOX = Rule(
    "TWS202",
    "codex-legacy-sandbox",
    Family.POLICY,
    Level.ERROR,
    Basis.WIDENS,
    "A legacy Codex sandbox setting would silently deactivate the twsrt profile.",
    "When `sandbox_mode` or `sandbox_workspace_write` appears in any loaded Codex config "
    "layer, Codex ignores `default_permissions` without an error. Remove the legacy keys.",
)

LOSSY_BASH_RULE = Rule(
    "TWS409",
    "lossy-bash-rule",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A bash allow or ask rule is not compiled for an agent where it would not help.",
    "Codex's rules only decide about commands that ask to leave its sandbox, and it asks "
    "the user before every such command. A bash allow rule would let the command leave "
    "the sandbox without asking (so leaving it out keeps Codex stricter), and an ask rule "
    "restates that default. Inside the sandbox no rule is consulted, for deny rules too; "
    "the sandbox's paths and hosts bound what such a command can do.",
)

LOSSY_GLOB_SNAPSHOT = Rule(
    "TWS412",
    "lossy-glob-snapshot",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "The agent expands a deny glob once at start; files created later stay writable.",
    "Codex expands a deny glob such as `**/.env` or `~/keys/*.pem` into the files that match "
    "when its sandbox starts. A matching file created, or renamed into place, later in the "
    "session is not covered: it stays writable (and readable, for denyRead) although srt "
    "would refuse it (observed with Codex 0.171.0). A deny that names a directory (`P`, "
    "`P/`, `P/**`) has no such gap: Codex denies the directory itself, so nothing can be "
    "created, renamed or removed in it. Name directories where you can.",
)

LOSSY_CREDENTIAL_MASK = Rule(
    "TWS417",
    "lossy-credential-mask",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A credential file that srt masks is denied outright by an agent that cannot mask.",
    "srt can hand a command a masked copy of a credential file (`credentials.files` with "
    '`mode: "mask"`) and put the real secret back into requests to the allowed hosts. '
    "Codex has no such masking, and leaving the file readable would give commands the real "
    'secret, so twsrt denies the file (like `mode: "deny"`): stricter than the policy, '
    "never weaker. A tool that needs the credential fails under Codex; run it under srt.",
)

CODEX_MIXED_SPELLING = Rule(
    "TWS418",
    "codex-mixed-spelling",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A deny below a write root is spelled differently (~/ against absolute) for Codex.",
    "Codex mounts each deny where it is, so twsrt also makes every directory between a write "
    "root and a deny below it a mount point of its own; otherwise a sandboxed command could "
    "rename that directory away and re-create the denied path empty and writable (observed "
    "with Codex 0.171.0). twsrt finds those directories by comparing the paths as written, "
    "because the generated files must not depend on the home directory, so a root written "
    "`/home/you/proj` and a deny written `~/proj/a/secrets` get no pins. The finding expands "
    "`~` with the pinned home (else this machine's). Write both paths the same way.",
)

CODEX_LAUNCH_ANCHORED_WRITE = Rule(
    "TWS457",
    "codex-launch-anchored-write",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Codex anchors a relative write root of a project policy at the directory it starts in.",
    "A project policy's relative paths mean paths in the project, but Codex anchors them at its "
    "`:workspace_roots`, the directory it starts in (observed with Codex 0.171.0; no key of "
    "the project layer names the project root). Started in a subdirectory, a relative "
    "allowWrite such as `build` makes that subdirectory's `build` writable, which the policy "
    "does not grant. Nothing is wider when the project itself (`.`) is a write root (the "
    "subdirectory then lies inside it); otherwise grant `.`, or, if Codex is always started "
    "in the project root, suppress the finding with that reason in `[[check.ignore]]`.",
)

CODEX_LAUNCH_ANCHORED_DENY = Rule(
    "TWS458",
    "codex-launch-anchored-deny",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Codex anchors a relative deny of a project policy at the directory it starts in.",
    "Codex's project layer enforces the policy's relative denies (`**/*.pem`, `./secrets`) "
    "below `:workspace_roots`, the directory Codex starts in (observed with Codex 0.171.0). "
    "Started in the project root they cover the whole project; started in a subdirectory, "
    "only that subdirectory, and a file elsewhere in the project stays readable. Start Codex "
    "in the project root (as TWS207 says of every relative pattern), or write the deny with "
    "`~/` or an absolute path.",
)

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

CODEX_TEMP_WRITABLE = Rule(
    "TWS503",
    "codex-temp-writable",
    Family.ENGINE,
    Level.ERROR,
    Basis.WIDENS,
    "Codex lets sandboxed commands write /tmp and $TMPDIR whatever the policy says.",
    "Codex's `:workspace` base profile makes `/tmp` and the temporary directory writable "
    "besides the workspace, although the canonical policy grants writes only to its "
    "allowWrite roots. Found by the `write-tmp` probe of `twsrt test` (Codex 0.171.0). The "
    "profile twsrt generates extends `:read-only` and names each write root, so it no "
    "longer has this gap; `twsrt test` still reports it for a profile on disk that extends "
    "`:workspace` (an old or hand-edited one). Regenerate the Codex config.",
)

CODEX_NO_ALLOW_READ = Rule(
    "TWS504",
    "codex-no-allow-read",
    Family.ENGINE,
    Level.NOTE,
    Basis.STRICTER,
    "allowRead is not compiled for Codex, so a re-allowed path stays denied.",
    "`filesystem.allowRead` re-opens reads inside a denyRead region in srt. The Codex "
    "profile has no such exception, so the path stays unreadable under Codex: stricter "
    "than the policy, never weaker. `twsrt test` shows it as a GAP on the allow-read probe.",
)

CODEX_LINUX_UNIX_SOCKETS = Rule(
    "TWS505",
    "codex-linux-unix-sockets",
    Family.ENGINE,
    Level.NOTE,
    Basis.STRICTER,
    "Codex on Linux blocks Unix sockets that the policy allows.",
    "Codex's `network.unix_sockets` allow list is applied on macOS; on Linux its sandbox "
    "gives commands no Unix sockets, so a socket in `allowUnixSockets` cannot be reached "
    "under Codex. Stricter than the policy, never weaker.",
)

CODEX_OTHER_PERMISSIONS = Rule(
    "TWS607",
    "codex-other-permissions",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A Codex profile file selects or redefines a permissions profile that is not twsrt's.",
    "`codex --profile NAME` loads `NAME.config.toml` beside config.toml; a "
    "`default_permissions` there that names another profile (or a built-in such as "
    "`:danger-full-access`), or a `[permissions.twsrt]` table that changes the generated "
    "one, replaces the policy for every run with that profile (observed with Codex "
    "0.171.0: a write into a denied directory succeeds). Remove the key; express the need "
    "in the srt settings, or choose the sandbox mode with `[sandbox] mode` in twsrt.toml.",
)

CODEX_MANAGED_OVERRIDES = Rule(
    "TWS613",
    "codex-managed-overrides",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "The host's Codex managed layer overrides or refuses a user key.",
    "Codex applies `/etc/codex/managed_config.toml` over the user's config.toml, and "
    "`/etc/codex/requirements.toml` refuses values outside its allowed sets: a user "
    "`default_permissions` that the requirements' `[allowed_permission_profiles]` does not "
    "list falls back to the requirements' `default_permissions` (observed with Codex 0.171.0). "
    "The user key is not what Codex runs with; the managed value is, and it enforces the "
    "policy. Nothing to fix; remove the user key to make the file say what runs, or ask the "
    "administrator to allow the twsrt profile.",
)

CODEX_MANAGED_WIDENS = Rule(
    "TWS614",
    "codex-managed-widens",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "The host's Codex managed layer grants more than the policy.",
    "A key of `/etc/codex/requirements.toml` or `/etc/codex/managed_config.toml` wins over "
    "the user's config.toml, so when it selects `:danger-full-access` or `:workspace`, sets a "
    "legacy `sandbox_mode`, turns `features.network_proxy` off while the policy has domain "
    "rules, lets a model reviewer approve escalations or lets the shell source login profiles, "
    "Codex runs with more than the policy, whatever twsrt writes into the user's files. "
    "Deploy the managed files `twsrt generate --managed DIR` writes from this policy, or ask "
    "the administrator to change the key.",
)

CODEX_MANAGED_PROFILE_DIFFERS = Rule(
    "TWS615",
    "codex-managed-profile-differs",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "The host's Codex requirements bind a permissions profile that is not the policy's.",
    "`/etc/codex/requirements.toml` makes Codex run with its own `default_permissions` "
    "profile instead of the user's twsrt profile, and that profile is not the one this "
    "policy compiles to, so twsrt cannot show that Codex enforces the policy (it may allow "
    "more). Regenerate the managed files with `twsrt generate --managed DIR` from this policy "
    "and redeploy them, or list the user's `twsrt` profile in `[allowed_permission_profiles]`.",
)

CODEX_PROJECT_NOT_LOADED = Rule(
    "TWS616",
    "codex-project-not-loaded",
    Family.EFFECTIVE,
    Level.WARNING,
    Basis.DROPS,
    "Codex does not load the project layer twsrt writes, so the project policy is not applied.",
    "Codex 0.171.0 reads a project's `.codex/config.toml` and `.codex/rules/*.rules` only when "
    'the user\'s `~/.codex/config.toml` (`$CODEX_HOME`) trusts it: `[projects."<dir>"] '
    'trust_level = "trusted"` for the real path of the project directory, or, when that has no '
    "entry, for its repository root (the nearest directory above it with a `.git`, Codex's "
    "`project_root_markers`); any other trusted directory does not count. Without a marker "
    "at or above the project, only a Codex started in the project directory itself loads the "
    "layer. Otherwise Codex runs with the user's "
    "own profile and the project's denies are not enforced (observed: a read of a denied file "
    "succeeds). Trusting is not free: a trusted project's Codex also loads a "
    "`.codex/config.toml` that a sandboxed command plants in a subdirectory, when it starts "
    "there (TWS625, observed running unconfined). What is safe: keep the policy in the user's "
    "own config.toml (a user-scope `twsrt generate -w`, which needs no trust) and leave "
    "projects untrusted; or trust only the project root, from a git checkout, and start Codex "
    "only in that root, where Codex keeps `.codex` read-only. twsrt only reads the user's "
    "file; a machine without a Codex config.toml (CI) is not checked.",
)

CODEX_PROJECT_PROFILE_MERGED = Rule(
    "TWS617",
    "codex-project-profile-merged",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "The user's Codex config.toml defines the project's permissions profile, which Codex "
    "merges into it.",
    "Codex merges a `[permissions.twsrt-project]` table of the user's `config.toml` (or of a "
    "profile file `NAME.config.toml` beside it, for `codex --profile NAME`) key by key under "
    "the one the project layer defines (observed with Codex 0.171.0: a write root the user's "
    "table adds is writable in the project), so every entry there that the project layer does "
    "not set itself is added to the project policy. Remove the table from the user's file; a "
    "project's policy belongs in its own twsrt sources.",
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

CODEX_MISSING_PARENT = Rule(
    "TWS618",
    "codex-missing-parent",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.STRICTER,
    "Two protected Codex entries lie below a directory missing on this host: its sandbox fails.",
    "Codex 0.171.0 masks a read-only or denied entry that does not exist when its sandbox "
    "starts at the entry's first missing component, and fails to start (\"bwrap: Can't bind "
    'mount ... Unable to mount source on destination") when two entries share that missing '
    "directory inside a write root. Every agent's user layer is protected, so "
    "`~/.config/opencode` and `~/.config/kilo` are two such entries: in a home without "
    "`~/.config`, a Codex that can write the home (an allowWrite of `~`, or a launch-relative "
    "write root with Codex started in `~`) runs no command at all. It fails closed, never "
    "wider. `twsrt check` looks at this machine; create the directory it names. The generated "
    "file does not change with the host.",
)
