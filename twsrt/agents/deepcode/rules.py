"""DeepCode's own rules, taken into the catalog through its declaration (``rules``): its fallback
to Claude's settings and its replacing project lists (TWS430-TWS431, TWS447), what its sandbox
does not enforce (Linux denies, denied domains, macOS hosts: TWS432-TWS444) and srt's
mandatory-deny set its Linux sandbox leaves writable (TWS472)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

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
