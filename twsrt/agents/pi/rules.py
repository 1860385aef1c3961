"""pi's own rules, taken into the catalog through its declaration (``rules``). Each rests on a
headless run of pi 1.4.0 with its sandbox extension example and srt 0.0.26
(docs/agents/pi-droid-observed.md names the row and the test; docs/agents/pi.md the target)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

PI_FILE_TOOLS_UNSANDBOXED = Rule(
    "TWS462",
    "pi-file-tools-unsandboxed",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "pi's read, write and edit tools are not sandboxed: the policy's path denies hold for bash "
    "only.",
    "pi's sandbox extension replaces the `bash` tool with one that runs each command under srt; "
    "pi's own `read`, `write` and `edit` tools run in pi's process, outside it. A real run of pi "
    "1.4.0 read a `denyRead` file with `read`, created a file in a `denyWrite` directory with "
    "`write` and changed one there with `edit` (docs/agents/pi-droid-observed.md, pi row 8). So "
    "every denyRead and denyWrite path, twsrt's protected set among them, holds only for bash "
    "commands. Start pi with `--tools bash` (only the sandboxed bash tool) where the file "
    "tools must not reach those paths, or run pi itself under srt.",
)

PI_BASH_RULES_LOST = Rule(
    "TWS463",
    "pi-bash-rules-lost",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "pi has no place for the policy's bash deny and ask rules: it runs every command unasked.",
    "pi's sandbox extension takes an srt document and nothing else: it has no command allow, "
    "ask or deny list, and pi 1.4.0 runs every bash call the model makes without a prompt "
    "(headless and interactive). pi offers a `tool_call` event to extensions, which could "
    "block a command, but twsrt writes no extension. So a deny rule holds only as far as the "
    "srt filesystem and network rules stop what the command would do (a `curl` to a host "
    "outside allowedDomains, a write outside the write roots), and an ask rule not at all. "
    "Express what must never happen as a path or host deny, or run pi under srt.",
)

PI_GLOB_DENY_SKIPPED = Rule(
    "TWS464",
    "pi-glob-deny-skipped",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "pi's srt 0.0.26 enforces no glob in denyRead or denyWrite on Linux.",
    "The sandbox extension of pi 1.4.0 hands srt 0.0.26's Linux sandbox the lists unfiltered, "
    "and srt binds only paths that exist: a denyRead glob names no file, so commands read what "
    "it names; a denyWrite glob under a write root made srt bind a 0-byte stub at the glob's "
    "first part (a file named `**` in the workspace), and every later bash command of the "
    "session failed (`Can't mkdir parents`, seen in a real run). twsrt writes a trailing `/**` "
    "as the directory itself (srt 0.0.83's reading), keeps the other denyRead globs (macOS "
    "enforces them) and leaves the denyWrite globs out. Name the paths without a glob where "
    "that matters.",
)

PI_FAILS_OPEN = Rule(
    "TWS470",
    "pi-fails-open",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "pi's sandbox extension runs bash unsandboxed when srt cannot start, and with --no-sandbox.",
    "When srt cannot start (on Linux: no bwrap, socat or ripgrep on PATH), the extension keeps "
    "pi's plain bash tool: a real run of pi 1.4.0 without bwrap read a denied file and wrote "
    "outside the write roots, and in print and JSON mode it said nothing at all (its notice "
    "goes to a UI that headless mode does not have; docs/agents/pi-droid-observed.md, pi row "
    "11). The extension's own `--no-sandbox` flag does the same (row 12), and pi runs it only "
    "when started with `-e` naming it or with the extension installed in "
    "~/.pi/agent/extensions/. `twsrt check` reports a machine without the tools (TWS652) and "
    "`twsrt test --engine pi` shows the gap; start pi only with the extension loaded.",
)

PI_PROJECT_SANDBOX_FILE = Rule(
    "TWS650",
    "pi-project-sandbox-file",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A .pi/sandbox.json in the directory pi starts in replaces or disables the policy's sandbox.",
    "pi's sandbox extension merges `.pi/sandbox.json` of the directory pi starts in over the "
    "global file twsrt writes: each list it gives replaces the global list whole (a denyRead "
    "of one file drops every other entry), and `enabled: false` turns the sandbox off (pi rows "
    "9, 10). The file needs no project trust (row 15). Checked in the directory twsrt runs in "
    "and at the top of the policy repository. Remove the file.",
)

PI_AGENT_DIR_MOVED = Rule(
    "TWS651",
    "pi-agent-dir-moved",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "PI_CODING_AGENT_DIR moves pi's agent directory away from the file twsrt writes.",
    "pi reads its agent directory from `$PI_CODING_AGENT_DIR` when it is set, and the sandbox "
    "extension reads `extensions/sandbox.json` there: a real run of pi 1.4.0 with the variable "
    "ignored twsrt's file and applied the extension's defaults, which let commands write /tmp "
    "and reach npm, PyPI and GitHub hosts (pi rows 2, 4). Checked in the environment of "
    "`twsrt check`. Unset the variable, or point the pi_sandbox target at "
    "`$PI_CODING_AGENT_DIR/extensions/sandbox.json`.",
)

PI_SANDBOX_CANNOT_START = Rule(
    "TWS652",
    "pi-sandbox-cannot-start",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "srt cannot start on this machine, so pi's sandbox extension runs bash unsandboxed.",
    "On Linux srt needs bubblewrap (`bwrap`), `socat` and ripgrep (`rg`) on PATH. Without one "
    "of them the extension of pi 1.4.0 runs every bash command unsandboxed and, headless, says "
    "nothing (pi row 11; TWS470). Checked on the machine `twsrt check` runs on when pi's agent "
    "directory is there (a machine that runs pi). Install them (`apt-get install -y bubblewrap "
    "socat ripgrep`).",
)

PI_LEGACY_SANDBOX_FILE = Rule(
    "TWS653",
    "pi-legacy-sandbox-file",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "The pi_sandbox target is not the extensions/sandbox.json that pi's extension reads.",
    "The sandbox extension of pi 1.4.0 reads `<agent dir>/extensions/sandbox.json`; the same "
    "document at `~/.pi/agent/sandbox.json`, where older extension examples kept it, is "
    "ignored and the extension's defaults apply (pi rows 1, 4), which let commands write /tmp "
    "and reach npm, PyPI and GitHub hosts. Point the target at "
    "`~/.pi/agent/extensions/sandbox.json`, or suppress this finding naming the older "
    "extension build that reads the configured path.",
)

PI_ENGINE_FAILS_OPEN = Rule(
    "TWS510",
    "pi-engine-fails-open",
    Family.ENGINE,
    Level.ERROR,
    Basis.WIDENS,
    "srt cannot start on this machine, so pi runs the probe's command unsandboxed.",
    "The pi engine models pi's sandbox extension, which keeps pi's plain bash tool when srt "
    "cannot start (on Linux: no bwrap, socat or rg on PATH), headless without a word "
    "(docs/agents/pi-droid-observed.md, pi row 11). On such a machine the engine runs each "
    "probe as pi would, unsandboxed, and a denied probe that comes out allowed is this gap. "
    "Install bubblewrap, socat and ripgrep (TWS652 in `twsrt check`).",
)

PI_PLANTED_LAYERS = Rule(
    "TWS654",
    "pi-planted-layers",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A sandboxed command can plant a .pi/sandbox.json below the launch directory, which a pi "
    "started there obeys.",
    "pi's sandbox extension reads `.pi/sandbox.json` of the directory pi starts in, with no "
    "trust decision, and `enabled: false` there turns the sandbox off (pi rows 10, 15). twsrt "
    "denies `.pi` at the top of every write root, and a real run of pi 1.4.0 on twsrt's file "
    "refused a command that tried to plant it there (tests/real/test_pi_generated.py). But "
    "srt 0.0.26 skips glob write denies on Linux, so in any subdirectory of the launch "
    "directory or of a write root a command may still create `sub/.pi/sandbox.json` (and "
    "`.pi/settings.json`, `.pi/extensions/`, which a trusted launch loads): a pi started in "
    "`sub/` later runs bash unsandboxed: in a real run of pi 1.4.0 on twsrt's file a command "
    "planted `sub/.pi/sandbox.json` with `enabled: false`, and the next pi started in `sub/` "
    "read the denied file (tests/real/test_pi_generated.py; `twsrt test --engine pi` shows the "
    "gap). No setting of the extension stops this.\n\n"
    "Mitigation: start pi only in the directory twsrt's file was written for, or run `twsrt "
    "check` in a directory before starting pi there (it reports a `.pi/sandbox.json` as "
    "TWS650), and suppress with that reason.",
)

PI_NESTED_UNPROTECTED = Rule(
    "TWS655",
    "pi-nested-unprotected",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "Below the top of a write root other than the launch directory, pi cannot keep a command "
    "from planting what git, an editor or a shell runs later.",
    "srt 0.0.26, which pi's sandbox extension runs, applies its mandatory-deny set (shell rc "
    "files, `.gitconfig`, `.mcp.json`, `.vscode/`, `.idea/`, a repository's `.git/hooks` and "
    "`.git/config`) in the directory pi starts in only. twsrt denies the names at the top of "
    "every write root, but srt skips glob write denies on Linux, so deeper down a command may "
    "create `/tmp/repo/.git/hooks/pre-commit` (run by the next `git commit` there, outside any "
    "sandbox; `twsrt test --engine pi` shows it).\n\n"
    "Mitigation: keep other repositories and projects out of the write root, list a narrower "
    "root, or start pi where they are. Suppress with the reason when nothing of the kind lies "
    "inside the root.",
)

PI_ENGINE_PORT_LEFT_OUT = Rule(
    "TWS511",
    "pi-engine-port-left-out",
    Family.ENGINE,
    Level.NOTE,
    Basis.STRICTER,
    "An allowed host with a port is refused under pi: twsrt left it out of pi's file.",
    "pi's sandbox extension runs srt 0.0.26, which matches allowed hosts by name alone, so an "
    "allowedDomains entry `host:port` would match nothing; twsrt leaves it out of pi's file "
    "with a note (TWS403) and the host is refused on every port, stricter than the policy. "
    "`twsrt test --engine pi` shows the refused fetch as this gap.",
)

PI_PROJECT_TRUST_ALWAYS = Rule(
    "TWS656",
    "pi-project-trust-always",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "pi's settings set defaultProjectTrust \"always\": every project's .pi/extensions/ run "
    "in pi's own process, outside the sandbox.",
    "pi asks before it loads a project's protected resources (`.pi/extensions/`, "
    '`.pi/settings.json`, `.pi/mcp.json`), and headless, with the default `"ask"`, it skips '
    'them (pi row 15). With `defaultProjectTrust: "always"` in `~/.pi/agent/settings.json` '
    "(a file twsrt leaves to the user) a real run of pi 1.4.0 loaded a project extension "
    "without a flag (tests/real/test_pi_generated.py). An extension is code that runs in pi's "
    "process, which the sandbox extension does not confine, so any repository pi starts in "
    'runs its extensions unsandboxed. Remove the key or set it to `"ask"`, and trust '
    "projects one by one (`/trust`).",
)

PI_PROJECT_LAUNCH_ROOT = Rule(
    "TWS657",
    "pi-project-launch-root",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "pi's sandbox extension reads a project's .pi/sandbox.json only when pi starts in the "
    "project root.",
    "The extension of pi 1.4.0 reads `.pi/sandbox.json` of the directory pi starts in (its "
    "loadConfig joins the working directory; in a real run a launch in the project root "
    "honoured the file, docs/agents/pi-droid-observed.md, pi rows 9 and 10). It merges the "
    "file over the user's global one, each list replacing the global list whole, so the file "
    "twsrt writes for a project carries every list. Started in a subdirectory, only the global "
    "file binds. No project trust is needed for the file (row 15). Start pi in the project "
    "root, or keep the policy in the user's file as well.",
)
