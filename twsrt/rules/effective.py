"""Effective configuration rules (TWS6xx): a user-owned key or another config layer that the
agent loads grants more than the policy. Reported at the key's own line; twsrt never edits it."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

USER_UNSANDBOXED_COMMAND = Rule(
    "TWS601",
    "user-unsandboxed-command",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key lets commands run outside the agent's sandbox.",
    "`sandbox.excludedCommands` (Claude Code, DeepCode) runs the named commands without the "
    "sandbox, and `sandbox.allowUnsandboxedCommands: true` (Claude Code) lets the model "
    "retry any command outside it, so the policy's filesystem and network rules do not "
    "apply to them. twsrt does not own these keys, so it reports them where they are "
    "written. To keep a command outside Claude's sandbox as a policy decision, set "
    "`excludedCommands` in `[sandbox_overrides.full]`/`[sandbox_overrides.yolo]` of "
    "twsrt.toml (twsrt then owns the key); otherwise remove it, or suppress the finding with "
    "a reason in `[[check.ignore]]`.",
)

USER_ALLOW_RULE = Rule(
    "TWS602",
    "user-allow-rule",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user allow entry reaches what the policy denies.",
    "An allow entry that the agent honours over the policy's deny: `sandbox.filesystem."
    "allowRead` in a Claude settings layer re-opens reads inside a denyRead region (srt "
    "lets allowRead win). Remove the entry; if the policy really should allow the path, "
    "narrow `filesystem.denyRead` or add `filesystem.allowRead` in the srt settings and run "
    "`twsrt generate -w`.",
)

USER_SKIPS_APPROVAL = Rule(
    "TWS603",
    "user-skips-approval",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key answers the policy's approvals without asking the user.",
    '`permissions.defaultMode: "bypassPermissions"` in a full-mode Claude Code file '
    "answers every ask rule of the policy with yes (use the yolo target for that, which "
    "drops the ask rules on purpose); in DeepCode it skips the permission rules entirely, "
    "deny rules included. A Codex profile file that sets `approvals_reviewer` to a model "
    'reviewer, or `approval_policy = "never"` beside a sandbox that is not twsrt\'s, lets '
    "commands run outside the policy without the user seeing them. Remove the key; choose "
    "the approval mode with `twsrt generate --yolo` instead.",
)

USER_WRITE_ROOT = Rule(
    "TWS604",
    "user-write-root",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key makes a directory writable that the policy does not.",
    "Claude Code and DeepCode add `permissions.additionalDirectories` to the sandbox's "
    "write roots; Claude also adds the paths of `Edit(...)` allow rules and the "
    "`sandbox.filesystem.allowWrite` entries of every settings layer. A directory outside "
    "the policy's `filesystem.allowWrite` roots becomes writable for sandboxed commands. "
    "Add the directory to `filesystem.allowWrite` in the srt settings (and run `twsrt "
    "generate -w`), or remove the entry.",
)

USER_NETWORK_GRANT = Rule(
    "TWS605",
    "user-network-grant",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key lets the agent reach a host outside the policy's allowlist.",
    "Claude Code merges `WebFetch(domain:...)` allow rules and the "
    "`sandbox.network.allowedDomains` of every settings layer into its sandbox's allowed "
    "hosts. A host that the policy's `network.allowedDomains` does not list becomes "
    "reachable. Add it to `network.allowedDomains` in the srt settings, or remove the entry.",
)

USER_SANDBOX_GRANT = Rule(
    "TWS606",
    "user-sandbox-grant",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user sandbox switch grants what the policy does not.",
    "A switch such as `allowLocalBinding`, `allowAllUnixSockets`, `allowUnixSockets`, "
    "`enableWeakerNetworkIsolation`, `enableWeakerNestedSandbox`, `allowAppleEvents`, "
    "`allowNestedUserNamespaces`, `filesystem.disabled` or a proxy port in a settings layer "
    "twsrt does not own (Claude's settings.local.json), or Copilot's "
    "`userPolicy.seatbelt.keychainAccess`, opens the sandbox wider than the srt settings. "
    "Set it in the srt settings if the policy should grant it, otherwise remove it.",
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

EFFECTIVE_LAYER_UNREADABLE = Rule(
    "TWS608",
    "effective-layer-unreadable",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A config layer the agent loads cannot be read, so its keys could not be checked.",
    "twsrt reads every file the agent loads that it can see (settings.local.json beside "
    "Claude's settings, Codex profile files) to find user keys that undo the policy. This "
    "one is not valid JSON/TOML or cannot be read; the agent may refuse it or read it "
    "differently. Fix the file.",
)

USER_ALLOW_SHADOWED = Rule(
    "TWS609",
    "user-allow-shadowed",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "A user allow entry names what the policy denies or asks; the agent's precedence keeps "
    "the policy.",
    "Claude Code and DeepCode evaluate deny, then ask, then allow, so an allow entry such as "
    "`Bash(curl *)` beside the policy's `curl` deny, or `Read(~/.ssh/**)` beside a "
    "denyRead, changes nothing while twsrt's deny or ask rule is there. It is still a "
    "contradiction that undoes the policy the day the deny goes: remove the allow entry, "
    "or change the policy if the command should be allowed.",
)

# Codex's managed layer (TWS613-TWS615)

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


# Codex's project layer (TWS616-TWS617)

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

MANAGED_OVERRIDES_USER_KEY = Rule(
    "TWS610",
    "managed-overrides-user-key",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "This machine's managed settings override a user key.",
    "Claude Code reads managed settings (`/etc/claude-code/managed-settings.json` on Linux, "
    "`/Library/Application Support/ClaudeCode/` on macOS) above every other layer: a value "
    "set there wins over the user's, and `allowManagedPermissionRulesOnly`, "
    "`allowManagedDomainsOnly` and `allowManagedReadPathsOnly` make Claude ignore the user's "
    "permission rules, allowed hosts and allowRead paths. The user key has no effect while "
    "the managed file is there; remove it, or keep it for machines without one.",
)

MANAGED_LAYER_GRANT = Rule(
    "TWS611",
    "managed-layer-grant",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "This machine's managed settings grant more than the policy.",
    "A key of the managed settings file Claude Code loads on this machine turns the sandbox "
    "off, lets commands leave it, or adds a host, write root or read path the policy does "
    "not grant; managed settings win over the user's, so twsrt's files cannot narrow it "
    "again. Regenerate the managed file from the policy (`twsrt generate --managed DIR`) and "
    "deploy it, or change the policy.",
)

MANAGED_DROPS_POLICY_RULES = Rule(
    "TWS612",
    "managed-drops-policy-rules",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "This machine's managed settings make Claude ignore the policy's permission rules.",
    "`allowManagedPermissionRulesOnly: true` in the managed settings makes Claude Code ignore "
    "the permission rules of every other file, the deny and ask rules twsrt writes into the "
    "user settings included. Rules the managed file does not carry itself are not enforced. "
    "Deploy a managed file generated from the policy (`twsrt generate --managed DIR`).",
)

# Between launches (issue 25): Claude Code (TWS628-TWS629)
CLAUDE_PLANTED_LAYERS = Rule(
    "TWS628",
    "claude-planted-layers",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A sandboxed command can plant a Claude Code config layer that a later Claude loads.",
    "Claude Code 2.1.332 keeps sandboxed commands from its own settings files and srt's "
    "mandatory-deny set in the directory it starts in only. A command may create "
    "`sub/.claude/settings.json`, `sub/.claude/settings.local.json` or `sub/.mcp.json` below "
    "that directory (or below any write root), and a Claude started in `sub/` later loads "
    'them: a planted `{"sandbox": {"enabled": false}}` switches its sandbox off, a planted '
    "`SessionStart` hook or MCP server runs outside the sandbox at the next start. Each was "
    "observed with real runs (tests/real/test_claude_layers.py).\n\n"
    "What twsrt compiles into every Claude file closes the rest: `Edit(NAME)` and "
    "`Edit(//**/NAME)` deny rules for each config layer and mandatory-deny name (Claude's own "
    "file tools are refused at any depth, in bypassPermissions mode too, and Bash in the "
    "launch directory), and the names under every write root that is no glob in "
    '`sandbox.filesystem.denyWrite` (`~/.bashrc` under `allowWrite: ["~"]`, '
    "`~/dev/.git/hooks` under `~/dev`). A layer Bash creates deeper down stays possible: srt "
    "does not enforce glob write denies on Linux, and no user or project setting makes Claude "
    "ignore a subdirectory's layers.\n\n"
    "Mitigation: deploy the managed settings (`twsrt generate --managed DIR`, "
    "docs/managed.md). There `sandbox.enabled: true` wins over a planted `false`, "
    "`allowManagedHooksOnly: true` runs no hook of another file, `allowedMcpServers: []` "
    "starts no MCP server the organisation does not deliver, and "
    "`allowManagedPermissionRulesOnly` ignores planted permission rules (each observed). "
    "`check` stays quiet on a machine whose managed settings bind all three; elsewhere (CI, "
    "another machine) suppress the finding with the reason that the managed settings are "
    "deployed where Claude runs.",
)

CLAUDE_NESTED_UNPROTECTED = Rule(
    "TWS629",
    "claude-nested-unprotected",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "Below the top of a write root other than the launch directory, Claude Code cannot keep a "
    "command from planting what git, an editor or a shell runs later.",
    "Claude Code's sandbox (srt 0.0.83 underneath) applies srt's mandatory-deny set (shell rc "
    "and profile files, `.gitconfig`, `.gitmodules`, `.ripgreprc`, `.mcp.json`, `.vscode/`, "
    "`.idea/`, a repository's `.git/hooks` and `.git/config`) in the directory Claude starts "
    "in and below it only. twsrt adds the names at the top of every write root "
    "(`sandbox.filesystem.denyWrite`), but srt does not enforce glob write denies on Linux, so "
    "deeper down a command may create `/tmp/repo/.git/hooks/pre-commit` (run by the next "
    "`git commit` there, outside any sandbox) or append to its `.git/config` (observed by "
    "`twsrt test`'s attacks across launches).\n\n"
    "Mitigation: keep other repositories and projects out of the write root (a cache, a "
    "scratch directory), list a narrower root, or start Claude where they are (its launch "
    "directory is protected). Suppress with the reason when nothing of the kind lies inside "
    "the root.",
)
