"""Gemini CLI's own rules, taken into the catalog through its declaration (``rules``). Each
rests on a headless run of the pinned version (docs/agents/gemini.md names the test)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

GEMINI_MANDATORY_NAMES_OPEN = Rule(
    "TWS473",
    "gemini-mandatory-names-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Gemini's sandbox lets a command plant what the next launch loads in the directory it "
    "starts in.",
    "Gemini CLI's tool sandbox binds the directory it starts in read-write and keeps only "
    "`.git` read-only there. A sandboxed command can write `.gemini/settings.json` in it: a "
    "real run of Gemini CLI 0.61.0 under the files twsrt writes planted one with "
    "`security.toolSandboxing: false`, and the next launch in that directory wrote outside "
    "every write root. The same holds for shell rc files, `.vscode/`, `.mcp.json` and every "
    "other agent's project layer, which srt keeps read-only whatever the policy says. No "
    "Gemini setting can make a path below the workspace read-only (its forbidden paths come "
    "from `.geminiignore` and skip files that do not exist yet), and folder trust stops a "
    "headless run in an untrusted directory altogether.\n\n"
    "Mitigation: run Gemini under srt (`srt -c gemini`), which protects the set in its "
    "working directory, and suppress this finding with that reason.",
)

GEMINI_NETWORK_OPEN = Rule(
    "TWS474",
    "gemini-network-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Gemini's sandbox network is on under --yolo, and a tool call may switch it on for itself.",
    "Gemini CLI's tool sandbox has no domain filter: twsrt writes "
    "`tools.sandboxNetworkAccess: false`, so sandboxed commands reach no host. Two ways past "
    "it were seen in real runs of 0.61.0: under `--yolo` the sandbox shares the host network "
    "whatever the setting says, and without it a shell call that carries "
    '`additional_permissions: {"network": true}` reached a local server with no prompt. A '
    "model can therefore reach any host, not only the policy's allowedDomains.\n\n"
    "Mitigation: run Gemini under srt, whose proxy filters hosts by the policy, and suppress "
    "this finding with that reason.",
)

GEMINI_SHELL_READ_OPEN = Rule(
    "TWS475",
    "gemini-shell-read-open",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Gemini's sandbox lets shell commands read a path the policy denies.",
    "Gemini CLI's tool sandbox mounts the whole filesystem read-only, so `cat` of a denied "
    "path succeeds (observed). twsrt denies the path to the file tools (`read_file`, "
    "`list_directory`, `glob`, `grep_search`, `write_file`, `replace`) by an anchored "
    "argument pattern, and those tools refuse paths outside the directory Gemini starts in "
    "on their own; a relative path to the same file gets past the pattern. Run Gemini under "
    "srt to deny the read to every command.",
)

GEMINI_WORKSPACE_WRITE_OPEN = Rule(
    "TWS476",
    "gemini-workspace-write-open",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Gemini's sandbox cannot deny a write below the directory it starts in.",
    "Gemini CLI's tool sandbox makes everything read-only except the directory it starts in, "
    "which it binds read-write whole. A denyWrite path outside that directory holds for shell "
    "commands and file tools; one inside it (a relative path, or an absolute one when Gemini "
    "starts above it) is written by a shell command. Start Gemini below the paths the policy "
    "write-denies, or run it under srt.",
)

GEMINI_PREFIX_BYPASS = Rule(
    "TWS477",
    "gemini-prefix-bypass",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Gemini's command-prefix rules match the literal first word only.",
    "A `commandPrefix` deny holds for the command, compounds (`a; cmd`), pipes and `sh -c`, "
    "but a real run of 0.61.0 ran `env cmd`, `command cmd`, `/bin/cmd` and `cmd<TAB>arg` past "
    "it. The OS sandbox still bounds what such a command can do; the deny itself is "
    "best-effort.",
)

GEMINI_NETWORK_OFF = Rule(
    "TWS478",
    "gemini-network-off",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "Gemini reaches none of the policy's allowed domains.",
    "Gemini CLI's sandbox can only switch the network on or off, and its `web_fetch` and "
    "`google_web_search` tools run in the agent's own process. twsrt switches the sandbox "
    "network off and denies both tools: stricter than the policy's allowedDomains.",
)

GEMINI_WORKSPACE_WRITABLE = Rule(
    "TWS479",
    "gemini-workspace-writable",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Gemini's sandbox lets shell commands write the directory it starts in, which the policy "
    "does not grant.",
    "Gemini CLI's tool sandbox binds the directory it starts in read-write in every approval "
    "mode a settings file can choose. When the policy does not grant `.` in allowWrite, or the "
    "sandbox mode is read-only, a shell command still writes there; in read-only mode twsrt "
    "also denies the write tools (`write_file`, `replace`) outright. Run Gemini under srt to "
    "keep the directory read-only.",
)


GEMINI_SANDBOX_NOT_WRITTEN = Rule(
    "TWS480",
    "gemini-sandbox-not-written",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "No gemini_settings target: Gemini's tool sandbox is not switched on.",
    "Gemini CLI runs shell commands without any sandbox unless `security.toolSandboxing` is "
    "true, and its default is false. twsrt sets it in the `gemini_settings` target; add the "
    "key to [targets] (`~/.gemini/settings.json`).",
)

GEMINI_POLICY_NOT_WRITTEN = Rule(
    "TWS481",
    "gemini-policy-not-written",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "No gemini_policy target: the bash rules and file-tool denies are not written.",
    "twsrt writes the bash rules, the file-tool denies and the web-tool denies into the "
    "`gemini_policy` target; without it only the sandbox keys are. Add the key to [targets] "
    "(`~/.gemini/policies/twsrt.toml`).",
)


GEMINI_POLICY_PATHS = Rule(
    "TWS630",
    "gemini-policy-paths",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A Gemini settings file names policyPaths, which replaces the user policy directory.",
    "With `policyPaths` set (the setting behind `--policy`), Gemini CLI 0.61.0 loads the "
    "named files instead of `~/.gemini/policies`, so twsrt's policy file is not loaded "
    "(observed). Remove the key; put extra rules in `~/.gemini/policies` beside twsrt's.",
)

GEMINI_PEER_POLICY_RULE = Rule(
    "TWS631",
    "gemini-peer-policy-rule",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "Another policy file beside twsrt's can outrank its deny or ask rules.",
    "Gemini CLI loads every `*.toml` in `~/.gemini/policies` at the same tier and lets the "
    "highest priority win. twsrt writes its deny rules at priority 999 and its ask rules at "
    '990; a rule of another file there (such as `auto-saved.toml`, which "allow for all '
    'future sessions" writes at 950) that allows or asks at 990 or above can win over '
    "them. Lower its priority below 990 or delete it.",
)


GEMINI_MANAGED_HOME_PATH = Rule(
    "TWS488",
    "gemini-managed-home-path",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A `~` deny path has no place in Gemini's admin policy file.",
    "Gemini CLI matches a file-tool rule's `argsPattern` against the call's arguments as "
    "they are: it expands no `~` or variable in it, and one admin file serves every user of "
    "the machine, so no home can be pinned. twsrt leaves a `~/...` denyRead or denyWrite out "
    "of the admin policy file (absolute paths are compiled exactly; relative ones are TWS421 as "
    "in every scope). Keep the user-scope `gemini_policy` target for those paths, or write them "
    "absolute.",
)

GEMINI_PROJECT_RULES_LOST = Rule(
    "TWS489",
    "gemini-project-rules-lost",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A Gemini project file cannot carry the bash rules or the file-tool denies.",
    "Gemini CLI 0.61.0 ignores workspace policy files (`.gemini/policies/`, observed: it "
    "hard-codes them off), and a workspace `settings.json` has no deny rule for a command or a "
    "path. The project file twsrt writes carries the sandbox keys and excludes the web tools; "
    "the policy's bash rules and its denyRead/denyWrite file-tool rules need the user-scope "
    "`gemini_policy` target or the managed admin policy.",
)

GEMINI_SYSTEM_SETTINGS_MOVABLE = Rule(
    "TWS490",
    "gemini-system-settings-movable",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A user can point Gemini at other system settings with GEMINI_CLI_SYSTEM_SETTINGS_PATH.",
    "Gemini CLI reads its system settings from the path in `$GEMINI_CLI_SYSTEM_SETTINGS_PATH` "
    "when that variable is set, instead of the system file (observed with 0.61.0): a user who "
    "sets it in their shell escapes the managed `security.toolSandboxing: true`. The admin "
    "policy directory has no such variable and stays bound. Clear or pin the variable in the "
    "environment your users' shells start with (`/etc/environment`, a login profile), or run "
    "Gemini under srt.",
)

GEMINI_ADMIN_POLICIES_SKIPPED = Rule(
    "TWS633",
    "gemini-admin-policies-skipped",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "Gemini skips this machine's admin policy directory: it is not root-owned or is writable by "
    "group or others.",
    "Gemini CLI 0.61.0 loads the admin policy directory (`/etc/gemini-cli/policies` on Linux) "
    "only when it is owned by root and neither group- nor world-writable; otherwise it prints "
    '"Security Warning: Skipping system policies" and loads none of its files (observed). Fix '
    "it with `chown root:root` and `chmod 755` on the directory.",
)

GEMINI_SYSTEM_SETTINGS_MOVED = Rule(
    "TWS634",
    "gemini-system-settings-moved",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "GEMINI_CLI_SYSTEM_SETTINGS_PATH is set: Gemini reads another file as its system settings.",
    "With `$GEMINI_CLI_SYSTEM_SETTINGS_PATH` set, Gemini CLI reads that file instead of the "
    "system settings the managed tree deploys (observed with 0.61.0), so their "
    "`security.toolSandboxing: true` no longer binds. Unset the variable.",
)

GEMINI_SYSTEM_SETTINGS_WIDER = Rule(
    "TWS635",
    "gemini-system-settings-wider",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "This machine's Gemini system settings set a sandbox key wider than the policy.",
    "Gemini CLI applies its system settings over the user's and the workspace's (observed with "
    "0.61.0), so a system `security.toolSandboxing: false`, `tools.sandboxNetworkAccess: true`, "
    "a non-empty `tools.sandboxAllowedPaths` or a `security.disableAlwaysAllow: false` wins "
    "over what twsrt writes into the user file. Regenerate the system file in managed scope "
    "(`twsrt generate --managed DIR`) and deploy it, or remove the key.",
)

GEMINI_PROJECT_LAUNCH_ROOT = Rule(
    "TWS491",
    "gemini-project-launch-root",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Gemini loads a project's .gemini/settings.json only from the directory it starts in, and "
    "only in a trusted folder.",
    "Observed with Gemini CLI 0.61.0 (tests/real/test_gemini_scopes.py): the workspace "
    "settings are `.gemini/settings.json` of the directory Gemini starts in, merged over the "
    "user's settings once the folder is trusted (`~/.gemini/trustedFolders.json`, "
    "`GEMINI_CLI_TRUST_WORKSPACE=true`, or folder trust off); started in a subdirectory, "
    "nothing of the project file applies and only the user's and system settings bind. A "
    "headless run in an untrusted folder does not start at all. Start Gemini in the project "
    "root, or keep the sandbox keys in the user settings as well.",
)
