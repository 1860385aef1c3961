"""Translation rules (TWS4xx): lossy or refused mappings, located at the source rule."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule
from twsrt.rules.scoped import *  # noqa: F403 -- the project and managed files' rules

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

LOSSY_PORT_DOMAIN = Rule(
    "TWS403",
    "lossy-port-domain",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A domain with a :port cannot be expressed as a per-port agent rule.",
    "Agent rules name hosts, not ports. An allowed `host:port` is left out (narrower); a "
    "denied `host:80/443` denies the host on every port (stricter); a denied entry for "
    "another port is left to the sandbox.",
)

LOSSY_LITERAL_GLOB = Rule(
    "TWS404",
    "lossy-literal-glob",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A literal path containing glob characters cannot be expressed exactly.",
    'A `{"path": ..., "literal": true}` deny whose path contains `*?[]{}` is read as a '
    "pattern by the agent, which may not match the literal path, so the file may stay "
    "reachable. Protect a parent directory without glob characters. (Such a grant is left "
    "out instead: TWS443.)",
)

LOSSY_UNSUPPORTED_KEY = Rule(
    "TWS405",
    "lossy-unsupported-key",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "An SRT setting that this agent cannot take is not compiled.",
    "The srt setting has no equivalent in this agent's file, or taking it would widen access "
    "(local binding, external proxies, all Unix sockets, weaker isolation). It is not "
    "compiled; run the agent under srt to enforce it.",
)

LOSSY_STRICTER_GLOB = Rule(
    "TWS407",
    "lossy-stricter-glob",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A deny glob is enforced more strictly than asked because the agent cannot express it.",
    "The agent can only deny a glob outright, so a write-protect glob also blocks reads. This"
    " is stricter than the policy, never weaker.",
)

LOSSY_WRITE_ROOT = Rule(
    "TWS408",
    "lossy-write-root",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A write root cannot be granted as asked and is skipped.",
    "The write root is `~`, `/`, a wildcard, a relative path that climbs above the launch "
    "directory with `..`, or lies inside a denied path; the agent cannot grant it exactly, "
    "so it is skipped and the deny wins.",
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

LOSSY_UNIX_SOCKET = Rule(
    "TWS410",
    "lossy-unix-socket",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A Unix socket entry is not an exact socket path and is skipped.",
    "Only exact absolute socket paths can be allowed; a directory or a pattern would open "
    "more sockets than the policy names.",
)

UNEXPRESSIBLE_PATH = Rule(
    "TWS411",
    "unexpressible-path",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A deny path cannot be written in the agent's format without dropping it.",
    "The deny cannot be written in the agent's format (a malformed `/~/` path, the whole home"
    " directory, a glob that would scan the whole filesystem, or a `..` that climbs above the "
    "launch or home directory, which Codex refuses to load). twsrt refuses instead of "
    "dropping it. `.` and `..` components that have one meaning are folded for every agent "
    "(`~/a/../b` is `~/b`).",
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

UNEXPRESSIBLE_COMMAND = Rule(
    "TWS406",
    "unexpressible-command",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A bash rule cannot be written in the agent's rule syntax.",
    "The bash rule contains a character the agent's rule syntax cannot hold (for Claude a `)`"
    " inside `Bash(...)`) or cannot be split into words. twsrt refuses rather than drop a "
    "deny.",
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

UNCOMPILED_KEY_NOTE = Rule(
    "TWS414",
    "uncompiled-key-note",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "An srt setting that grants or only configures srt itself is not compiled for an agent.",
    "The setting would grant more (local binding, Unix sockets, weaker isolation) or only "
    "configures the sandbox runtime's own machinery (binary paths, proxies, TLS "
    "termination, Windows), so the agent has nothing to take, or taking it would widen "
    "access. Leaving it out is stricter than the policy, or changes nothing; run the agent "
    "under srt when it needs the grant. A restricting setting the agent cannot take is "
    "TWS405 instead.",
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

# Copilot CLI (TWS420-TWS429)

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

LOSSY_ASK_AS_DENY = Rule(
    "TWS420",
    "lossy-ask-as-deny",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A bash ask rule is enforced as a deny because the agent has no ask tier.",
    "Copilot CLI can only allow or deny a tool pattern, so an ask rule becomes "
    "`--deny-tool 'shell(cmd)'`: stricter than the policy, never weaker. Yolo mode skips ask "
    "rules, as it does for every agent.",
)

LOSSY_RELATIVE_PATH = Rule(
    "TWS421",
    "lossy-relative-path",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A relative path cannot be given to an agent that takes only absolute paths.",
    "A relative srt path is anchored at the directory the sandboxed process starts in, which "
    "the agent's settings cannot know. A relative deny is left out of the agent's sandbox, "
    "so only an srt wrapper enforces it. Use `~/` or absolute paths for anything that must "
    "be enforced by the agent's own sandbox. (A relative grant is left out instead: "
    "TWS441.)",
)

LOSSY_GLOB_PATH = Rule(
    "TWS422",
    "lossy-glob-path",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "A glob path cannot be expressed by an agent that takes no wildcards.",
    "The agent's sandbox names whole directory trees only. A glob deny is normally "
    "replaced by its concrete parent directory (TWS407); when that parent is `/` or the "
    "whole home directory, which would lock the agent out, it is left out and reported "
    "here. (A glob grant is left out instead: TWS442.)",
)

UNEXPRESSIBLE_DOMAIN = Rule(
    "TWS423",
    "unexpressible-domain",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A domain cannot be written as the agent's URL or host rule.",
    "The agent takes a hostname, an IP address, `*.example.com` or `*`, optionally with "
    "`:port`. Anything else (a comma, a path, a leading `-`, a port out of range) would be "
    "rejected or misread by the agent, so twsrt refuses rather than drop a rule.",
)

# DeepCode (TWS430-TWS439)

DEEPCODE_CLAUDE_FALLBACK = Rule(
    "TWS430",
    "deepcode-claude-fallback",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Creating ~/.deepcode/settings.json ends DeepCode's fallback to ~/.claude/settings.json.",
    "Without a user settings file DeepCode reads `~/.claude/settings.json` in its place. The "
    "first `twsrt generate -w` creates the DeepCode file, and from then on nothing from the "
    "Claude Code file (hooks, MCP servers, model settings) reaches DeepCode. Copy what you "
    "still need into the DeepCode file.",
)

DEEPCODE_ARRAY_LAYERS = Rule(
    "TWS431",
    "deepcode-array-layers",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "DeepCode's project settings replace the user's lists instead of adding to them.",
    "DeepCode merges its settings layers key by key, but a list in a project "
    "(`.deepcode/settings.json`) or local layer replaces the user's list whole: a project "
    "that sets `permissions.deny` or `sandbox.filesystem.denyRead` drops every deny twsrt "
    "wrote. Keep security lists out of project layers, or repeat them there.",
)

LOSSY_LINUX_DENY = Rule(
    "TWS432",
    "lossy-linux-deny",
    Family.TRANSLATION,
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
)

LOSSY_DENIED_DOMAINS = Rule(
    "TWS433",
    "lossy-denied-domains",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "DeepCode does not enforce a deniedDomains entry that an allowed pattern admits.",
    "DeepCode declares `sandbox.network.deniedDomains` but neither its macOS nor its Linux "
    "sandbox reads it; only the allowedDomains allow-list (Linux) limits the network. A "
    "denied host inside an allowed pattern (`evil.example.com` denied, `*.example.com` "
    "allowed) is therefore reachable. twsrt writes the list so the intent stays visible; "
    "run DeepCode under srt to enforce it. A denied entry that no allowed pattern admits "
    "loses nothing on Linux (TWS440).",
)

LOSSY_MACOS_NETWORK = Rule(
    "TWS434",
    "lossy-macos-network",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "DeepCode on macOS allows every host when allowedDomains is not empty.",
    "DeepCode filters domains on Linux only (a DNS allow-list). On macOS a non-empty "
    "`allowedDomains` lets sandboxed commands reach every host; only an empty list cuts "
    "the network off. On macOS run DeepCode under srt to keep the allow-list.",
)

# The note forms of rules whose loss depends on the policy (TWS440-TWS445 allocated)

DEEPCODE_DENIED_DOMAINS_BLOCKED = Rule(
    "TWS440",
    "deepcode-denied-domains-blocked",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "DeepCode does not enforce a deniedDomains entry, but its allow-list blocks it.",
    "DeepCode ignores `sandbox.network.deniedDomains`, but no allowedDomains entry admits "
    "this denied host, so DeepCode's Linux allow-list blocks it all the same: nothing is "
    "lost on Linux. (On macOS DeepCode does not filter hosts at all, TWS434; a denied host "
    "inside an allowed pattern is TWS433.)",
)

RELATIVE_GRANT_LEFT_OUT = Rule(
    "TWS441",
    "relative-grant-left-out",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A relative grant is left out for an agent that takes only absolute paths.",
    "A relative srt path is anchored at the directory the sandboxed process starts in, which "
    "the agent's settings cannot know, so a relative allowWrite or allowRead is not granted: "
    "stricter than the policy, never weaker. Write it with `~/` or an absolute path if the "
    "agent should grant it.",
)

GLOB_GRANT_LEFT_OUT = Rule(
    "TWS442",
    "glob-grant-left-out",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A glob grant is left out for an agent that takes no wildcards.",
    "The agent's sandbox names whole directory trees only, and any directory that holds the "
    "glob's matches would grant more, so the grant is left out: stricter than the policy, "
    "never weaker. Name the directories to grant.",
)

LITERAL_GLOB_GRANT_LEFT_OUT = Rule(
    "TWS443",
    "literal-glob-grant-left-out",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A literal grant whose path contains glob characters is left out.",
    'A `{"path": ..., "literal": true}` grant whose path contains `*?[]{}` would be read as '
    "a pattern by the agent and grant more than the literal path, so it is left out: "
    "stricter than the policy, never weaker.",
)

DEEPCODE_LINUX_DENY_UNMOUNTED = Rule(
    "TWS444",
    "deepcode-linux-deny-unmounted",
    Family.TRANSLATION,
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
)

# Between launches (issue 25): Copilot CLI and DeepCode (TWS471-TWS479)
COPILOT_MANDATORY_NAMES_OPEN = Rule(
    "TWS471",
    "copilot-mandatory-names-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Copilot's sandbox lets a command write srt's mandatory-deny set, which runs outside it later.",
    "srt keeps sandboxed commands from shell rc and profile files, `.gitconfig`, "
    "`.gitmodules`, `.ripgreprc`, `.mcp.json`, `.vscode/`, `.idea/`, `.claude/commands`, "
    "`.claude/agents` and a repository's `.git/hooks` and `.git/config` in its working "
    "directory, whatever the policy says. Copilot CLI 1.0.102 protects none of them: a real "
    "run under the settings twsrt wrote created `.git/hooks/pre-commit` (run by the next "
    "`git commit`), `.bashrc`, `.vscode/tasks.json` and `.mcp.json` in the directory it "
    "started in and under a write root, and another agent's config layer "
    "(`sub/.claude/settings.json`, which a later Claude loads). twsrt adds each name (and "
    "every agent's project layer) under every write root to `readonlyPaths`; Copilot skips an "
    "entry that does not exist when it starts, so that holds for what is there (an existing "
    "repository's hooks and config) and nothing covers the launch directory, which Copilot "
    "takes only as `addCurrentWorkingDirectory`. Copilot's own layers below it are no way in: "
    "a planted `.github/copilot/settings.json` did not switch its sandbox off or widen it, and "
    "planted hooks and MCP servers ran inside the sandbox.\n\n"
    "Mitigation: start Copilot where the repository and its tool settings already exist, list "
    "the project as an absolute write root instead of `.`, or run Copilot under srt, which "
    "protects the set in its working directory. Suppress with the reason when one of these "
    "holds.",
)

DEEPCODE_MANDATORY_NAMES_OPEN = Rule(
    "TWS472",
    "deepcode-mandatory-names-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "DeepCode's Linux sandbox lets a command write srt's mandatory-deny set, which runs "
    "outside it later.",
    "srt keeps sandboxed commands from shell rc and profile files, `.gitconfig`, "
    "`.gitmodules`, `.ripgreprc`, `.mcp.json`, `.vscode/`, `.idea/`, `.claude/commands`, "
    "`.claude/agents` and a repository's `.git/hooks` and `.git/config` in its working "
    "directory, whatever the policy says. DeepCode's bubblewrap sandbox (its own code, run by "
    "the real-sandbox tests) binds the workspace and every allowWrite root writable and applies "
    "no write deny inside them (TWS432): a command created `.git/hooks/pre-commit` (run by the "
    "next `git commit`), `.bashrc`, `.vscode/tasks.json`, `.mcp.json` and another agent's "
    "config layer (`sub/.claude/settings.json`, which a later Claude loads) in both. A DeepCode "
    "started in `sub/` loads `sub/.deepcode/settings.json`, whoever planted it. No DeepCode "
    "setting closes it on Linux. (Its macOS Seatbelt profile takes write denies; twsrt "
    "does not compile the set there yet, and it was not observed.)\n\n"
    "Mitigation: run DeepCode under srt on Linux (`srt -c deepcode`), which protects the set "
    "in its working directory and keeps a DeepCode that loaded a planted layer inside srt's "
    "policy, or use it in read-only mode. Suppress with that reason.",
)
