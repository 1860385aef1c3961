"""Loading and parsing rules (TWS0xx): the config, a source or a target could not be read,
resolved or written."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

CONFIG_INVALID = Rule(
    "TWS001",
    "config-invalid",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "The twsrt config file cannot be read or parsed.",
    "twsrt could not read or parse its config (twsrt.toml, .twsrt.toml, "
    "~/.config/twsrt/config.toml or the file named by -c/$TWSRT_CONFIG), or the config has a "
    "key the config schema does not know. Nothing can be checked or generated without it, so "
    "this is exit code 2; `twsrt check` still writes it into every report it was asked for "
    "(text, JSON, annotations, SARIF, JUnit), so CI shows it.",
)

SOURCE_MISSING = Rule(
    "TWS002",
    "source-missing",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A canonical source file does not exist.",
    "The srt settings or bash rules file named in [sources] does not exist or is a "
    "directory. Create it (`twsrt init`) or fix the path; relative paths resolve against the "
    "config file's directory. A fragment file of the selected profile ([fragments]) that does "
    "not exist is reported at the config entry that names it.",
)

SOURCE_UNPARSABLE = Rule(
    "TWS003",
    "source-unparsable",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A canonical source file is not valid JSON.",
    "The source cannot be parsed as JSON (or UTF-8). The location is where the parser "
    "stopped; a trailing comma or a missing quote is the usual cause.",
)

TARGET_UNUSABLE = Rule(
    "TWS004",
    "target-unusable",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A target file cannot be read, parsed or written.",
    "A generated agent file is not valid JSON/TOML, has the wrong shape (for example "
    "`permissions` is not an object), is a directory or a dangling symlink, or cannot be "
    "written. twsrt refuses to guess and changes nothing; fix or remove the file by hand.",
)

PATH_OUTSIDE_REPOSITORY = Rule(
    "TWS005",
    "path-outside-repository",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A source or target resolves outside the repository.",
    "When the config lives in a git repository (repo mode, as in CI on a pull request), "
    "every source and target, and every file twsrt reads beside a target (settings.local."
    "json, Codex profile files, the settings.json link), must resolve inside that "
    "repository after `..`, absolute paths and symlinks; the pinned home tree `home/` in "
    "the repository is inside. Anything else could make `check` print a file such as "
    "/proc/self/environ or ~/.aws/credentials into a report, or make `generate -w` "
    "overwrite a file such as ~/.bashrc, so twsrt neither reads nor writes it. The same holds "
    "for the user policy a project names (`[project] user_config`: a pull request would "
    "learn whether a runner's file exists, its type and its keys); name one outside the "
    "repository on the command line instead (`twsrt check --user-config FILE`). A user "
    "config outside any repository (~/.config/twsrt/config.toml) may name absolute paths.",
)

TARGET_COLLISION = Rule(
    "TWS006",
    "target-collision",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "Two targets, or a target and the config or a source, are the same file.",
    "Every target must be its own file: two [targets] keys that resolve to one path "
    "(including a derived yolo file such as settings.yolo.json, or the settings.json link "
    "twsrt keeps beside the Claude Code files), or a target that is the config or a canonical "
    "source, would make one write overwrite the other (a policy file turned into a flags "
    "snippet). twsrt refuses before reading or writing any target; give each its own path.",
)

IGNORE_NOT_ALLOWED = Rule(
    "TWS008",
    "ignore-not-allowed",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A [[check.ignore]] entry names a rule that cannot be suppressed, or no known rule.",
    "Loading, parse, config and file-safety errors (every TWS0xx rule), schema errors "
    "(every TWS1xx rule) and TWS215 mean that the policy or its files could not be checked "
    "or written as they stand, so they cannot be suppressed; an entry naming one (or an id "
    "or name the catalog does not know) is reported at its `rule` and suppresses nothing. "
    "Fix the input instead, or remove the entry.",
)

TARGET_CHANGED = Rule(
    "TWS009",
    "target-changed",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A target changed on disk while `generate -w` was running.",
    'twsrt merges into the text it read; another program (an agent\'s "always allow", an '
    "editor) wrote the file before twsrt replaced it. Replacing it would lose that edit, so "
    "twsrt stops, puts back every file it had already replaced, and writes nothing. Run "
    "`twsrt generate -w` again.",
)

SETTINGS_LINK_FOREIGN = Rule(
    "TWS010",
    "settings-link-foreign",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "settings.json is a symlink that twsrt did not make.",
    "twsrt's own link is `settings.json` beside the full settings file, pointing at the "
    "full or the yolo settings file (as configured, also in another directory; the link's "
    "value read relative to its directory). "
    "Any other link — into a dotfiles tree (GNU stow, chezmoi) or to another file — is the "
    "user's: Claude Code loads that file, not the generated one. `check` reports it, `diff` "
    "shows it as drift, and `generate -w` refuses to replace it. Name the linked file as "
    "`claude_settings` (twsrt writes through a link to its real file) or remove the link.",
)

DRIFT_UNPINNED_HOME = Rule(
    "TWS012",
    "drift-unpinned-home",
    Family.LOADING,
    Level.ERROR,
    Basis.WIDENS,
    "A target was generated on a machine with another home directory, and no home is pinned.",
    "Codex, Copilot and DeepCode need absolute paths, so twsrt expands `~` with the home "
    "directory. Without `home = ...` in twsrt.toml that is the home of the machine that runs "
    "twsrt, so a target generated on another machine (a colleague's, a laptop, CI) holds "
    "that machine's paths and the denies miss this machine's files. Running `twsrt "
    "generate -w` here would only swap one machine's paths for the other's; pin the home "
    'the repository uses (`home = "/home/you"` at the top of twsrt.toml) so every machine '
    "generates the same bytes.",
)

CONFIG_NOT_FOUND = Rule(
    "TWS013",
    "config-not-found",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "No twsrt config was found, so nothing could be checked.",
    "Without -c/--config or $TWSRT_CONFIG, twsrt looks for twsrt.toml, then .twsrt.toml, in "
    "the working directory and each parent up to the git root (only the working directory "
    "outside a repository), then for ~/.config/twsrt/config.toml. None exists. The finding "
    "points at twsrt.toml at the repository root (the working directory outside a "
    "repository), where every run inside the repository finds it. Run `twsrt init --repo` "
    "there, or name the config with -c (in the GitHub Action: the `config` or "
    "`working-directory` input). Exit code 2, as for every config that cannot be used.",
)

SCOPE_AGENT_UNAVAILABLE = Rule(
    "TWS017",
    "scope-agent-unavailable",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "`--agent` names an agent that has no file in this run's scope, or no selected agent has one.",
    "A run in project scope (`--project DIR`, or a config with a [project] table) compiles the "
    "agents' project files, and one in managed scope (`--managed DIR`, or [managed]) the files "
    "an administrator deploys. Copilot CLI, for one, reads only its user settings and launch "
    "flags, so `--agent copilot` in project scope has nothing to compile: a usage error (exit "
    "2). Without `--agent` such an agent is left out of the run with a note (TWS448); when "
    "that leaves no agent at all (a dotfiles config that targets only Copilot, run with "
    "`--project`), the run would compile nothing and stops the same way. Name the agents in "
    "the scope's `agents` list or with `--agent`. Their user files are compiled by a run in "
    "user scope, as before.",
)

SCOPE_TARGET_OUTSIDE_ROOT = Rule(
    "TWS018",
    "scope-target-outside-root",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A project or managed target, or the scope root itself, is not usable as this run's root.",
    "In project scope every target must resolve inside the project root (after `..`, "
    "absolute paths and symlinks): the agents load their project files from there, and twsrt "
    "reads and writes nothing else of the project. In managed scope every target must lie "
    "inside the output tree that configuration management ships. The root itself must be an "
    "existing directory. twsrt refuses before reading or writing any target; fix the "
    "[targets] entry or the root (`[project] root`, `[managed] root`, `--project DIR`, "
    "`--managed DIR`).",
)

PROFILE_INVALID = Rule(
    "TWS014",
    "profile-invalid",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "The [fragments] and [profiles] tables cannot compose a policy.",
    "A profile composes its policy from the fragments its `extends` names, in that order. "
    "Each of these stops every command with exit code 2, located at the config entry: "
    "`extends` names a fragment that [fragments] does not define, names one twice, or is "
    "empty; the profile's fragments name no srt file or no bash rules file (an empty list "
    "in a fragment is fine); [sources] stands beside "
    "[profiles] (a config has one policy or profiles, never both: move the two files into "
    "a fragment); [fragments] or `profile` without any [profiles]. See docs/profiles.md.",
)

PROFILE_NOT_SELECTED = Rule(
    "TWS015",
    "profile-not-selected",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "No profile, an unknown profile, or two profiles were selected.",
    "With [profiles], every run composes exactly one profile, chosen in this order: "
    "`--profile NAME`, then `$TWSRT_PROFILE`, then the one profile whose `hosts` patterns "
    "match this machine's host name (its full and its short name, case-insensitively), "
    "then the top-level `profile` default. A name that is not a [profiles] table, two "
    "profiles whose `hosts` both match, or no choice at all stops the run (exit code 2); "
    "the message lists the profiles there are. Name one with --profile or $TWSRT_PROFILE, "
    "or set `profile = ...` in the config.",
)

FRAGMENT_VALUE_CONFLICT = Rule(
    "TWS016",
    "fragment-value-conflict",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "Two fragments of a profile set one setting to different values.",
    "Composition concatenates lists and merges objects key by key, but a single value (a "
    "port, `enabled`, a binary's path) can hold only one value: when two fragments of the "
    "profile set it differently, twsrt cannot know which one the profile means and composes "
    "nothing (exit code 2). The finding stands at the later fragment's value and names the "
    "earlier one. Set the value in one fragment only (the same value in two is fine).",
)

REPORT_UNWRITABLE = Rule(
    "TWS023",
    "report-unwritable",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A report file (`--json`, `--sarif`, `--junit`) cannot be written where it was asked for.",
    "twsrt never writes a report through a link: the report path is a symlink (a dangling one "
    "too), a directory, a FIFO or another file that is not a regular file, or a directory on "
    "the way to it is a symlink inside the repository (in CI, a pull request can commit a "
    "link that makes the report a file in the runner's virtual environment, which the next "
    "step runs). A report is written as a fresh file beside the path and renamed into place, "
    "mode 0644 minus the umask; when any report of a run is refused, none is written. Remove "
    "the link or name another path (in CI, one outside the checkout such as $RUNNER_TEMP); "
    "`-`, `/dev/stdout` and `/dev/stderr` write the report to that stream.",
)

VCS_METADATA_PATH = Rule(
    "TWS019",
    "vcs-metadata-path",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A source, target, file derived from a target, or report lies inside a .git (or other "
    "version-control metadata) directory.",
    "git runs the files in `.git/hooks/` and obeys `.git/config`, which in CI also holds the "
    "checkout's token; Mercurial runs the hooks its `.hg/hgrc` names. A target there would make "
    "`generate -w` (the pre-commit hook) write code the next commit runs, and a file read from "
    "there could print the token into a report. So no path a config names (a source, a "
    "fragment file, a target, its yolo file or settings.json link, `[project] user_config`) "
    "and no report file may lie inside `.git`, `.hg`, `.svn`, `.jj`, `.bzr`, `_darcs` or "
    "`.pijul` (or be `.fslckout`/`_FOSSIL_`), as written or after every symlink, at any "
    "depth; a worktree's or submodule's `.git` file counts too. Names are compared as "
    "case-folding file systems compare them (`.GIT`, `.git.`, git's short name `GIT~1`). "
    "twsrt refuses before reading or writing anything (exit code 2), at the config key; "
    "move the file out of the metadata directory.",
)

TARGET_KEY_UNUSED = Rule(
    "TWS020",
    "target-key-unused",
    Family.LOADING,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A [targets] key belongs to a scope no run of this config works in, so its file is never "
    "written or checked.",
    "A config with a [project] table always runs in project scope, one with [managed] in "
    "managed scope; each run compiles only its scope's [targets] keys. A user key "
    "(`claude_settings`, ...) in such a config, or a managed key in a project config (and the "
    "other way round), names a file that no `generate` writes and no `check` compares: the "
    "agent that reads it gets whatever it holds, not the policy the config seems to promise, "
    "and no run of twsrt can check it (like an unknown key, it cannot be suppressed). The "
    "error stands at the key. Move the key into a config of its scope (a user config without "
    "[project]/[managed], which `--project DIR`/`--managed DIR` runs in the other scopes), or "
    "remove it. A config without either table keeps keys of every scope: each run uses its "
    "own.",
)
