"""Policy lints (TWS2xx): the canonical policy says something risky, contradictory or
host-dependent."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

DISABLED_SANDBOX = Rule(
    "TWS201",
    "disabled-sandbox",
    Family.POLICY,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "The canonical sandbox is disabled; an agent that needs it refuses to generate.",
    '`"enabled": false` in the srt settings turns the policy\'s sandbox off. Claude Code gets '
    "`sandbox.enabled = false`; Codex generation refuses rather than pretend to enforce a "
    "disabled policy.",
)


CONTRADICTORY_COMMANDS = Rule(
    "TWS203",
    "contradictory-commands",
    Family.POLICY,
    Level.NOTE,
    Basis.STRICTER,
    "The same command is in two bash rule lists.",
    "A command in both deny and ask (or allow and deny, or allow and ask) is ambiguous: "
    "agents apply the strictest rule, so the weaker entry never takes effect. Keep one.",
)

WRITE_ROOT_IN_DENIED_READ = Rule(
    "TWS204",
    "write-root-in-denied-read",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "A write root lies inside a read-denied path.",
    "An allowWrite path inside a denyRead path grants writes where reads are denied; agents "
    "differ in which wins (Codex skips the root). Move the write root or narrow the deny.",
)

WRITE_AND_DENY_WRITE = Rule(
    "TWS205",
    "write-and-deny-write",
    Family.POLICY,
    Level.NOTE,
    Basis.STRICTER,
    "A path is both in allowWrite and denyWrite.",
    "denyWrite wins, so the allowWrite entry grants nothing. Remove one of them.",
)

WILDCARD_WITHOUT_APEX = Rule(
    "TWS206",
    "wildcard-without-apex",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "`*.example.com` is listed without `example.com` (or the reverse).",
    "`*.example.com` matches subdomains only, never `example.com` itself. When the sibling "
    "of the same list is clearly intended (for example a `*.github.com` allow beside "
    "`github.com` elsewhere), list both forms.",
)

LAUNCH_RELATIVE_PATTERN = Rule(
    "TWS207",
    "launch-relative-pattern",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "A relative `**/` pattern is anchored at the directory an agent starts in.",
    "Relative paths in the srt settings resolve against the working directory of the "
    "sandboxed process, so `**/.env` protects only files below wherever the agent was "
    "launched. Use `~/` or absolute paths for files that must be protected everywhere.",
)

DUPLICATE_ENTRY = Rule(
    "TWS208",
    "duplicate-entry",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "The same entry appears twice in a list.",
    "Duplicates are emitted once; the second entry is noise and hides real differences in review.",
)

SANDBOX_DISABLED_LINT = Rule(
    "TWS209",
    "sandbox-disabled-lint",
    Family.POLICY,
    Level.WARNING,
    Basis.DROPS,
    "The canonical sandbox is switched off.",
    '`"enabled": false` means commands run without an OS sandbox wherever the agent '
    "honours it. Keep it on unless you know why.",
)

NO_NETWORK = Rule(
    "TWS210",
    "no-network",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "allowedDomains is empty: no network access at all.",
    "An empty allow list blocks every host, which is safe but often surprising (package "
    "installs fail). Add the registries you need.",
)

UNPINNED_HOME = Rule(
    "TWS211",
    "unpinned-home",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "An output depends on this machine's home directory because no home is pinned.",
    "Some agents need absolute paths, so twsrt expands `~` with a home directory. Set "
    '`home = "/home/you"` at the top of twsrt.toml so that CI and every machine generate '
    "the same bytes.",
)

DANGER_FULL_ACCESS = Rule(
    "TWS212",
    "danger-full-access",
    Family.POLICY,
    Level.WARNING,
    Basis.DROPS,
    "The sandbox mode is danger-full-access: agents run commands without an OS sandbox.",
    '`[sandbox] mode = "danger-full-access"` (or `--sandbox danger-full-access`) turns '
    "every agent's sandbox off, so the policy's filesystem and network rules are enforced by "
    "nobody. The deny rules an agent applies itself stay in force: Claude Code's permission "
    "rules, Codex's exec-policy rules, Copilot's `--deny-tool`/`--deny-url` flags and "
    "DeepCode's permission rules. It is reported on every run so that the choice stays "
    "visible; suppress it with a reason in `[[check.ignore]]` if it is deliberate.",
)

AGENT_SANDBOX_OFF = Rule(
    "TWS214",
    "agent-sandbox-off",
    Family.POLICY,
    Level.ERROR,
    Basis.WIDENS,
    "An agent's sandbox is off while the policy's is on.",
    "The policy's sandbox is on (srt runs every command inside it), but the agent's ends up "
    "off: a `[sandbox_overrides.*]` table or a user key such as `sandbox.enabled: false` in "
    "Claude's settings.local.json, or a `sandbox.enabledPlatforms` list without the "
    "platform, turns it off, and the agent then enforces none of the filesystem and network "
    'rules. Remove the key; choose `[sandbox] mode = "danger-full-access"` in twsrt.toml if '
    "running without a sandbox is the intent.",
)

REFUSED_DOMAIN = Rule(
    "TWS215",
    "refused-domain",
    Family.POLICY,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A network entry that srt itself refuses; nothing is generated from it.",
    "srt checks every allowedDomains and deniedDomains entry and will not start with one "
    'it refuses: `"*"` and a wildcard over a single label such as `"*.com"` ("overly '
    'broad patterns ... are not allowed for security reasons"), a name without a dot '
    "(other than `localhost`), a URL, a path, a bad port or an unbracketed IPv6 literal. "
    "The agents would take `*` and `*.com` as allow-all, so twsrt refuses the same "
    "entries as srt, at the entry, and generates nothing until it is fixed (in "
    'deniedDomains a bare `"*"` is fine: it denies every host). It cannot be suppressed.',
)

SYMLINKED_POLICY_PATH = Rule(
    "TWS220",
    "symlinked-policy-path",
    Family.POLICY,
    Level.WARNING,
    Basis.DROPS,
    "A policy path is a symlink on this host, or lies under one.",
    "Codex (0.171.0) does not match a write root and a deny when one is spelled through a "
    "symlink and the other by the real path: the denied directory stays writable. A "
    "denyRead that crosses a symlink inside a writable directory (the workspace, a write "
    "root, /tmp) makes every Codex start fail. `twsrt check` looks at the paths that "
    "exist on the machine it runs on (`~` is the running user's home, relative paths start "
    "at the working directory) and names both spellings. Write every path by its real "
    "location, the way `realpath` prints it; the generated files never depend on the host.",
)

WRITE_ROOT_NOT_DIRECTORY = Rule(
    "TWS221",
    "write-root-not-directory",
    Family.POLICY,
    Level.NOTE,
    Basis.STRICTER,
    "An allowWrite path is a file on this host; Codex cannot start with it as a write root.",
    "Codex mounts protected entries (`.git`, `.aws`, ...) inside every writable root, so a "
    'root that is a regular file makes every `codex sandbox` start fail with "Not a '
    'directory" (observed with Codex 0.171.0). The generated files cannot know what a path '
    "is on the machine that uses them, so `twsrt check` looks at this machine. Grant a "
    "directory that holds only what may be written, or leave the file out of allowWrite.",
)

FRAGMENT_CONFLICT = Rule(
    "TWS222",
    "fragment-conflict",
    Family.POLICY,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A rule is allowed in one fragment of a profile and denied (or asked) in another.",
    "The same bash command in `allow` of one fragment and `deny` or `ask` of another, the same "
    "domain in allowedDomains and deniedDomains of two fragments, the same path (in one "
    "spelling: `~//a`, `~/a/`, `/proc/self/root/...` and the pinned home's absolute spelling "
    "are one path) in allowWrite and denyWrite, an allowRead that re-opens any part of another "
    "fragment's denyRead (inside it, around it, or through a symlink on this host) which that "
    "fragment does not re-open itself, or an srt switch that grants (routes traffic past the "
    "allowlist or loosens enforcement, such as `network.httpProxyPort`) set by one fragment and "
    "not alike by another: the fragments disagree about what the profile grants. Which of the "
    "two the author of the profile meant cannot be known, so `check` reports it as an error at "
    "the allowing entry, naming the other entry (or fragment file) and both fragments. Within "
    "one file the same pairs keep srt's meaning (an allowRead inside a denyRead is a carve-out; "
    "the same command in allow and deny stays the note TWS203). Remove one of the two entries, "
    "set the switch alike in every fragment, or keep the fragments apart in different profiles.",
)

FRAGMENT_NOT_HOOKED = Rule(
    "TWS223",
    "fragment-not-hooked",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "A fragment file's name does not match the pre-commit hook's files pattern.",
    "The twsrt pre-commit hooks run when a commit touches the config, a source or a target; "
    "they recognise policy files by name (`srt-settings.json`, `bash-rules.json`, and for "
    "fragments `*.srt.json` and `*.bash.json`). A fragment file named otherwise can change "
    "without the hook checking it, so a broken or weaker policy reaches the commit (CI's "
    "`twsrt check` still sees it). Rename the file, e.g. `policy/corp.srt.json`, and the "
    "config entry that names it.",
)

PROJECT_WIDENS_USER = Rule(
    "TWS225",
    "project-widens-user",
    Family.POLICY,
    Level.ERROR,
    Basis.WIDENS,
    "A project policy grants more than the user policy it is checked against.",
    "The agents load a project's files on top of the user's: Claude Code concatenates the "
    "permission and sandbox lists of every scope, DeepCode replaces a user list with the "
    "project's, Codex merges its config layers key by key. A project grant the user policy "
    "lacks (a bash allow, an allowedDomains entry, an allowWrite root, an allowRead that "
    "re-opens a user denyRead, an srt switch that routes traffic past the allowlist or loosens "
    "enforcement, such as httpProxyPort, allowAllUnixSockets or a lower "
    "mandatoryDenySearchDepth) therefore widens what the agent may do in that project. Paths "
    "are compared in one spelling per path (`~//.ssh`, `/proc/self/root/...` and, with a "
    "pinned home, `/home/user/.ssh` are `~/.ssh`), and through the host's symlinks. When the "
    "project's config compiles for an agent that replaces the user's lists (every agent but "
    "Claude Code), a user restriction the project "
    "leaves out is a widening too. The finding names the project rule and the user policy's "
    "file; narrow the project rule, or grant it in the user policy first (docs/project.md).",
)

NARROWING_UNCHECKED = Rule(
    "TWS226",
    "narrowing-unchecked",
    Family.POLICY,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A project policy is not checked against a user policy: no `[project] user_config`.",
    "A project policy may only narrow the user policy of the people who run the agent in it. "
    "`twsrt check` proves that when the project's twsrt.toml names the user's config "
    '(`[project] user_config = "~/.config/twsrt/config.toml"`, optionally `user_profile`). '
    "Without it nothing is compared: a checkout could grant any path, host or command and "
    "still check clean, so the check that could not be made is an error. Name the user's "
    "config, or, where no user policy exists to compare with (a project that is only ever "
    "used on its own), suppress the finding with a reason.",
)

USER_POLICY_UNREADABLE = Rule(
    "TWS227",
    "user-policy-unreadable",
    Family.POLICY,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "The user policy a project names cannot be read, so the project was not checked against it.",
    "`[project] user_config` (or `check --user-config FILE`) names a twsrt config that does "
    "not exist, is invalid, or whose sources cannot be read or validated. The finding is at "
    "the key and quotes the first problem; the project's grants were not compared with "
    "anything. In repo mode a user policy the key names lies inside the repository, its "
    "sources too (outside it: TWS005, nothing read); one outside is named on the command "
    "line. In CI, check out the dotfiles repository and name it with `--user-config` (the "
    "Action's `args`), or suppress the finding with a reason.",
)

FOLDED_CONFIG_LINK = Rule(
    "TWS240",
    "folded-config-link",
    Family.POLICY,
    Level.ERROR,
    Basis.WIDENS,
    "An agent's config directory on this host is one symlink into the repository (a folded "
    "stow link).",
    "`stow` without `--no-folding` links a whole directory that exists only in the package, so "
    "`~/.claude` (or `~/.codex`, ...) becomes one symlink into the repository. The link lives "
    "in the home directory, which is writable wherever an agent starts in `~` (its launch "
    "directory) or has it as a write root, and no deny can protect a symlink itself (a "
    "bind mount follows it): a sandboxed command unlinks it, the agent recreates an empty "
    "directory, and the next launch has no user settings and no sandbox (observed with Claude "
    "Code 2.1.332). Everything the agent writes for itself (logins, sessions, history) also "
    "lands in the repository. `twsrt check` looks at the config directories every registered "
    "agent reads under this host's home. Unfold it: `stow -D -d REPO -t ~ home`, then "
    "`stow --no-folding -d REPO -t ~ home` (real directories, one link per file; move the "
    "agent's own files from the repository back into the directory first).",
)

AGENT_STATE_IN_REPOSITORY = Rule(
    "TWS241",
    "agent-state-in-repository",
    Family.POLICY,
    Level.ERROR,
    Basis.WIDENS,
    "An agent's credential or state file lies inside the repository tree.",
    "Agents write logins, tokens, session transcripts, history and caches into their config "
    "directories (Codex's `auth.json`, Claude Code's `.credentials.json` and `projects/`, "
    "...). Inside the repository's home tree they are one `git add -A` away from a commit, and "
    "a pushed credential is a leaked one. They get there when a config directory is folded "
    "into the repository (TWS240) or was moved in whole. `twsrt check` looks, in the "
    "repository's home tree (where the targets mirror `~`), for every credential and state "
    "file the registered agents declare, and names each one without reading it. Move it back "
    "to the agent's directory under `~` (after `stow --no-folding`), keep the `.gitignore` "
    "that `twsrt init --repo` writes, and rotate any credential that was ever committed.",
)

SRT_SETTINGS_ELSEWHERE = Rule(
    "TWS242",
    "srt-settings-elsewhere",
    Family.POLICY,
    Level.WARNING,
    Basis.DROPS,
    "This host loads the repository's agent files, but plain `srt` reads another settings "
    "file than the policy.",
    "`srt CMD` without `--settings` reads `~/.srt-settings.json`; when that file is missing "
    "srt runs with its built-in defaults, which deny no read at all. On a host whose agents "
    "load this repository's files (a target's home location links into the repository), "
    "`twsrt check` compares `~/.srt-settings.json` with the policy's srt source. Link it: "
    "`twsrt init --repo` scaffolds `home/.srt-settings.json` as a symlink to "
    "`../policy/srt-settings.json`, which stow puts at `~/.srt-settings.json`; or run "
    "`srt --settings PATH` with the path the finding names. A policy composed from "
    "fragments (`[profiles]`) has no single file srt could read and is not checked.",
)

POLICY_UNPROTECTED = Rule(
    "TWS228",
    "policy-unprotected",
    Family.POLICY,
    Level.ERROR,
    Basis.WIDENS,
    "The policy repository cannot be protected: the config does not say where it is checked out.",
    "A command an agent runs may not change what the next launch runs with. In a repository "
    "the policy (its sources and fragments, twsrt.toml, `.pre-commit-config.yaml`, "
    "`.git/hooks` and the generated files) lies wherever the repository is checked out, which "
    "differs per machine and in CI, so the generated files can write-deny it only where the "
    "config names that place: with the checkout inside a write root (`~`, `~/dev` or the "
    "launch directory) a command could rewrite the policy and the next `twsrt generate -w` "
    "(the pre-commit hook) would compile the wider one. Set the top-level key "
    '`checkout = "~/dotfiles"` (`~/...` or absolute) to where the repository lies on the '
    "machines the agents run on; every compile then write-denies it as a tree.",
)

BROAD_WRITE_ROOT = Rule(
    "TWS229",
    "broad-write-root",
    Family.POLICY,
    Level.WARNING,
    Basis.DROPS,
    "A write root holds the home directory, the filesystem root or the policy itself.",
    "An allowWrite entry of `~`, `/` or an ancestor of the policy checkout or config lets "
    "commands write everything below it that is not denied. twsrt write-denies the protected "
    "set (the policy, the agents' own config, every denyRead path), but much else below such a "
    "root runs or loads outside the sandbox later: a directory on `PATH` (`~/.local/bin`), "
    "autostart and service units (`~/.config/autostart`, `~/.config/systemd/user`), shell and "
    "tool configuration nobody lists. The sandbox then enforces less than a policy that names "
    "the directories the work needs (`~/dev`, `/tmp`). Narrow the root, or suppress the "
    "finding with the reason.",
)

SUBSUMED_ENTRY = Rule(
    "TWS230",
    "subsumed-entry",
    Family.POLICY,
    Level.NOTE,
    Basis.INFO,
    "A deny entry lies inside a broader deny of the same list, which already covers it.",
    "`~/.ssh/id_ed25519` in denyRead beside `~/.ssh` adds nothing: every agent compiles the "
    "directory deny as the whole tree, new files included. The narrower entry is noise that "
    "hides real differences in review; remove it. Only a concrete directory of a deny list "
    "covers (not a glob, `~` or `/`, which some agent narrows or refuses, nor a grant, whose "
    "broader root an agent may skip); entries are compared as written (a `~/` path with `~/` "
    "paths, an absolute one with absolute ones).",
)

UNEXPANDED_VARIABLE_DENY = Rule(
    "TWS231",
    "unexpanded-variable-deny",
    Family.POLICY,
    Level.WARNING,
    Basis.DROPS,
    "A deny path holds `$HOME` or `${VAR}`, which no agent expands.",
    "srt and every agent read a path as written: `${HOME}/.ssh` names a directory literally "
    "called `${HOME}` below the directory the agent starts in, so the directory it means stays "
    "readable. Write `~/.ssh` (`~/` is the one expansion every agent makes) or the absolute "
    "path.",
)

UNEXPANDED_VARIABLE_GRANT = Rule(
    "TWS232",
    "unexpanded-variable-grant",
    Family.POLICY,
    Level.NOTE,
    Basis.STRICTER,
    "A grant (allowWrite, allowRead) holds `$HOME` or `${VAR}`, which no agent expands.",
    "srt and every agent read a path as written: an allowWrite of `${HOME}/dev` grants a "
    "directory literally called `${HOME}`, never the one it means, which stays read-only. "
    "Write `~/dev` or the absolute path.",
)

GLOB_MATCHES_NOTHING = Rule(
    "TWS233",
    "glob-matches-nothing",
    Family.POLICY,
    Level.WARNING,
    Basis.DROPS,
    "A deny glob can match no path: a `[...]` set admits no character.",
    "A set of reversed ranges such as `[z-a]` matches no character, so "
    "`~/.ssh/id_[z-a]*` denies nothing at all. Fix the set (`[a-z]`) or name the path.",
)

NARROW_ALLOW_GLOB = Rule(
    "TWS234",
    "narrow-allow-glob",
    Family.POLICY,
    Level.NOTE,
    Basis.STRICTER,
    "An allowRead glob is expanded once, when the sandbox starts.",
    "srt on Linux re-allows the files an allowRead glob matches when the sandbox starts "
    "(observed: `Expanded allowRead glob pattern`): a matching file created later in the "
    "session stays unreadable inside the denyRead region. Name the directory to re-allow all "
    "of it, or accept the stricter effect.",
)
