"""Findings and the rule catalog: one place defines every rule id twsrt can report."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from twsrt.locations import Location


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Basis(StrEnum):
    """Why a rule has its level: the level policy of docs/rules.md, one category per rule."""

    WIDENS = "widens"  # the agent may get more than the policy
    CANNOT_CHECK = "cannot-check"  # the policy or a file could not be checked or compiled
    DROPS = "drops"  # an agent enforces less than the policy says
    STRICTER = "stricter"  # an agent enforces more than the policy says
    INFO = "info"  # nothing is lost or gained; worth knowing

    @property
    def level(self) -> Level:
        return BASIS_LEVEL[self]


BASIS_LEVEL = {
    Basis.WIDENS: Level.ERROR,
    Basis.CANNOT_CHECK: Level.ERROR,
    Basis.DROPS: Level.WARNING,
    Basis.STRICTER: Level.NOTE,
    Basis.INFO: Level.NOTE,
}


@dataclass(frozen=True)
class Rule:
    """One catalog entry. Ids never change once released; names are for humans and configs.
    ``basis`` says why the rule has its ``level`` (a test keeps the two consistent)."""

    id: str
    name: str
    level: Level
    basis: Basis
    short: str
    help: str = ""

    @property
    def anchor(self) -> str:
        return f"{self.id.lower()}-{self.name}"

    @property
    def suppressible(self) -> bool:
        """Loading, parse, config, file-safety and schema errors (TWS0xx, TWS1xx) and a domain
        srt refuses mean the policy was not checked as written; no ``[[check.ignore]]`` may
        hide them."""
        return self.id[3] not in "01" and self.id not in UNSUPPRESSIBLE

    @property
    def security_severity(self) -> str:
        """GitHub code scanning's numeric severity, as the string SARIF properties carry."""
        return {Level.ERROR: "7.5", Level.WARNING: "5.0", Level.NOTE: "2.0"}[self.level]


UNSUPPRESSIBLE = ("TWS215",)  # beyond the TWS0xx and TWS1xx families

_RULES = [
    # Loading and parsing (TWS0xx)
    Rule(
        "TWS001",
        "config-invalid",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "The twsrt config file cannot be read or parsed.",
        "twsrt could not read or parse its config (twsrt.toml, .twsrt.toml, "
        "~/.config/twsrt/config.toml or the file named by -c/$TWSRT_CONFIG), or the config has a "
        "key the config schema does not know. Nothing can be checked or generated without it, so "
        "this is exit code 2; `twsrt check` still writes it into every report it was asked for "
        "(text, JSON, annotations, SARIF, JUnit), so CI shows it.",
    ),
    Rule(
        "TWS002",
        "source-missing",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A canonical source file does not exist.",
        "The srt settings or bash rules file named in [sources] does not exist or is a "
        "directory. Create it (`twsrt init`) or fix the path; relative paths resolve against the "
        "config file's directory.",
    ),
    Rule(
        "TWS003",
        "source-unparsable",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A canonical source file is not valid JSON.",
        "The source cannot be parsed as JSON (or UTF-8). The location is where the parser "
        "stopped; a trailing comma or a missing quote is the usual cause.",
    ),
    Rule(
        "TWS004",
        "target-unusable",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A target file cannot be read, parsed or written.",
        "A generated agent file is not valid JSON/TOML, has the wrong shape (for example "
        "`permissions` is not an object), is a directory or a dangling symlink, or cannot be "
        "written. twsrt refuses to guess and changes nothing; fix or remove the file by hand.",
    ),
    Rule(
        "TWS005",
        "path-outside-repository",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A source or target resolves outside the repository.",
        "When the config lives in a git repository (repo mode, as in CI on a pull request), "
        "every source and target, and every file twsrt reads beside a target (settings.local."
        "json, Codex profile files, the settings.json link), must resolve inside that "
        "repository after `..`, absolute paths and symlinks; the pinned home tree `home/` in "
        "the repository is inside. Anything else could make `check` print a file such as "
        "/proc/self/environ or ~/.aws/credentials into a report, or make `generate -w` "
        "overwrite a file such as ~/.bashrc, so twsrt neither reads nor writes it. A user "
        "config outside any repository (~/.config/twsrt/config.toml) may name absolute paths.",
    ),
    Rule(
        "TWS006",
        "target-collision",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "Two targets, or a target and the config or a source, are the same file.",
        "Every target must be its own file: two [targets] keys that resolve to one path "
        "(including a derived yolo file such as settings.yolo.json, or the settings.json link "
        "twsrt keeps beside the Claude Code files), or a target that is the config or a canonical "
        "source, would make one write overwrite the other (a policy file turned into a flags "
        "snippet). twsrt refuses before reading or writing any target; give each its own path.",
    ),
    Rule(
        "TWS008",
        "ignore-not-allowed",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A [[check.ignore]] entry names a rule that cannot be suppressed, or no known rule.",
        "Loading, parse, config and file-safety errors (every TWS0xx rule), schema errors "
        "(every TWS1xx rule) and TWS215 mean that the policy or its files could not be checked "
        "or written as they stand, so they cannot be suppressed; an entry naming one (or an id "
        "or name the catalog does not know) is reported at its `rule` and suppresses nothing. "
        "Fix the input instead, or remove the entry.",
    ),
    Rule(
        "TWS009",
        "target-changed",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A target changed on disk while `generate -w` was running.",
        'twsrt merges into the text it read; another program (an agent\'s "always allow", an '
        "editor) wrote the file before twsrt replaced it. Replacing it would lose that edit, so "
        "twsrt stops, puts back every file it had already replaced, and writes nothing. Run "
        "`twsrt generate -w` again.",
    ),
    Rule(
        "TWS010",
        "settings-link-foreign",
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
    ),
    Rule(
        "TWS012",
        "drift-unpinned-home",
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
    ),
    Rule(
        "TWS013",
        "config-not-found",
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
    ),
    # Schema (TWS1xx)
    Rule(
        "TWS101",
        "schema-unknown-key",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A key the schema does not know.",
        "The sandbox runtime silently drops keys it does not know, so a typo such as "
        "`denyRaed` would protect nothing. twsrt treats every unknown key as an error and points "
        "at the key itself, with the closest known key as a hint.",
    ),
    Rule(
        "TWS102",
        "schema-violation",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A value does not match the schema.",
        "A value has the wrong type (a string where a list belongs, a null section, a "
        "non-boolean `enabled`), is empty, or has a form the agents cannot use (`~user/` paths). "
        "`twsrt schema srt|bash|config` prints the schema for your editor.",
    ),
    Rule(
        "TWS103",
        "duplicate-json-key",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "An object names the same key twice.",
        "JSON parsers keep only the last of two equal keys, so the first one is silently lost. "
        "Merge the two entries.",
    ),
    # Policy (TWS2xx)
    Rule(
        "TWS201",
        "disabled-sandbox",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "The canonical sandbox is disabled; an agent that needs it refuses to generate.",
        '`"enabled": false` in the srt settings turns the policy\'s sandbox off. Claude Code gets '
        "`sandbox.enabled = false`; Codex generation refuses rather than pretend to enforce a "
        "disabled policy.",
    ),
    Rule(
        "TWS202",
        "codex-legacy-sandbox",
        Level.ERROR,
        Basis.WIDENS,
        "A legacy Codex sandbox setting would silently deactivate the twsrt profile.",
        "When `sandbox_mode` or `sandbox_workspace_write` appears in any loaded Codex config "
        "layer, Codex ignores `default_permissions` without an error. Remove the legacy keys.",
    ),
    Rule(
        "TWS203",
        "contradictory-commands",
        Level.NOTE,
        Basis.STRICTER,
        "The same command is in two bash rule lists.",
        "A command in both deny and ask (or allow and deny, or allow and ask) is ambiguous: "
        "agents apply the strictest rule, so the weaker entry never takes effect. Keep one.",
    ),
    Rule(
        "TWS204",
        "write-root-in-denied-read",
        Level.NOTE,
        Basis.INFO,
        "A write root lies inside a read-denied path.",
        "An allowWrite path inside a denyRead path grants writes where reads are denied; agents "
        "differ in which wins (Codex skips the root). Move the write root or narrow the deny.",
    ),
    Rule(
        "TWS205",
        "write-and-deny-write",
        Level.NOTE,
        Basis.STRICTER,
        "A path is both in allowWrite and denyWrite.",
        "denyWrite wins, so the allowWrite entry grants nothing. Remove one of them.",
    ),
    Rule(
        "TWS206",
        "wildcard-without-apex",
        Level.NOTE,
        Basis.INFO,
        "`*.example.com` is listed without `example.com` (or the reverse).",
        "`*.example.com` matches subdomains only, never `example.com` itself. When the sibling "
        "of the same list is clearly intended (for example a `*.github.com` allow beside "
        "`github.com` elsewhere), list both forms.",
    ),
    Rule(
        "TWS207",
        "launch-relative-pattern",
        Level.NOTE,
        Basis.INFO,
        "A relative `**/` pattern is anchored at the directory an agent starts in.",
        "Relative paths in the srt settings resolve against the working directory of the "
        "sandboxed process, so `**/.env` protects only files below wherever the agent was "
        "launched. Use `~/` or absolute paths for files that must be protected everywhere.",
    ),
    Rule(
        "TWS208",
        "duplicate-entry",
        Level.NOTE,
        Basis.INFO,
        "The same entry appears twice in a list.",
        "Duplicates are emitted once; the second entry is noise and hides real differences in "
        "review.",
    ),
    Rule(
        "TWS209",
        "sandbox-disabled-lint",
        Level.WARNING,
        Basis.DROPS,
        "The canonical sandbox is switched off.",
        '`"enabled": false` means commands run without an OS sandbox wherever the agent '
        "honours it. Keep it on unless you know why.",
    ),
    Rule(
        "TWS210",
        "no-network",
        Level.NOTE,
        Basis.INFO,
        "allowedDomains is empty: no network access at all.",
        "An empty allow list blocks every host, which is safe but often surprising (package "
        "installs fail). Add the registries you need.",
    ),
    Rule(
        "TWS211",
        "unpinned-home",
        Level.NOTE,
        Basis.INFO,
        "An output depends on this machine's home directory because no home is pinned.",
        "Some agents need absolute paths, so twsrt expands `~` with a home directory. Set "
        '`home = "/home/you"` at the top of twsrt.toml so that CI and every machine generate '
        "the same bytes.",
    ),
    Rule(
        "TWS212",
        "danger-full-access",
        Level.WARNING,
        Basis.DROPS,
        "The sandbox mode is danger-full-access: agents run commands without an OS sandbox.",
        '`[sandbox] mode = "danger-full-access"` (or `--sandbox danger-full-access`) turns '
        "every agent's sandbox off, so the policy's filesystem and network rules are enforced by "
        "nobody. The deny rules an agent applies itself stay in force: Claude Code's permission "
        "rules, Codex's exec-policy rules, Copilot's `--deny-tool`/`--deny-url` flags and "
        "DeepCode's permission rules. It is reported on every run so that the choice stays "
        "visible; suppress it with a reason in `[[check.ignore]]` if it is deliberate.",
    ),
    Rule(
        "TWS214",
        "agent-sandbox-off",
        Level.ERROR,
        Basis.WIDENS,
        "An agent's sandbox is off while the policy's is on.",
        "The policy's sandbox is on (srt runs every command inside it), but the agent's ends up "
        "off: a `[sandbox_overrides.*]` table or a user key such as `sandbox.enabled: false` in "
        "Claude's settings.local.json, or a `sandbox.enabledPlatforms` list without the "
        "platform, turns it off, and the agent then enforces none of the filesystem and network "
        'rules. Remove the key; choose `[sandbox] mode = "danger-full-access"` in twsrt.toml if '
        "running without a sandbox is the intent.",
    ),
    Rule(
        "TWS215",
        "refused-domain",
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
    ),
    Rule(
        "TWS220",
        "symlinked-policy-path",
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
    ),
    Rule(
        "TWS221",
        "write-root-not-directory",
        Level.NOTE,
        Basis.STRICTER,
        "An allowWrite path is a file on this host; Codex cannot start with it as a write root.",
        "Codex mounts protected entries (`.git`, `.aws`, ...) inside every writable root, so a "
        'root that is a regular file makes every `codex sandbox` start fail with "Not a '
        'directory" (observed with Codex 0.171.0). The generated files cannot know what a path '
        "is on the machine that uses them, so `twsrt check` looks at this machine. Grant a "
        "directory that holds only what may be written, or leave the file out of allowWrite.",
    ),
    # Drift (TWS3xx)
    Rule(
        "TWS301",
        "target-missing",
        Level.ERROR,
        Basis.WIDENS,
        "A configured target file does not exist.",
        "The policy names a target that has not been generated yet. Run `twsrt generate -w`.",
    ),
    Rule(
        "TWS302",
        "drift-unapplied",
        Level.ERROR,
        Basis.WIDENS,
        "The policy changed but the target was not regenerated.",
        "Entries that the current policy generates are missing from the target file. Run "
        "`twsrt generate -w` and commit the result.",
    ),
    Rule(
        "TWS303",
        "drift-out-of-band",
        Level.ERROR,
        Basis.WIDENS,
        "A managed section of a target was edited by hand.",
        "The target holds managed entries that the policy does not generate. Edit the canonical "
        "sources instead and run `twsrt generate -w`, which removes them.",
    ),
    Rule(
        "TWS304",
        "drift-changed",
        Level.ERROR,
        Basis.WIDENS,
        "A managed section of a target differs from what the policy generates.",
        "The managed content differs in order or form. Run `twsrt generate -w`.",
    ),
    Rule(
        "TWS305",
        "broken-symlink",
        Level.ERROR,
        Basis.WIDENS,
        "settings.json is a broken symlink.",
        "Claude Code reads `settings.json`; when it points at a file that does not exist, the "
        "agent runs without the generated permissions. Run `twsrt generate claude -w`.",
    ),
    # Translation (TWS4xx): lossy or refused mappings, located at the source rule
    Rule(
        "TWS401",
        "lossy-relative-write-root",
        Level.NOTE,
        Basis.STRICTER,
        "A relative allowWrite path is not passed to an agent that would anchor it elsewhere.",
        "Claude Code anchors relative sandbox paths at ~/.claude for user settings, so a relative"
        " write root would grant a directory under ~/.claude. twsrt leaves it out; Claude's "
        "sandbox already lets commands write the working directory.",
    ),
    Rule(
        "TWS402",
        "lossy-relative-sandbox-path",
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
    ),
    Rule(
        "TWS403",
        "lossy-port-domain",
        Level.NOTE,
        Basis.STRICTER,
        "A domain with a :port cannot be expressed as a per-port agent rule.",
        "Agent rules name hosts, not ports. An allowed `host:port` is left out (narrower); a "
        "denied `host:80/443` denies the host on every port (stricter); a denied entry for "
        "another port is left to the sandbox.",
    ),
    Rule(
        "TWS404",
        "lossy-literal-glob",
        Level.WARNING,
        Basis.DROPS,
        "A literal path containing glob characters cannot be expressed exactly.",
        'A `{"path": ..., "literal": true}` deny whose path contains `*?[]{}` is read as a '
        "pattern by the agent, which may not match the literal path, so the file may stay "
        "reachable. Protect a parent directory without glob characters. (Such a grant is left "
        "out instead: TWS443.)",
    ),
    Rule(
        "TWS405",
        "lossy-unsupported-key",
        Level.WARNING,
        Basis.DROPS,
        "An SRT setting that this agent cannot take is not compiled.",
        "The srt setting has no equivalent in this agent's file, or taking it would widen access "
        "(local binding, external proxies, all Unix sockets, weaker isolation). It is not "
        "compiled; run the agent under srt to enforce it.",
    ),
    Rule(
        "TWS407",
        "lossy-stricter-glob",
        Level.NOTE,
        Basis.STRICTER,
        "A deny glob is enforced more strictly than asked because the agent cannot express it.",
        "The agent can only deny a glob outright, so a write-protect glob also blocks reads. This"
        " is stricter than the policy, never weaker.",
    ),
    Rule(
        "TWS408",
        "lossy-write-root",
        Level.NOTE,
        Basis.STRICTER,
        "A write root cannot be granted as asked and is skipped.",
        "The write root is `~`, `/`, a wildcard, a relative path that climbs above the launch "
        "directory with `..`, or lies inside a denied path; the agent cannot grant it exactly, "
        "so it is skipped and the deny wins.",
    ),
    Rule(
        "TWS409",
        "lossy-bash-rule",
        Level.NOTE,
        Basis.STRICTER,
        "A bash allow or ask rule is not compiled for an agent where it would not help.",
        "Codex's rules only decide about commands that ask to leave its sandbox, and it asks "
        "the user before every such command. A bash allow rule would let the command leave "
        "the sandbox without asking (so leaving it out keeps Codex stricter), and an ask rule "
        "restates that default. Inside the sandbox no rule is consulted, for deny rules too; "
        "the sandbox's paths and hosts bound what such a command can do.",
    ),
    Rule(
        "TWS410",
        "lossy-unix-socket",
        Level.NOTE,
        Basis.STRICTER,
        "A Unix socket entry is not an exact socket path and is skipped.",
        "Only exact absolute socket paths can be allowed; a directory or a pattern would open "
        "more sockets than the policy names.",
    ),
    Rule(
        "TWS411",
        "unexpressible-path",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A deny path cannot be written in the agent's format without dropping it.",
        "The deny cannot be written in the agent's format (a malformed `/~/` path, the whole home"
        " directory, a glob that would scan the whole filesystem, or a `..` that climbs above the "
        "launch or home directory, which Codex refuses to load). twsrt refuses instead of "
        "dropping it. `.` and `..` components that have one meaning are folded for every agent "
        "(`~/a/../b` is `~/b`).",
    ),
    Rule(
        "TWS412",
        "lossy-glob-snapshot",
        Level.WARNING,
        Basis.DROPS,
        "The agent expands a deny glob once at start; files created later stay writable.",
        "Codex expands a deny glob such as `**/.env` or `~/keys/*.pem` into the files that match "
        "when its sandbox starts. A matching file created, or renamed into place, later in the "
        "session is not covered: it stays writable (and readable, for denyRead) although srt "
        "would refuse it (observed with Codex 0.171.0). A deny that names a directory (`P`, "
        "`P/`, `P/**`) has no such gap: Codex denies the directory itself, so nothing can be "
        "created, renamed or removed in it. Name directories where you can.",
    ),
    Rule(
        "TWS406",
        "unexpressible-command",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A bash rule cannot be written in the agent's rule syntax.",
        "The bash rule contains a character the agent's rule syntax cannot hold (for Claude a `)`"
        " inside `Bash(...)`) or cannot be split into words. twsrt refuses rather than drop a "
        "deny.",
    ),
    Rule(
        "TWS413",
        "lossy-readonly-workspace",
        Level.WARNING,
        Basis.DROPS,
        "Under read-only, the agent's sandbox still lets commands write the working directory.",
        "Claude Code's sandbox always makes the directory it starts in writable and its user "
        "settings cannot take that away, so read-only is enforced for the file-editing tools "
        "(`Edit` is denied) and for every other path, but a sandboxed shell command can still "
        "write inside the workspace. Run Claude Code under srt without the workspace in "
        "allowWrite when that matters.",
    ),
    Rule(
        "TWS414",
        "uncompiled-key-note",
        Level.NOTE,
        Basis.STRICTER,
        "An srt setting that grants or only configures srt itself is not compiled for an agent.",
        "The setting would grant more (local binding, Unix sockets, weaker isolation) or only "
        "configures the sandbox runtime's own machinery (binary paths, proxies, TLS "
        "termination, Windows), so the agent has nothing to take, or taking it would widen "
        "access. Leaving it out is stricter than the policy, or changes nothing; run the agent "
        "under srt when it needs the grant. A restricting setting the agent cannot take is "
        "TWS405 instead.",
    ),
    Rule(
        "TWS415",
        "lossy-credential-entry",
        Level.NOTE,
        Basis.STRICTER,
        "A credential entry is rewritten into a form Claude Code accepts.",
        "Claude Code refuses the whole settings file for some `credentials` entries srt takes: "
        "`extract` or a fail-closed `onExtractNoMatch` beside `decode` on a variable (srt's "
        "decode path never reads them, so they are left out), and `mask` on a directory (it is "
        "denied instead, which is stricter).",
    ),
    Rule(
        "TWS416",
        "relative-sandbox-path-note",
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
    ),
    Rule(
        "TWS417",
        "lossy-credential-mask",
        Level.NOTE,
        Basis.STRICTER,
        "A credential file that srt masks is denied outright by an agent that cannot mask.",
        "srt can hand a command a masked copy of a credential file (`credentials.files` with "
        '`mode: "mask"`) and put the real secret back into requests to the allowed hosts. '
        "Codex has no such masking, and leaving the file readable would give commands the real "
        'secret, so twsrt denies the file (like `mode: "deny"`): stricter than the policy, '
        "never weaker. A tool that needs the credential fails under Codex; run it under srt.",
    ),
    # Copilot CLI (TWS420-TWS429)
    Rule(
        "TWS418",
        "codex-mixed-spelling",
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
    ),
    Rule(
        "TWS420",
        "lossy-ask-as-deny",
        Level.NOTE,
        Basis.STRICTER,
        "A bash ask rule is enforced as a deny because the agent has no ask tier.",
        "Copilot CLI can only allow or deny a tool pattern, so an ask rule becomes "
        "`--deny-tool 'shell(cmd)'`: stricter than the policy, never weaker. Yolo mode skips ask "
        "rules, as it does for every agent.",
    ),
    Rule(
        "TWS421",
        "lossy-relative-path",
        Level.WARNING,
        Basis.DROPS,
        "A relative path cannot be given to an agent that takes only absolute paths.",
        "A relative srt path is anchored at the directory the sandboxed process starts in, which "
        "the agent's settings cannot know. A relative deny is left out of the agent's sandbox, "
        "so only an srt wrapper enforces it. Use `~/` or absolute paths for anything that must "
        "be enforced by the agent's own sandbox. (A relative grant is left out instead: "
        "TWS441.)",
    ),
    Rule(
        "TWS422",
        "lossy-glob-path",
        Level.WARNING,
        Basis.DROPS,
        "A glob path cannot be expressed by an agent that takes no wildcards.",
        "The agent's sandbox names whole directory trees only. A glob deny is normally "
        "replaced by its concrete parent directory (TWS407); when that parent is `/` or the "
        "whole home directory, which would lock the agent out, it is left out and reported "
        "here. (A glob grant is left out instead: TWS442.)",
    ),
    Rule(
        "TWS423",
        "unexpressible-domain",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A domain cannot be written as the agent's URL or host rule.",
        "The agent takes a hostname, an IP address, `*.example.com` or `*`, optionally with "
        "`:port`. Anything else (a comma, a path, a leading `-`, a port out of range) would be "
        "rejected or misread by the agent, so twsrt refuses rather than drop a rule.",
    ),
]

# DeepCode (TWS430-TWS439)
_RULES += [
    Rule(
        "TWS430",
        "deepcode-claude-fallback",
        Level.NOTE,
        Basis.INFO,
        "Creating ~/.deepcode/settings.json ends DeepCode's fallback to ~/.claude/settings.json.",
        "Without a user settings file DeepCode reads `~/.claude/settings.json` in its place. The "
        "first `twsrt generate -w` creates the DeepCode file, and from then on nothing from the "
        "Claude Code file (hooks, MCP servers, model settings) reaches DeepCode. Copy what you "
        "still need into the DeepCode file.",
    ),
    Rule(
        "TWS431",
        "deepcode-array-layers",
        Level.NOTE,
        Basis.INFO,
        "DeepCode's project settings replace the user's lists instead of adding to them.",
        "DeepCode merges its settings layers key by key, but a list in a project "
        "(`.deepcode/settings.json`) or local layer replaces the user's list whole: a project "
        "that sets `permissions.deny` or `sandbox.filesystem.denyRead` drops every deny twsrt "
        "wrote. Keep security lists out of project layers, or repeat them there.",
    ),
    Rule(
        "TWS432",
        "lossy-linux-deny",
        Level.WARNING,
        Basis.DROPS,
        "DeepCode's Linux sandbox mounts a denied path and does not apply the deny.",
        "DeepCode passes `sandbox.filesystem.denyRead`/`denyWrite` to its macOS Seatbelt profile "
        "only. Its bubblewrap sandbox on Linux does not mount the home directory at all, so most "
        "home paths are unreadable there anyway, but it applies no deny inside what it does "
        "mount: started in the home directory (which becomes the workspace), or with an "
        "allowRead/allowWrite root above a denied path, DeepCode lets commands read `~/.aws` "
        "(observed by the real-sandbox tests). This finding is for a deny that overlaps what "
        "the sandbox mounts: the system directories (`/usr`, `/etc`, ... for denyRead), an "
        "allowRead or allowWrite root (only allowWrite for denyWrite). A deny outside every "
        "mount is TWS444 instead. twsrt writes the entry; on Linux run DeepCode under srt to "
        "enforce it, and never start it in your home directory.",
    ),
    Rule(
        "TWS433",
        "lossy-denied-domains",
        Level.WARNING,
        Basis.DROPS,
        "DeepCode does not enforce a deniedDomains entry that an allowed pattern admits.",
        "DeepCode declares `sandbox.network.deniedDomains` but neither its macOS nor its Linux "
        "sandbox reads it; only the allowedDomains allow-list (Linux) limits the network. A "
        "denied host inside an allowed pattern (`evil.example.com` denied, `*.example.com` "
        "allowed) is therefore reachable. twsrt writes the list so the intent stays visible; "
        "run DeepCode under srt to enforce it. A denied entry that no allowed pattern admits "
        "loses nothing on Linux (TWS440).",
    ),
    Rule(
        "TWS434",
        "lossy-macos-network",
        Level.WARNING,
        Basis.DROPS,
        "DeepCode on macOS allows every host when allowedDomains is not empty.",
        "DeepCode filters domains on Linux only (a DNS allow-list). On macOS a non-empty "
        "`allowedDomains` lets sandboxed commands reach every host; only an empty list cuts "
        "the network off. On macOS run DeepCode under srt to keep the allow-list.",
    ),
]

# The note forms of rules whose loss depends on the policy (TWS440-TWS445 allocated)
_RULES += [
    Rule(
        "TWS440",
        "deepcode-denied-domains-blocked",
        Level.NOTE,
        Basis.INFO,
        "DeepCode does not enforce a deniedDomains entry, but its allow-list blocks it.",
        "DeepCode ignores `sandbox.network.deniedDomains`, but no allowedDomains entry admits "
        "this denied host, so DeepCode's Linux allow-list blocks it all the same: nothing is "
        "lost on Linux. (On macOS DeepCode does not filter hosts at all, TWS434; a denied host "
        "inside an allowed pattern is TWS433.)",
    ),
    Rule(
        "TWS441",
        "relative-grant-left-out",
        Level.NOTE,
        Basis.STRICTER,
        "A relative grant is left out for an agent that takes only absolute paths.",
        "A relative srt path is anchored at the directory the sandboxed process starts in, which "
        "the agent's settings cannot know, so a relative allowWrite or allowRead is not granted: "
        "stricter than the policy, never weaker. Write it with `~/` or an absolute path if the "
        "agent should grant it.",
    ),
    Rule(
        "TWS442",
        "glob-grant-left-out",
        Level.NOTE,
        Basis.STRICTER,
        "A glob grant is left out for an agent that takes no wildcards.",
        "The agent's sandbox names whole directory trees only, and any directory that holds the "
        "glob's matches would grant more, so the grant is left out: stricter than the policy, "
        "never weaker. Name the directories to grant.",
    ),
    Rule(
        "TWS443",
        "literal-glob-grant-left-out",
        Level.NOTE,
        Basis.STRICTER,
        "A literal grant whose path contains glob characters is left out.",
        'A `{"path": ..., "literal": true}` grant whose path contains `*?[]{}` would be read as '
        "a pattern by the agent and grant more than the literal path, so it is left out: "
        "stricter than the policy, never weaker.",
    ),
    Rule(
        "TWS444",
        "deepcode-linux-deny-unmounted",
        Level.NOTE,
        Basis.INFO,
        "DeepCode's Linux sandbox ignores a deny, but mounts nothing that holds the path.",
        "DeepCode's bubblewrap sandbox applies no denyRead or denyWrite, but it mounts only the "
        "system directories, the allowRead/allowWrite roots and the directory it starts in. A "
        "denied path outside all of them (`~/.aws` beside a workspace `~/proj`) is not in the "
        "sandbox at all, and a denyWrite path outside every writable mount (`/etc`, mounted "
        "read-only) cannot be written, so commands cannot reach it: nothing is lost as long as "
        "DeepCode is "
        "never started in a directory that holds the path (such as your home directory). A "
        "deny that overlaps a mount is TWS432.",
    ),
]

# Engine gaps found by running the sandboxes (`twsrt test`, TWS5xx)
_RULES += [
    Rule(
        "TWS501",
        "srt-linux-write-glob",
        Level.WARNING,
        Basis.DROPS,
        "srt on Linux skips glob patterns in allowWrite and denyWrite.",
        "On Linux the sandbox runtime (0.0.83) builds write access from bind mounts, which take "
        "concrete paths only: a glob in `denyWrite` (such as `**/.env`) is dropped, so matching "
        "files inside an allowWrite root stay writable, and a glob in `allowWrite` grants "
        "nothing. A trailing `/**` is not such a glob: srt strips it and enforces the "
        "directory (`~/proj/secrets/**` is protected). `twsrt test` shows both as a GAP on the "
        "srt engine. Claude Code's sandbox is "
        "built on this runtime, so expect the same there (twsrt does not probe Claude). Name "
        "the files or directories to protect instead, or keep them out of every allowWrite "
        "root.",
    ),
    Rule(
        "TWS502",
        "srt-linux-unix-sockets",
        Level.NOTE,
        Basis.STRICTER,
        "srt on Linux ignores allowUnixSockets and blocks every Unix socket.",
        "seccomp cannot filter Unix sockets by path, so on Linux the sandbox runtime blocks "
        "creating any Unix socket and ignores the `allowUnixSockets` list; only "
        "`allowAllUnixSockets: true` opens them (all of them). Stricter than the policy, never "
        "weaker: a tool that needs the socket (a Docker or SSH agent socket) fails inside the "
        "sandbox.",
    ),
    Rule(
        "TWS503",
        "codex-temp-writable",
        Level.ERROR,
        Basis.WIDENS,
        "Codex lets sandboxed commands write /tmp and $TMPDIR whatever the policy says.",
        "Codex's `:workspace` base profile makes `/tmp` and the temporary directory writable "
        "besides the workspace, although the canonical policy grants writes only to its "
        "allowWrite roots. Found by the `write-tmp` probe of `twsrt test` (Codex 0.171.0). The "
        "profile twsrt generates extends `:read-only` and names each write root, so it no "
        "longer has this gap; `twsrt test` still reports it for a profile on disk that extends "
        "`:workspace` (an old or hand-edited one). Regenerate the Codex config.",
    ),
    Rule(
        "TWS504",
        "codex-no-allow-read",
        Level.NOTE,
        Basis.STRICTER,
        "allowRead is not compiled for Codex, so a re-allowed path stays denied.",
        "`filesystem.allowRead` re-opens reads inside a denyRead region in srt. The Codex "
        "profile has no such exception, so the path stays unreadable under Codex: stricter "
        "than the policy, never weaker. `twsrt test` shows it as a GAP on the allow-read probe.",
    ),
    Rule(
        "TWS505",
        "codex-linux-unix-sockets",
        Level.NOTE,
        Basis.STRICTER,
        "Codex on Linux blocks Unix sockets that the policy allows.",
        "Codex's `network.unix_sockets` allow list is applied on macOS; on Linux its sandbox "
        "gives commands no Unix sockets, so a socket in `allowUnixSockets` cannot be reached "
        "under Codex. Stricter than the policy, never weaker.",
    ),
]

# Effective configuration (TWS6xx): a user-owned key or another config layer that the agent
# loads grants more than the policy. Reported at the key's own line; twsrt never edits it.
_RULES += [
    Rule(
        "TWS601",
        "user-unsandboxed-command",
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
    ),
    Rule(
        "TWS602",
        "user-allow-rule",
        Level.ERROR,
        Basis.WIDENS,
        "A user allow entry reaches what the policy denies.",
        "An allow entry that the agent honours over the policy's deny: `sandbox.filesystem."
        "allowRead` in a Claude settings layer re-opens reads inside a denyRead region (srt "
        "lets allowRead win). Remove the entry; if the policy really should allow the path, "
        "narrow `filesystem.denyRead` or add `filesystem.allowRead` in the srt settings and run "
        "`twsrt generate -w`.",
    ),
    Rule(
        "TWS603",
        "user-skips-approval",
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
    ),
    Rule(
        "TWS604",
        "user-write-root",
        Level.ERROR,
        Basis.WIDENS,
        "A user key makes a directory writable that the policy does not.",
        "Claude Code and DeepCode add `permissions.additionalDirectories` to the sandbox's "
        "write roots; Claude also adds the paths of `Edit(...)` allow rules and the "
        "`sandbox.filesystem.allowWrite` entries of every settings layer. A directory outside "
        "the policy's `filesystem.allowWrite` roots becomes writable for sandboxed commands. "
        "Add the directory to `filesystem.allowWrite` in the srt settings (and run `twsrt "
        "generate -w`), or remove the entry.",
    ),
    Rule(
        "TWS605",
        "user-network-grant",
        Level.ERROR,
        Basis.WIDENS,
        "A user key lets the agent reach a host outside the policy's allowlist.",
        "Claude Code merges `WebFetch(domain:...)` allow rules and the "
        "`sandbox.network.allowedDomains` of every settings layer into its sandbox's allowed "
        "hosts. A host that the policy's `network.allowedDomains` does not list becomes "
        "reachable. Add it to `network.allowedDomains` in the srt settings, or remove the entry.",
    ),
    Rule(
        "TWS606",
        "user-sandbox-grant",
        Level.ERROR,
        Basis.WIDENS,
        "A user sandbox switch grants what the policy does not.",
        "A switch such as `allowLocalBinding`, `allowAllUnixSockets`, `allowUnixSockets`, "
        "`enableWeakerNetworkIsolation`, `enableWeakerNestedSandbox`, `allowAppleEvents`, "
        "`allowNestedUserNamespaces`, `filesystem.disabled` or a proxy port in a settings layer "
        "twsrt does not own (Claude's settings.local.json), or Copilot's "
        "`userPolicy.seatbelt.keychainAccess`, opens the sandbox wider than the srt settings. "
        "Set it in the srt settings if the policy should grant it, otherwise remove it.",
    ),
    Rule(
        "TWS607",
        "codex-other-permissions",
        Level.ERROR,
        Basis.WIDENS,
        "A Codex profile file selects or redefines a permissions profile that is not twsrt's.",
        "`codex --profile NAME` loads `NAME.config.toml` beside config.toml; a "
        "`default_permissions` there that names another profile (or a built-in such as "
        "`:danger-full-access`), or a `[permissions.twsrt]` table that changes the generated "
        "one, replaces the policy for every run with that profile (observed with Codex "
        "0.171.0: a write into a denied directory succeeds). Remove the key; express the need "
        "in the srt settings, or choose the sandbox mode with `[sandbox] mode` in twsrt.toml.",
    ),
    Rule(
        "TWS608",
        "effective-layer-unreadable",
        Level.ERROR,
        Basis.CANNOT_CHECK,
        "A config layer the agent loads cannot be read, so its keys could not be checked.",
        "twsrt reads every file the agent loads that it can see (settings.local.json beside "
        "Claude's settings, Codex profile files) to find user keys that undo the policy. This "
        "one is not valid JSON/TOML or cannot be read; the agent may refuse it or read it "
        "differently. Fix the file.",
    ),
    Rule(
        "TWS609",
        "user-allow-shadowed",
        Level.NOTE,
        Basis.INFO,
        "A user allow entry names what the policy denies or asks; the agent's precedence keeps "
        "the policy.",
        "Claude Code and DeepCode evaluate deny, then ask, then allow, so an allow entry such as "
        "`Bash(curl *)` beside the policy's `curl` deny, or `Read(~/.ssh/**)` beside a "
        "denyRead, changes nothing while twsrt's deny or ask rule is there. It is still a "
        "contradiction that undoes the policy the day the deny goes: remove the allow entry, "
        "or change the policy if the command should be allowed.",
    ),
]

CATALOG: dict[str, Rule] = {rule.id: rule for rule in _RULES}
_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in _RULES}


def rule_by_name(name: str) -> Rule:
    return _BY_NAME[name]


@dataclass(frozen=True)
class Finding:
    rule_id: str
    message: str
    location: Location
    level: Level = Level.ERROR
    agent: str = ""
    related: tuple[Location, ...] = field(default=())
    diff: str = field(default="", compare=False)  # unified diff, for drift findings

    @property
    def rule(self) -> Rule:
        return CATALOG[self.rule_id]

    @property
    def title(self) -> str:
        """The first sentence of the message: the alert title in SARIF and GitHub."""
        head, dot, _ = self.message.partition(". ")
        return head + ("." if dot else "")

    @property
    def fingerprint(self) -> str:
        """Stable across runs and line moves: rule, file, pointer, agent and message."""
        import hashlib

        text = "\0".join(
            (self.rule_id, self.location.path, self.location.pointer, self.agent, self.message)
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def render(self) -> str:
        """``path:line:col: level[rule-id] message`` (plus the pointer and agent when known)."""
        where = str(self.location)
        extra = []
        if self.location.pointer:
            extra.append(f"at {self.location.pointer}")
        if self.agent:
            extra.append(f"agent {self.agent}")
        tail = f" ({', '.join(extra)})" if extra else ""
        return f"{where}: {self.level.value}[{self.rule_id}] {self.message}{tail}"


LEVEL_ORDER = {Level.NOTE: 0, Level.WARNING: 1, Level.ERROR: 2}


def finding(
    name: str,
    message: str,
    location: Location,
    *,
    agent: str = "",
    related: tuple[Location, ...] = (),
    diff: str = "",
) -> Finding:
    """Build a finding for the catalog rule called ``name`` at its default level."""
    rule = rule_by_name(name)
    return Finding(rule.id, message, location, rule.level, agent, related, diff)


class TwsrtError(Exception):
    """Bad input or environment: reported as findings, exit 2, nothing written."""

    def __init__(self, findings: list[Finding] | Finding) -> None:
        self.findings = findings if isinstance(findings, list) else [findings]
        super().__init__("\n".join(f.render() for f in self.findings))


def fail(name: str, message: str, location: Location) -> TwsrtError:
    return TwsrtError(finding(name, message, location))
