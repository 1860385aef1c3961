"""OpenCode's own rules, taken into the catalog through its declaration (``rules``). Each rests
on a headless run of the pinned version, 1.18.33 (docs/agents/opencode-observed.md names the
row and the test; docs/agents/opencode.md the target)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

OPENCODE_NO_SANDBOX = Rule(
    "TWS452",
    "opencode-no-sandbox",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "OpenCode has no OS sandbox: a shell command reads, writes and reaches hosts past every rule.",
    "OpenCode 1.18.33 confines nothing in the kernel. Its `permission` rules match the text of "
    "a shell command and the paths its own file tools name; the target of a redirect is not "
    "checked (`echo x > /outside/file` wrote outside the project, "
    "docs/agents/opencode-observed.md row 3), a wrapper is not unwrapped (row 8), and an "
    "interpreter reads and writes whatever the user may. So a command writes past the "
    "policy's write roots, reaches any host, and can plant a project `opencode.json` or a "
    "`.opencode/plugins/*.js` that the next launch loads and runs (rows 14, 23).\n\n"
    "Mitigation: start OpenCode under srt with the policy's own settings, for example "
    "`srt --settings ~/.srt-settings.json opencode` (the finding names the path), which puts "
    "the kernel layer under OpenCode's rules and keeps the protected names read-only; then "
    "suppress this finding with that reason.",
)

OPENCODE_BASH_DENY_BYPASS = Rule(
    "TWS453",
    "opencode-bash-deny-bypass",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "OpenCode's bash deny rules are passed by wrappers such as `env cmd`.",
    "OpenCode matches a `bash` pattern against the text of each command of a line, and does "
    "not unwrap `env`, `command`, `sh -c`, an absolute path or `$(...)`: a real run of 1.18.33 "
    'ran `env cat in` past `"cat *": "deny"` and gave the model the file '
    "(docs/agents/opencode-observed.md, row 8). The deny is best-effort; run OpenCode under "
    "srt for a policy the kernel keeps.",
)

OPENCODE_PATHS_NARROWED = Rule(
    "TWS454",
    "opencode-paths-narrowed",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "OpenCode's read and edit patterns deny these paths at every depth of the project, and more.",
    "OpenCode 1.18.33 matches a `read` or `edit` pattern against the path relative to the "
    "project (the git root, else the directory it starts in; row 9), and an "
    "`external_directory` pattern against `<directory>/*` of a path outside it (row 12). Its "
    "`*` matches any run of characters, `/` included. twsrt cannot know where the project "
    "lies, so each denied path is spelled for every place it can take relative to the "
    "project: a relative path at any depth (`P`, `*/P`), an absolute path by each of its "
    "tails and with `../` before them, a `~` path by its tails below the home; `**` becomes "
    "`*`, a `[...]` class `?` and a `{...}` alternation `*`. Each spelling denies at least "
    "what srt denies, and sometimes more (a same-named path elsewhere).",
)

OPENCODE_WEB_TOOLS_DENIED = Rule(
    "TWS455",
    "opencode-web-tools-denied",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "OpenCode's webfetch and websearch are denied: its rules cannot keep them to the policy's "
    "hosts.",
    'OpenCode 1.18.33 takes no pattern object for `webfetch`: `{"webfetch": {"*": '
    '"deny"}}` makes the whole config invalid (docs/agents/opencode-observed.md, row 11). So '
    'twsrt writes `"webfetch": "deny"` and `"websearch": "deny"`, which take both tools out '
    "(row 10): stricter than the policy's allowedDomains. A shell `curl` is not stopped by "
    "that (TWS452); run OpenCode under srt, whose proxy filters hosts, for the allow-list "
    "itself.",
)

OPENCODE_AUTO_APPROVES_ASK = Rule(
    "TWS456",
    "opencode-auto-approves-ask",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.INFO,
    "Under --auto OpenCode runs what the policy asks about without asking.",
    "OpenCode reads one config file for every launch. Its `ask` rules prompt in an "
    "interactive session and are rejected in a headless `opencode run` (row 7), but `--auto` "
    "(and its alias `--dangerously-skip-permissions`) approves each ask once, while a deny "
    "still holds (row 22). That is what yolo mode means for every agent twsrt compiles; the "
    "deny rules still hold. Turn an ask rule into a deny to keep it from running under "
    "`--auto` too. The catch-alls twsrt writes for `bash` and `external_directory` are `ask`, "
    "so under `--auto` an unlisted command and a path outside the project are approved.",
)

OPENCODE_RULE_DROPPED = Rule(
    "TWS459",
    "opencode-rule-dropped",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "An allow rule holding `*` or `?` is left out: OpenCode would read it as a wildcard.",
    "OpenCode's bash patterns take `*` (any run of characters) and `?` (one character) and "
    "have no escape for them. An allow rule holding one would allow more commands than the "
    "policy names, so twsrt leaves it out, and the command asks: stricter than the policy. A "
    "deny or ask rule holding one is kept, as matching more there only refuses more.",
)

OPENCODE_TOOL_DENY_ONLY = Rule(
    "TWS460",
    "opencode-tool-deny-only",
    Family.TRANSLATION,
    Level.WARNING,
    Basis.DROPS,
    "OpenCode's read and edit denies stop its file tools only, not `cat`, grep or an interpreter.",
    "A `read` deny of OpenCode 1.18.33 refuses its read tool, and an `edit` deny its edit, "
    "write and patch tools, but a shell `cat` of the same path is not a read "
    "(docs/agents/opencode-observed.md, rows 9-10), and its grep tool is matched against the "
    "search pattern, not the files it reads. Started inside a denied directory, the "
    "directory's own files are not matched either (their project-relative paths name nothing "
    "of the denied path). Run OpenCode under srt for a deny every command keeps.",
)

OPENCODE_PERMISSION_KEY_LIFTS = Rule(
    "TWS640",
    "opencode-permission-key-lifts",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user key in OpenCode's permission object, after twsrt's, lifts its denies.",
    "OpenCode 1.18.33 flattens `permission` in key order and the last matching rule wins "
    '(docs/agents/opencode-observed.md, row 6): a user key such as `"*": "allow"` or '
    '`"bash": "allow"` after the keys twsrt writes matches the same calls and wins over every '
    "deny twsrt wrote. Remove the key, or move it before twsrt's keys.",
)

OPENCODE_AGENT_PERMISSION = Rule(
    "TWS641",
    "opencode-agent-permission",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "An OpenCode agent's own permission object is merged after twsrt's and can lift its denies.",
    "OpenCode merges `agent.<name>.permission` after the top-level `permission` object (its "
    "agent loader, 1.18.33), so a rule there that allows what twsrt denies wins for every "
    "session of that agent, `build` (the default) included. Remove the rule, or keep the "
    "agent's permissions to `deny` and `ask`.",
)

OPENCODE_ENV_OVERRIDE = Rule(
    "TWS642",
    "opencode-env-override",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "An OpenCode variable in this environment replaces the permission rules twsrt wrote.",
    "`OPENCODE_PERMISSION` and `OPENCODE_CONFIG_CONTENT` are merged after the user's file, "
    "and `OPENCODE_PERMISSION` even after the managed `/etc/opencode/opencode.json`; "
    "`OPENCODE_CONFIG` names one more config file (docs/agents/opencode-observed.md, rows "
    "14, 18). Set where `twsrt check` runs, they are set for the OpenCode started there "
    "too. Unset them.",
)

OPENCODE_ANCESTOR_LAYER = Rule(
    "TWS643",
    "opencode-ancestor-layer",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "An OpenCode project file in the home or root directory binds every non-git directory "
    "below it.",
    "In a directory that is not in a git repository, OpenCode 1.18.33 walks up to `/` and "
    "loads each `opencode.json`, `opencode.jsonc` and `.opencode/` it finds there as a project "
    "layer, whose rules come after the user's and lift its denies "
    "(docs/agents/opencode-observed.md, rows 14-15). One in `~` or `/` is a project layer of "
    "every such directory. Remove it, or start OpenCode with "
    "`OPENCODE_DISABLE_PROJECT_CONFIG=1` (row 16).",
)

OPENCODE_MANAGED_LAYER_GRANTS = Rule(
    "TWS646",
    "opencode-managed-layer-grants",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "This machine's managed OpenCode (or Kilo) config allows what twsrt's rules deny.",
    "OpenCode 1.18.33 merges the managed `/etc/opencode/opencode.json` after the user's file "
    "(Kilo: `/etc/kilo`), so its rules come later and win (docs/agents/opencode-observed.md, "
    "rows 17, 31): an allow or ask there for one of the tools twsrt writes rules for lifts "
    "every deny of the user's file on this machine. Checked at `$TWSRT_MANAGED_ROOT` (else "
    "`/`). Make the managed file deny-only, or generate it from the policy.",
)

OPENCODE_PROJECT_LAYER = Rule(
    "TWS670",
    "opencode-project-layer",
    Family.EFFECTIVE,
    Level.NOTE,
    Basis.INFO,
    "OpenCode (and Kilo) load a project file when they start in the project or below it.",
    "OpenCode 1.18.33 looks for `opencode.json`/`opencode.jsonc` (Kilo also `kilo.jsonc`, "
    "`kilo.json`) from the directory it starts in up to the git root, or up to `/` outside a "
    "git repository (docs/agents/opencode-observed.md, rows 14-15, 30), and merges each after "
    "the user's config. So the project file binds a launch in the project root or any "
    "directory below it; started elsewhere, only the user's and the managed config bind.",
)

OPENCODE_PROJECT_MERGED = Rule(
    "TWS671",
    "opencode-project-merged",
    Family.EFFECTIVE,
    Level.WARNING,
    Basis.DROPS,
    "A project file's OpenCode (or Kilo) deny can be outranked by a user rule or dropped by a "
    "variable.",
    "OpenCode 1.18.33 merges a project's `permission` objects into the user's key by key: a "
    "pattern the user's object already has keeps the user's place and takes the project's "
    "action, a new pattern is appended (docs/agents/opencode-observed.md, row 14), and the "
    "last matching rule wins (row 6). So a user rule written after a pattern the project file "
    "also denies outranks that deny for the calls it matches. "
    "`OPENCODE_DISABLE_PROJECT_CONFIG=1` drops the project file (row 16) and "
    "`OPENCODE_PERMISSION` is merged after it (rows 14, 18; Kilo: the `KILO_` twins). The "
    "project file enforces the policy only beside a user config that does not allow more; "
    "generate the user scope from the same policy too.",
)

OPENCODE_MANAGED_NOT_FINAL = Rule(
    "TWS673",
    "opencode-managed-not-final",
    Family.EFFECTIVE,
    Level.WARNING,
    Basis.DROPS,
    "OpenCode's (and Kilo's) managed config is not final: one variable and a user rule "
    "ordered after its pattern beat it.",
    "OpenCode 1.18.33 merges the managed `/etc/opencode/opencode.json` (Kilo: `/etc/kilo`) "
    "after the user's and the project's files, so its denies hold against their allows of the "
    "same pattern (docs/agents/opencode-observed.md, rows 17, 31). It is not final: "
    "`OPENCODE_PERMISSION` (`KILO_PERMISSION`) is merged after it and lifts its denies (rows "
    "18, 31), and the merge is key by key (row 14), so a user or project object that already "
    "has one of the managed file's patterns keeps it in its own place, and a more specific "
    "allow written after it there still wins for the calls it matches (the last matching rule "
    "wins, row 6). Keep the variable out of the users' environment and generate the user "
    "scope from the same policy.",
)

OPENCODE_PROJECT_LAYER_GRANTS = Rule(
    "TWS647",
    "opencode-project-layer-grants",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A project file beside twsrt's that OpenCode (or Kilo) also loads allows or asks for a "
    "tool twsrt writes rules for.",
    "In a project, OpenCode 1.18.33 also loads `opencode.jsonc` and `.opencode/opencode.json`, "
    "and Kilo 7.7.7 `kilo.jsonc`, `kilo.json`, `opencode.json(c)` and the same names under "
    "`.kilo/` and `.opencode/`, each merged after the user's file key by key "
    "(docs/agents/opencode-observed.md, rows 14, 30): an `allow` there lifts the denies and "
    "asks of twsrt's rules that its pattern matches, and an `ask` lifts a deny to a prompt "
    "(which `--auto` approves). `check` in project scope reads each of them except the file "
    "twsrt writes and reports every such entry at its line. Remove it, or put the rule in the "
    "policy.",
)
