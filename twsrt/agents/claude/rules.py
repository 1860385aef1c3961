"""Claude Code's own rules, taken into the catalog through its declaration (``rules``): what its
settings cannot carry (relative sandbox paths anchored at ``~/.claude``, credential entries it
refuses, the writable working directory, TWS401-TWS416), what its project and managed files
cannot carry (TWS445-TWS451), what a machine's managed settings override (TWS610-TWS612) and
what a command could plant for a later Claude (TWS628-TWS629) and the web tools a yolo file
denies (TWS638)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

LOSSY_RELATIVE_WRITE_ROOT = Rule(
    "TWS401",
    "lossy-relative-write-root",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A relative allowWrite path is not passed to an agent that would anchor it elsewhere.",
    "Claude Code anchors relative sandbox paths at ~/.claude for user settings, so a relative"
    " write root would grant a directory under ~/.claude. twsrt leaves it out; Claude's "
    "sandbox already lets commands write the working directory.",
)

LOSSY_RELATIVE_SANDBOX_PATH = Rule(
    "TWS402",
    "lossy-relative-sandbox-path",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A relative sandbox path covers ~/.claude in Claude's user settings, not the project.",
    "Claude Code anchors a relative path in user settings at ~/.claude. For "
    "`sandbox.credentials.files` no permission rule carries it to the project, so `.env` "
    "protects `~/.claude/.env` only and Bash commands still read the project's `.env`, "
    "which srt (anchoring at the working directory) hides. Write the path with `~/` or `/`; "
    "a per-project `.claude/settings.json` would anchor it at the project (per-project "
    "targets are a future twsrt feature). Relative `sandbox.filesystem` denies are not "
    "affected: the Read/Edit rules twsrt emits beside them carry them to the working "
    "directory (TWS416).",
)

LOSSY_READONLY_WORKSPACE = Rule(
    "TWS413",
    "lossy-readonly-workspace",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Under read-only, the agent's sandbox still lets commands write the working directory.",
    "Claude Code's sandbox always makes the directory it starts in writable and its user "
    "settings cannot take that away, so read-only is enforced for the file-editing tools "
    "(`Edit` is denied) and for every other path, but a sandboxed shell command can still "
    "write inside the workspace. Run Claude Code under srt without the workspace in "
    "allowWrite when that matters.",
)

LOSSY_CREDENTIAL_ENTRY = Rule(
    "TWS415",
    "lossy-credential-entry",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A credential entry is rewritten into a form Claude Code accepts.",
    "Claude Code refuses the whole settings file for some `credentials` entries srt takes: "
    "`extract` or a fail-closed `onExtractNoMatch` beside `decode` on a variable (srt's "
    "decode path never reads them, so they are left out), and `mask` on a directory (it is "
    "denied instead, which is stricter).",
)

RELATIVE_SANDBOX_PATH_NOTE = Rule(
    "TWS416",
    "relative-sandbox-path-note",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "A relative sandbox path is anchored at ~/.claude; the permission rules carry denies.",
    "In user settings Claude Code anchors a relative `sandbox.filesystem` path at "
    "~/.claude, so the sandbox entry alone would protect `~/.claude/**/.env` for `**/.env`. "
    "Claude also merges the Read/Edit deny rules into its sandbox, anchored at the working "
    "directory, and twsrt emits those beside every deny path: a real run of Claude Code "
    "2.1.332 on Linux shows Bash kept from reading a relative denyRead and from writing a "
    "relative denyWrite directory in the project, as srt does (a glob in a write list is "
    "enforced by neither on Linux, see TWS501). A relative `allowRead` is left out instead, "
    "which is stricter: reads there stay denied.",
)

CLAUDE_PROJECT_KEY_IGNORED = Rule(
    "TWS445",
    "claude-project-key-ignored",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A sandbox key Claude Code reads only from user, managed or --settings files is left out "
    "of the project file.",
    "Claude Code ignores some sandbox keys in a project's `.claude/settings.json` (so that a "
    "cloned repository cannot change them): `network.strictAllowlist`, `network.tlsTerminate`, "
    "`ripgrep`, `credentials.awsPairs` and `credentials.sigv4` among them. twsrt leaves them "
    "out of the project file rather than pretend, and reports the policy key: the project "
    "file enforces less than the policy. Keep them in the user's settings (a user-scope "
    "`twsrt generate -w`) or the managed settings, which Claude merges with the project's.",
)

CLAUDE_PROJECT_GRANT_IGNORED = Rule(
    "TWS446",
    "claude-project-grant-ignored",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A sandbox grant Claude Code reads only from user, managed or --settings files is left "
    "out of the project file.",
    "`allowAppleEvents`, `allowNestedUserNamespaces` and `credentials.allowPlaintextInject` "
    "open the sandbox up; Claude Code ignores them in a project's `.claude/settings.json`. "
    "twsrt leaves them out of the project file: stricter than the policy. A user or managed "
    "settings file can still grant them.",
)

CLAUDE_PROJECT_LAUNCH_ROOT = Rule(
    "TWS449",
    "claude-project-launch-root",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Claude Code loads a project's .claude/settings.json only when it starts in the project root.",
    "Observed with Claude Code 2.1.332 (tests/real/test_claude_project.py): Claude reads "
    "`.claude/settings.json` of the directory it starts in, not of the git root above it. "
    "Started in the project root, the project file's rules and sandbox apply, with relative "
    "paths anchored at the root; started in a subdirectory, nothing of it applies and only "
    "the user's (and managed) settings bind. Start Claude in the project root, or keep the "
    "policy in the user settings as well.",
)

CLAUDE_MANAGED_WRITE_ROOTS_OPEN = Rule(
    "TWS450",
    "claude-managed-write-roots-open",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Claude Code's managed settings cannot stop users from adding write roots.",
    "The managed file binds permission rules, hosts and read paths (`allowManaged...Only`), "
    "but Claude Code 2.1.332 has no such switch for writes: a user's `sandbox.filesystem."
    "allowWrite`, `permissions.additionalDirectories` or `Edit(...)` allow rule still makes a "
    "directory writable for sandboxed commands (observed in real runs). `twsrt check` on each "
    "machine reports such keys (TWS604); docs/managed.md says how to watch for them.",
)

CLAUDE_MANAGED_SANDBOX_LEFT_TO_USERS = Rule(
    "TWS451",
    "claude-managed-sandbox-left-to-users",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "The policy's sandbox is off, so the managed file leaves sandbox.enabled to the users.",
    'Under `[sandbox] mode = "danger-full-access"` or `"enabled": false` in the policy, '
    "the user file says `sandbox.enabled: false`. In managed settings that value would win over "
    "every user's own (observed with Claude Code 2.1.332: a managed false switches off a "
    "user's sandbox), so a floor without a sandbox would forbid the users a stricter one. The "
    "managed file leaves the key out: Claude's sandbox is off unless a user turns it on, and "
    "the managed sandbox lists apply when one does.",
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

CLAUDE_YOLO_WEB_TOOLS_DENIED = Rule(
    "TWS638",
    "claude-yolo-web-tools-denied",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.STRICTER,
    "Claude's yolo file denies WebFetch and WebSearch whole: no rule can keep them to the "
    "policy's hosts when every call is approved.",
    "Claude Code's WebFetch and WebSearch run in Claude's own process, not in its Bash "
    "sandbox, so srt's network proxy does not hold them; only permission rules do. A yolo file "
    "is used with bypassPermissions (`--dangerously-skip-permissions`), where a host no rule "
    "names is fetched unasked: a real run of Claude Code 2.1.332 under the yolo file of a "
    "policy allowing only github.com fetched a local host (tests/real/test_claude_webfetch.py; "
    "its preflight, skipped there, asks Anthropic's blocklist, not the policy), and WebSearch "
    "sent its query to the model's server-side search. A deny outranks every "
    "allow (observed: `WebFetch` denied beside `WebFetch(domain:HOST)` allowed reaches no "
    "host), and an ask rule outranks an allow too, so nothing narrower than a whole deny keeps "
    "the other hosts out: the yolo file denies both tools (`WebFetch`, `WebSearch`) and carries "
    "no `WebFetch(domain:...)` allow rules, stricter than the policy's allowedDomains. The full "
    "file keeps the allow rules; there Claude asks for any other host (headless `-p`: refused).\n\n"
    "Bash commands keep the allowed hosts through the sandbox's network proxy (`curl` where the "
    "bash rules allow it).",
)
