"""Translation rules of the project and managed files (TWS445-TWS459, family TWS4xx): what a
project or managed layer of an agent cannot carry, located at the source rule. Kept apart from
``translation`` (the user files' rules, which re-exports these: one module per family)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

# Project scope (TWS445-TWS449); managed scope (TWS450-TWS456); Codex project (TWS457-TWS459)
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

DEEPCODE_PROJECT_LAYER = Rule(
    "TWS447",
    "deepcode-project-layer",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "DeepCode applies a project settings file only in a trusted directory, and its lists "
    "replace the user's.",
    "DeepCode reads `<cwd>/.deepcode/settings.json` after the user's file: objects merge, "
    "but every list and value of the project file replaces the user's (its denyRead list "
    "replaces, not extends, the user's). twsrt therefore writes the whole policy into the "
    "project file, never a difference. In a directory DeepCode does not trust, it resets "
    "`permissions` and `sandbox` of the project layer to the user's values, so the project "
    "file binds only once the directory is trusted; the user file stays in force until then.",
)

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

# Codex's project layer (TWS457-TWS459)

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
