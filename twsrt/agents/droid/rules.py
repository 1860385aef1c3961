"""Factory Droid's own rules, taken into the catalog through its declaration (``rules``). Each
rests on a headless run of the pinned build, 0.225.2 (docs/agents/pi-droid-observed.md and
tests/real/test_droid_generated.py; docs/agents/droid.md is the target)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

DROID_OWN_GRANTS = Rule(
    "TWS495",
    "droid-own-grants",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Droid's sandbox adds Factory's hosts, ~/.factory/temp and the launch directory to every "
    "policy.",
    "Factory Droid 0.225.2 puts its own hosts (api.factory.ai, app.factory.ai, "
    "telemetry.factory.ai, relay.factory.ai and their dev, staging and EU twins, "
    "downloads.factory.ai, api.workos.com, auth.workos.com) in front of the sandbox's "
    "allowedDomains, and always lets sandboxed commands write ~/.factory/temp (their TMPDIR) "
    "and the directory it starts in. No settings key removes them. A real run of the generated "
    "file let `curl https://api.factory.ai` through the proxy while it refused every other "
    "unlisted host (tests/real/test_droid_generated.py). twsrt write-denies every other "
    "directory of ~/.factory that Droid opens; the hosts, the temporary directory and the "
    "launch directory stay open (a denyWrite of the launch directory makes every command fail, "
    "as the sandbox runtime can then mount none of its own denies there). Accept the finding "
    "if a command reaching Factory's own API is acceptable, or run Droid under srt.",
)

DROID_COMMAND_WILDCARD = Rule(
    "TWS496",
    "droid-command-wildcard",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A bash deny or ask rule with `*` becomes its leading words in Droid's lists.",
    "Droid 0.225.2 matches a commandBlocklist or commandDenylist entry against a command's "
    "leading words (also behind `env`, an absolute path, `cd . &&` or `git -C .`), and reads "
    "`*` as a literal star: a blocklist entry `touch *` let `touch t` run (observed). twsrt "
    "writes such a rule as its words before the first `*` (`curl * | sh` becomes `curl`), which "
    "blocks or asks about every command they begin: stricter than the policy. Write the rule "
    "without the star to say exactly that.",
)

DROID_ALLOW_READ_TOOLS_ONLY = Rule(
    "TWS497",
    "droid-allow-read-tools-only",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "Droid re-opens allowRead for its file tools only.",
    "Droid 0.225.2 takes sandbox.filesystem.allowRead into the check of its Read, Grep and "
    "Glob tools, but does not pass it to the sandbox runtime that confines Execute: a shell "
    "command still cannot read below a denied path the policy re-opens. That is stricter than "
    "the policy.",
)

DROID_RUNTIME_UNREADABLE = Rule(
    "TWS424",
    "droid-runtime-unreadable",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A denyRead covers ~/.factory/sandbox-runtime: Droid's sandbox then runs no command.",
    "Factory Droid 0.225.2 keeps its sandbox runtime (the seccomp helper each sandboxed command "
    "starts through) in `~/.factory/sandbox-runtime`. A denyRead of that directory or of one "
    "above it (`~`, `~/.factory`) hides the helper from the sandbox, so every Execute call "
    'ends with "Command not found" and exit code 127 (observed; an allowRead of the runtime '
    "does not re-open it). It fails closed: nothing runs, nothing is widened. Deny the "
    "secrets inside the home by name instead of the whole home if Droid should run commands.",
)

DROID_LAUNCH_DIR_DENIED = Rule(
    "TWS425",
    "droid-launch-dir-denied",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A denyWrite of the launch directory: Droid's sandbox then runs no command.",
    "Factory Droid 0.225.2's sandbox runtime masks the files it protects in the directory Droid "
    "starts in (`.gitconfig`, `.bashrc`, `.vscode`, ...) by creating a placeholder where one is "
    "missing. A denyWrite of that directory (`.`, `./`, `./**`) mounts it read-only first, so "
    "the placeholders cannot be made and every Execute call fails before the command starts "
    '("bwrap: Can\'t create file at <dir>/.gitconfig: Read-only file system", observed in every '
    "sandbox mode). A denyWrite of a directory above it does not: the launch directory stays "
    "writable there (TWS495). It fails closed: nothing runs, nothing is widened. Deny the files "
    "in the launch directory by name instead if Droid should run commands.",
)

DROID_NESTED_LAYERS_OPEN = Rule(
    "TWS499",
    "droid-nested-layers-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "A sandboxed Droid command can plant a .factory/ layer below the launch directory.",
    "Droid's sandbox does not protect `.factory/` (tests/real/test_droid_observed.py), and a "
    "project `.factory/settings.json` adds a commandAllowlist the next launch honours; its "
    "hooks and MCP servers run outside the sandbox. twsrt write-denies `.factory`, `.agents` "
    "and every other agent's layer at the top of each write root (a real run of the generated "
    "file refused writing `.factory/settings.json`), but a command may still create "
    "`sub/.factory/settings.json` deeper down, which a launch in `sub/` loads, and below a "
    "write root other than the launch directory srt's own mandatory set (a nested "
    "repository's `.git/hooks`) is not applied either (`twsrt test --engine droid` shows "
    "both). Keep write roots narrow, or start Droid under srt in each root.",
)

DROID_PERMISSION_RULES = Rule(
    "TWS660",
    "droid-permission-rules",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "Droid's permissionRules beside twsrt's command lists are not checked.",
    "Droid 0.225.2 reads a `permissionRules` list (top level or under `general`) in its "
    "settings files beside the command lists twsrt writes. twsrt neither writes nor checks it, "
    "so one of its rules may allow a command the policy denies or asks about. Remove it, or "
    "move what it says into the policy's bash rules.",
)

DROID_LOCAL_OVERRIDE = Rule(
    "TWS661",
    "droid-local-override",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A key of settings.local.json replaces the one twsrt writes in settings.json.",
    "Droid 0.225.2 loads `settings.local.json` beside `settings.json`, and a key there replaces "
    "the same key of `settings.json` whole (tests/real/test_droid_generated.py): a local "
    '`sandbox` without `"enabled": true` switches the sandbox twsrt wrote off, a local '
    "`commandBlocklist` or `commandDenylist` drops twsrt's. A project's or the org-managed "
    "settings add to the user's instead. Remove the key from `settings.local.json`; the policy "
    "carries it.",
)

DROID_LAYER_ALLOWLIST = Rule(
    "TWS662",
    "droid-layer-allowlist",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "A commandAllowlist entry in another Droid layer names a command the policy denies or asks.",
    "A project's, a local or the org-managed `commandAllowlist` runs a command without a "
    "prompt, but twsrt's `commandBlocklist` and `commandDenylist` win over it (observed: a user "
    "denylist beat a project, a local and an org-managed allowlist). The entry is shadowed for "
    "the commands the policy names; remove it to say what runs.",
)

DROID_HOME_OVERRIDE = Rule(
    "TWS663",
    "droid-home-override",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "FACTORY_HOME_OVERRIDE makes Droid read settings twsrt did not write.",
    "`FACTORY_HOME_OVERRIDE` in Droid's launch environment wins over HOME: Droid 0.225.2 reads "
    "that directory's `.factory/settings.json`, and the sandbox twsrt wrote is gone (observed, "
    "row 9). `check` sees the variable in its own environment; unset it, or point the target "
    "at that directory.",
)

DROID_PROJECT_LAUNCH_ROOT = Rule(
    "TWS664",
    "droid-project-launch-root",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "Droid loads a project's .factory/settings.json at its root, or below it in a git "
    "repository, with relative paths from where it starts.",
    "Observed with Droid 0.225.2 (tests/real/test_droid_generated.py): Droid started in a "
    "project's root loads its `.factory/settings.json`, and started in a subdirectory it loads "
    "it only when the project is a git repository (from the repository root). It resolves the "
    "file's relative paths against the directory it starts in, not the project root, so a "
    "relative deny of the policy covers the project's path only in a launch at the root. The "
    "file's sandbox and command lists add to the user's: they cannot switch off or widen the "
    "user's sandbox (observed). Write the policy's paths with `~/` or `/` for a deny that holds "
    "wherever Droid starts.",
)
