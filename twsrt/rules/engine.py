"""Engine gaps found by running the sandboxes (`twsrt test`, TWS5xx)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

SRT_LINUX_WRITE_GLOB = Rule(
    "TWS501",
    "srt-linux-write-glob",
    Family.ENGINE,
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
)

SRT_LINUX_UNIX_SOCKETS = Rule(
    "TWS502",
    "srt-linux-unix-sockets",
    Family.ENGINE,
    Level.NOTE,
    Basis.STRICTER,
    "srt on Linux ignores allowUnixSockets and blocks every Unix socket.",
    "seccomp cannot filter Unix sockets by path, so on Linux the sandbox runtime blocks "
    "creating any Unix socket and ignores the `allowUnixSockets` list; only "
    "`allowAllUnixSockets: true` opens them (all of them). Stricter than the policy, never "
    "weaker: a tool that needs the socket (a Docker or SSH agent socket) fails inside the "
    "sandbox.",
)


HOST_PROGRAM_NOT_RUN = Rule(
    "TWS506",
    "host-program-not-run",
    Family.ENGINE,
    Level.NOTE,
    Basis.INFO,
    "srt starts a program the settings name on the host, outside its sandbox; twsrt test "
    "never runs it.",
    "`ripgrep.command`, `bwrapPath` and `socatPath` name programs that srt (and Claude Code's "
    "bundled srt, from the same keys of `sandbox`) starts itself, outside and before its "
    "sandbox, as the user who runs it: ripgrep for the scan of its mandatory denies at every "
    "start on Linux, bubblewrap, and the socat of its network bridge. `twsrt test` never "
    "executes a program that the checkout names outside a sandbox (in CI it may run as root "
    "on a pull request's files), so it runs srt with those keys left out, taking `rg`, "
    "`bwrap` and `socat` from `PATH`, and shows each key as `UNMODELLED` with this rule: what "
    "the named program does is not tested. `check` reports the policy's keys as a note. "
    "Whatever such a program is, it runs unsandboxed at every start of the agent: keep it "
    "out of every write root, so no sandboxed command can replace it.",
)
