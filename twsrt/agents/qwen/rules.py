"""Qwen Code's own rules, taken into the catalog through its declaration (``rules``). Each rests
on a headless run of the pinned version, 0.24.4 (docs/agents/qwen-observed.md names the row and
the test; docs/agents/qwen.md the target)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

QWEN_BASH_DENY_BYPASS = Rule(
    "TWS482",
    "qwen-bash-deny-bypass",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Qwen's Bash deny rules are passed by wrappers, absolute paths, `sh -c` and `$(...)`.",
    "Qwen Code matches a `Bash(cmd *)` deny against each part of a compound or a pipe, and "
    "strips leading assignments, but a real run of 0.24.4 ran `env cmd`, `command cmd`, "
    "`/usr/bin/cmd`, `sh -c 'cmd'`, `bash -c 'cmd'` and `$(echo cmd)` past it "
    "(docs/agents/qwen-observed.md, row 3). The execution sandbox still bounds what such a "
    "command can write; the deny itself is best-effort. Run Qwen under srt for a deny the "
    "kernel keeps.",
)

QWEN_READ_DENY_LEAKS = Rule(
    "TWS483",
    "qwen-read-deny-leaks",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Qwen's Read(...) denies are read past by `/bin/cat`, interpreters and variables.",
    "Qwen Code refuses `read_file` of a path its `Read(...)` rules deny, and matches the "
    "shell's known readers (`cat`, `cp`, a `<` redirect, also inside `env` and `sh -c`) as "
    "reads of it, but a real run of 0.24.4 read the file with `/bin/cat`, `python3 -c` and "
    "`cat $VAR/...` (row 5), and its execution sandbox reads every path (row 15). Only srt "
    "makes a denyRead hold for every command.",
)

QWEN_WRITE_DENY_LEAKS = Rule(
    "TWS484",
    "qwen-write-deny-leaks",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Qwen's Edit(...) denies are written past by interpreters inside the workspace.",
    "Qwen Code refuses `write_file` and `edit` on a path its `Edit(...)` rules deny, and the "
    "shell's redirects and `cp` into it, but a real run of 0.24.4 wrote it with `python3 -c` "
    "(row 6). Outside the workspace its execution sandbox refuses the write anyway (row 13); "
    "a denyWrite path inside the directory Qwen starts in holds only for the tools and the "
    "commands Qwen knows. Run Qwen under srt to deny the write to every command.",
)

QWEN_YOLO_APPROVES_ASK = Rule(
    "TWS485",
    "qwen-yolo-approves-ask",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Under --yolo Qwen runs the commands the policy asks about without asking.",
    "Qwen Code has one settings file for both approval modes. Its `permissions.ask` rules "
    "prompt in an interactive session, but under `--yolo` a real run of 0.24.4 ran a command an "
    "ask rule named with no prompt at all (row 4). That is what yolo mode means for every agent "
    "twsrt compiles (Claude Code's yolo file drops its ask rules, Copilot's yolo flags skip "
    "them), so it is worth knowing, not a widening: the deny rules and the sandbox still hold. "
    "Without `--yolo`, headless, such a command is refused (rows 8-9). Turn the ask rule into a "
    "deny to keep it from running under `--yolo` too.",
)

QWEN_NETWORK_OFF = Rule(
    "TWS486",
    "qwen-network-off",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "Qwen reaches none of the policy's allowed domains.",
    "Qwen Code's execution sandbox has a network switch and no domain filter "
    '(`"network": "open"` or `"closed"`; row 17). twsrt writes `closed`: sandboxed commands '
    "reach no host, stricter than the policy's allowedDomains. Run Qwen under srt, whose proxy "
    "filters hosts, for the allow-list itself.",
)

QWEN_PROJECT_LAYER_OPEN = Rule(
    "TWS487",
    "qwen-project-layer-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "A command can plant a .qwen/settings.json or a .env that the next launch obeys.",
    "Qwen Code's execution sandbox in `workspace-write` lets a command write the whole "
    "directory it starts in (row 13), and Qwen loads that directory's `.qwen/settings.json` "
    "with folder trust off by default, its allow rules unioned with the user's (rows 7, 9). A "
    "project allow spelled `Shell(cmd *)` switches the shell on for a headless run without "
    "`--yolo` (row 9), and a real run of a command under twsrt's settings planted one that the "
    "next launch obeyed (tests/real/test_qwen_generated.py). A user deny still wins over it, "
    "and the project file cannot switch the sandbox off (row 19). Worse, Qwen loads the "
    "nearest `.env` (or `.qwen/.env`) walking up from that directory, and a planted "
    "`QWEN_CODE_SAFE_MODE=1` there made the next launch drop every permission rule, the deny "
    "rules included (row 24, the same test file). twsrt's `Edit(/NAME)` rules "
    "refuse Qwen's write tools and redirects the protected names at the top of that directory "
    "(srt's mandatory set and every agent's project layer), but an interpreter such as "
    "`python3` writes past them (row 6), and `.git/hooks` is left writable.\n\n"
    "Mitigation: run Qwen under srt (`srt -c qwen`), which keeps those names read-only in its "
    "working directory, and suppress this finding with that reason.",
)

QWEN_WEB_TOOLS_DENIED = Rule(
    "TWS498",
    "qwen-web-tools-denied",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "Qwen's web_fetch and web_search are denied: its rules cannot keep them to the policy's hosts.",
    "Qwen Code's `web_fetch` and `web_search` run in the agent's own process, outside its "
    "execution sandbox, and `web_fetch` asks by default, which `--yolo` approves: a real run "
    "of 0.24.4 without twsrt's file fetched a host no rule named (tests/real/"
    "test_qwen_generated.py). With the execution sandbox on, Qwen offers a fixed list of core "
    "tools with no web tool in it (docs/agents/qwen-observed.md, row 23); without it "
    "(`--sandbox danger-full-access`, or a user who removes the sandbox) only a rule stops "
    "them. A deny wins over every allow, so `WebFetch(host)` allow rules could not keep the "
    "other hosts out under `--yolo`: twsrt denies both tools whole (`WebFetch`, `WebSearch`), "
    "stricter than the policy's allowedDomains. Qwen also reads `curl` and `wget` in a shell "
    "command as a web fetch, so the deny refuses those commands too (the sandbox network is "
    "closed anyway, TWS486). Run Qwen under srt, whose proxy filters hosts, for the "
    "allow-list itself.",
)

QWEN_APPROVAL_MODE_YOLO = Rule(
    "TWS632",
    "qwen-approval-mode-yolo",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    'A Qwen settings file sets tools.approvalMode to "yolo": every launch approves every call.',
    'With `tools.approvalMode: "yolo"` in `~/.qwen/settings.json` (a key twsrt leaves to the '
    "user), Qwen Code 0.24.4 starts every session as `--yolo` does: a headless run without the "
    "flag ran a command that twsrt's ask rule names, with no prompt (observed, "
    "tests/real/test_qwen_generated.py). Remove the key, or set it to `default`.",
)

QWEN_PROJECT_SANDBOX_IGNORED = Rule(
    "TWS492",
    "qwen-project-sandbox-ignored",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Qwen ignores tools.executionSandbox in a project's settings: the project file has none.",
    "Qwen Code 0.24.4 honours `tools.executionSandbox` only from the user, system and "
    "system-defaults settings: in a project's `.qwen/settings.json` it confines nothing and "
    "prints a warning (docs/agents/qwen-observed.md, row 19). So the project file twsrt writes "
    "carries the permission rules only (and removes an `executionSandbox` found there), and "
    "the policy's write roots and closed network are not enforced by it. Generate the user "
    "settings (`qwen_settings`) or the system settings (managed scope) from the same policy, "
    "which carry the sandbox.",
)

QWEN_PROJECT_LAUNCH_ROOT = Rule(
    "TWS493",
    "qwen-project-launch-root",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Qwen Code loads a project's .qwen/settings.json only when it starts in a trusted project "
    "root.",
    "Observed with Qwen Code 0.24.4 (tests/real/test_qwen_project_observed.py): Qwen reads "
    "`.qwen/settings.json` of the directory it starts in, not of a directory above it, so "
    "started in a subdirectory only the user's (and system) settings bind (row 27). Started in "
    "the root, the project's rules are unioned with the user's: a deny or an ask of either "
    "file wins over an allow of the other (rows 7, 25), and a relative path anchors at the "
    "root (row 26). With `security.folderTrust.enabled` in the user's settings, a folder the "
    "user has not trusted loads no project file at all (row 28). Start Qwen in the project "
    "root, or keep the policy in the user settings as well.",
)

QWEN_MANAGED_ALLOW_OPEN = Rule(
    "TWS494",
    "qwen-managed-allow-open",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "Qwen's system settings cannot stop users and projects from adding allow rules.",
    "Qwen Code 0.24.4 unions the permission rules of the system, user and project settings, "
    "a deny before an ask before an allow: a system deny holds against a user allow (observed, "
    "tests/real/test_qwen_managed_observed.py, row 30), and the system's execution sandbox "
    "wins over the user's (row 29). But Qwen has no managed-only rules switch, so an allow "
    "rule in a user's or a project's file still switches the shell on, unattended, for a "
    "command the policy neither allows nor names (row 9). `twsrt check` in managed scope "
    "reports such rules in the user's settings on this machine (TWS636); turn a command the "
    "policy must never run unasked into an ask or deny rule.",
)

QWEN_MANAGED_USER_ALLOW = Rule(
    "TWS636",
    "qwen-managed-user-allow",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A Qwen user settings file allows a shell command the managed policy does not allow.",
    "Qwen Code unions the user's `permissions.allow` with the system settings' rules (row "
    "26): a system deny or ask still wins, but an allow for a command the system file neither "
    "allows, asks about nor denies switches the shell on for it, so a headless run executes it "
    "with no prompt (row 9). Checked in managed scope against the user's "
    "`~/.qwen/settings.json` on this machine. Remove the rule, or add the command to the "
    "policy's allow list.",
)

QWEN_SYSTEM_LAYER_GRANT = Rule(
    "TWS637",
    "qwen-system-layer-grant",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "This machine's Qwen system settings grant more than the policy.",
    "Qwen Code 0.24.4 reads the system settings (`/etc/qwen-code/settings.json` on Linux, "
    "`$TWSRT_MANAGED_ROOT` in twsrt's check) above the user's: their `tools.executionSandbox` "
    "replaces the one twsrt writes into `~/.qwen/settings.json` (observed, "
    "tests/real/test_qwen_managed_observed.py, row 29), and their allow rules are unioned with "
    "the user's (row 30). A system sandbox that opens the network or writes the workspace where "
    "the policy does not, or a system shell allow rule for a command the policy does not allow, "
    "widens every user's Qwen on this machine. Generate the system file from the policy "
    "(managed scope) and deploy it.",
)
