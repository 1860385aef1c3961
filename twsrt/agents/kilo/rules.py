"""Kilo Code CLI's own rules, taken into the catalog through its declaration (``rules``). Kilo
shares OpenCode's rule grammar, so its translation also reports OpenCode's rules (TWS453-TWS460)
with ``agent kilo``; these are what only Kilo's sandbox and config add. Each rests on a
headless run of the pinned version, 7.7.7 (docs/agents/opencode-observed.md, rows 24-43)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

KILO_WORKSPACE_OPEN = Rule(
    "TWS461",
    "kilo-workspace-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Kilo's sandbox leaves the workspace writable to every command: a planted plugin or project "
    "file runs next launch.",
    "Kilo Code CLI 7.7.7's bubblewrap sandbox (`sandbox.enabled`) makes everything but the "
    "workspace and `writable_paths` read-only (docs/agents/opencode-observed.md, rows 33-34), "
    "and has no per-path deny. So a sandboxed command (a redirect, an interpreter) writes a "
    "denyWrite path inside the workspace, and plants a project `kilo.jsonc` or `opencode.json` "
    "whose rules lift the user's denies (row 30), or a `.kilo/plugins/*.js` that the next "
    "launch runs **outside** the sandbox (row 41); a real run of two launches showed it "
    "(row 43). Kilo's edit rules, which twsrt writes, refuse its own file tools there, not a "
    "command. The read-only sandbox mode cannot be expressed either: the workspace stays "
    "writable.\n\n"
    "Mitigation: start Kilo under srt (`srt --settings ~/.srt-settings.json kilo`), which "
    "keeps those names read-only in its working directory, and suppress this finding with "
    "that reason.",
)

KILO_EXPERIMENTAL_SANDBOX = Rule(
    "TWS644",
    "kilo-experimental-sandbox",
    Family.EFFECTIVE,
    Level.WARNING,
    Basis.DROPS,
    "Kilo ignores `experimental.sandbox`: only the top-level `sandbox` object confines.",
    "`experimental.sandbox: true` is in Kilo's schema, but Kilo Code CLI 7.7.7 ignores it "
    "silently: every outside write was made and the run exited 0 "
    "(docs/agents/opencode-observed.md, row 39). twsrt writes the top-level `sandbox` object; "
    "remove the misplaced key so nobody takes it for the switch.",
)

KILO_ENV_OVERRIDE = Rule(
    "TWS645",
    "kilo-env-override",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A Kilo variable in this environment replaces the rules or the sandbox twsrt wrote.",
    "`KILO_PERMISSION` and `KILO_CONFIG_CONTENT` are merged after the user's file, and "
    "`KILO_PERMISSION` even after the managed `/etc/kilo` (docs/agents/opencode-observed.md, "
    "rows 30-31); `KILO_CONFIG` names one more config file, and `KILO_BWRAP_PATH` picks the "
    "bubblewrap the sandbox runs (row 38: one that is missing fails closed, but it could name "
    "one that confines nothing). Set where `twsrt check` runs, they are set for the Kilo "
    "started there too. Unset them.",
)

KILO_PROJECT_NO_SANDBOX = Rule(
    "TWS672",
    "kilo-project-no-sandbox",
    Family.EFFECTIVE,
    Level.WARNING,
    Basis.DROPS,
    "Kilo's project file carries no sandbox: the user's kilo.jsonc must confine writes.",
    "Kilo Code CLI 7.7.7 takes from a project's `sandbox` object no more than a switch on and "
    "a closed network: a project `kilo.jsonc` whose `sandbox` named other `writable_paths` "
    "changed nothing (docs/agents/opencode-observed.md, row 40). So the project file twsrt "
    "writes carries the permission rules only, and does not confine a command's writes to "
    "the policy's write roots or close the network: it enforces less than the policy. "
    "Generate the user scope's `kilo.jsonc`, which carries the sandbox, from the same policy.",
)

KILO_MANAGED_NO_SANDBOX = Rule(
    "TWS674",
    "kilo-managed-no-sandbox",
    Family.EFFECTIVE,
    Level.WARNING,
    Basis.DROPS,
    "Kilo's managed file carries the permission rules only: the user's kilo.jsonc must carry "
    "the sandbox.",
    "The managed `/etc/kilo/kilo.jsonc` of Kilo Code CLI 7.7.7 was observed to hold its deny "
    "rules against a user's and a project's allow (docs/agents/opencode-observed.md, row 31); "
    "whether Kilo takes a `sandbox` object from it was not observed, and a project's `sandbox` "
    "cannot name `writable_paths` (row 40). So twsrt writes the rules only there: the "
    "managed file does not confine a command's writes to the policy's write roots or close "
    "the network, which enforces less than the policy. Generate each user's `kilo.jsonc`, "
    "which carries the sandbox, from the same policy.",
)
