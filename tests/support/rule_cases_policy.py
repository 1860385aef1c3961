"""Rule-table cases: the policy's own lints and what each agent's translation loses or
tightens, read from ``check -v`` (in the sandbox modes that matter) over policies that hold
one entry of each shape the lints and translations look at."""

from __future__ import annotations

from support.rule_cases import ALL_TARGETS, Case, config

CLAUDE = 'claude_settings = "home/.claude/settings.full.json"\n'
CODEX = 'codex_config = "home/.codex/config.toml"\ncodex_rules = "home/.codex/rules/twsrt.rules"\n'
COPILOT = (
    'copilot_output = "home/.config/twsrt/copilot-flags.txt"\n'
    'copilot_settings = "home/.copilot/settings.json"\n'
)
MODES = (
    ("check", "-v"),
    ("check", "-v", "--sandbox", "read-only"),
    ("check", "-v", "--sandbox", "danger-full-access"),
)

RICH_SRT = {
    "filesystem": {
        "denyRead": ["~/.aws", "secrets", "/etc/shadow", "~/proj/secrets", "~/.ssh", "~/.aws"],
        "denyWrite": ["**/.env", "/etc/hosts", "~/proj/.git", "~/.bashrc", "~/.ssh/x"],
        "allowWrite": [".", "/tmp", "out", "~/projects/*", "~/proj", "~/.ssh/x"],
    },
    "network": {
        "allowedDomains": ["github.com", "*.github.com", "*.example.com", "localhost:8080"],
        "deniedDomains": ["evil.example.com", "pastebin.com", "*:22", "github.com"],
        "allowUnixSockets": ["/var/run/docker.sock"],
    },
}
RICH_BASH = {
    "allow": ["gh pr view", "git status"],
    "deny": ["rm", "sudo", "git push"],
    "ask": ["git push", "pip install"],
}

CREDENTIALS_SRT = {
    "filesystem": {
        "denyRead": ["~/.ssh", "**/*.pem"],
        "allowRead": ["certs/public.pem"],
        "denyWrite": ["secrets/**"],
        "allowWrite": ["."],
    },
    "network": {
        "allowedDomains": ["registry.npmjs.org"],
        "deniedDomains": [],
        "tlsTerminate": {"caCertPath": "~/.ca/ca.pem", "caKeyPath": "~/.ca/ca.key"},
        "requireHostMatch": True,
    },
    "credentials": {
        "files": [
            {"path": "~/.npmrc", "mode": "mask", "extract": "_authToken=(\\S+)"},
            {"path": "~/.config/gcloud/", "mode": "mask"},
            {"path": ".env", "mode": "deny"},
        ],
        "envVars": [
            {"name": "GITHUB_TOKEN", "mode": "deny"},
            {"name": "ID", "mode": "mask", "decode": "jwt", "extract": "(.*)"},
        ],
    },
    "allowNestedUserNamespaces": False,
    "bwrapPath": "/opt/elsewhere/bwrap",
}

GLOBS_SRT = {
    "filesystem": {
        "denyRead": ["/etc/secrets/", "~/*.key", {"path": "/data/[raw]", "literal": True}],
        "denyWrite": ["~/.bashrc", "**/*.pem"],
        "allowWrite": [".", "./build", "~/dev/", "/tmp", {"path": "/srv/a*b", "literal": True}],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}

CODEX_KEYS_SRT = {
    "enabled": True,
    "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": [], "allowRead": ["~/.ssh/config"]},
    "network": {
        "allowedDomains": ["pypi.org"],
        "deniedDomains": ["*"],
        "allowLocalBinding": True,
        "httpProxyPort": 8080,
    },
    "credentials": {"files": [{"path": "~/.npmrc", "mode": "mask", "extract": "_t=(.*)"}]},
    "enableWeakerNestedSandbox": True,
}

CODEX_ROOTS_SRT = {
    "filesystem": {
        "denyRead": ["/etc/secrets/", "secrets", "~/.config/gh/**", "/data/*.db"],
        "denyWrite": ["~/.bashrc", "build/out", "~/.ssh/*.pem", "~/.aws", "~/proj/a/secrets/**"],
        "allowWrite": ["~/dev/**", "/srv/data/", "~", "~/x/*/y", "~/.aws/sub", "./build", "~/proj"],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}

OVERRIDES = """
[sandbox_overrides.yolo]
enabled = true
autoAllowBashIfSandboxed = true
allowUnsandboxedCommands = true

[sandbox_overrides.full]
enabled = false
"""

# each path lint of pathlints.py once: a covered entry, unexpanded variables, an empty set,
# an allowRead glob
PATH_LINTS_SRT = {
    "filesystem": {
        "denyRead": ["~/.ssh", "~/.ssh/id_rsa", "${HOME}/.aws", "/x/id_[z-a]*"],
        "allowRead": ["~/.ssh/*.pub"],
        "denyWrite": ["~/.bashrc"],
        "allowWrite": [".", "$HOME/dev"],
    },
    "network": {"allowedDomains": ["github.com"], "deniedDomains": []},
}

CASES = [
    Case(
        "path-lints",
        {
            "TWS230": ".srt-settings.json:5:7",
            "TWS231": ".srt-settings.json:6:7",
            "TWS232": ".srt-settings.json:17:7",
            "TWS233": ".srt-settings.json:7:7",
            "TWS234": ".srt-settings.json:10:7",
        },
        files={"twsrt.toml": config(CLAUDE), ".srt-settings.json": PATH_LINTS_SRT},
    ),
    Case(
        "rich-policy-every-agent",
        {
            "TWS203": "bash-rules.json:12:5",
            "TWS204": ".srt-settings.json:24:7",
            "TWS205": ".srt-settings.json:24:7",
            "TWS206": ".srt-settings.json:31:7",
            "TWS207": ".srt-settings.json:12:7",
            "TWS208": ".srt-settings.json:9:7",
            "TWS301": "twsrt.toml:10:24",
            "TWS401": ".srt-settings.json:21:7",
            "TWS403": ".srt-settings.json:32:7",
            "TWS407": ".srt-settings.json:12:7",
            "TWS408": ".srt-settings.json:22:7",
            "TWS409": "bash-rules.json:12:5",
            "TWS410": ".srt-settings.json:40:5",
            "TWS412": ".srt-settings.json:12:7",
            "TWS414": ".srt-settings.json:40:5",
            "TWS416": ".srt-settings.json:12:7",
            "TWS420": "bash-rules.json:12:5",
            "TWS421": ".srt-settings.json:12:7",
            "TWS430": "twsrt.toml:15:21",
            "TWS431": "twsrt.toml:15:21",
            "TWS432": ".srt-settings.json:14:7",
            "TWS433": ".srt-settings.json:35:7",
            "TWS434": ".srt-settings.json:28:5",
            "TWS440": ".srt-settings.json:36:7",
            "TWS441": ".srt-settings.json:21:7",
            "TWS442": ".srt-settings.json:22:7",
            "TWS444": ".srt-settings.json:13:7",
            "TWS465": ".srt-settings.json:19:7",
            "TWS467": ".srt-settings.json:13:7",
            "TWS468": ".srt-settings.json:19:7",
            "TWS471": ".srt-settings.json:18:5",
            "TWS472": ".srt-settings.json:18:5",
            "TWS501": ".srt-settings.json:12:7",
            "TWS502": ".srt-settings.json:41:7",
            "TWS628": ".srt-settings.json:18:5",
            "TWS629": ".srt-settings.json:20:7",
        },
        files={
            "twsrt.toml": config(ALL_TARGETS),
            ".srt-settings.json": RICH_SRT,
            "bash-rules.json": RICH_BASH,
        },
    ),
    Case(
        "claude-credentials-and-keys",
        {
            "TWS212": "twsrt.toml",
            "TWS402": ".srt-settings.json:39:7",
            "TWS405": ".srt-settings.json:26:5",
            "TWS413": "twsrt.toml",
            "TWS415": ".srt-settings.json:35:7",
            "TWS506": ".srt-settings.json:58:3",
        },
        commands=MODES,
        files={"twsrt.toml": config(CLAUDE), ".srt-settings.json": CREDENTIALS_SRT},
    ),
    Case(
        "globs-and-literals",
        {
            "TWS210": ".srt-settings.json:27:23",
            "TWS404": ".srt-settings.json:6:7",
            "TWS411": ".srt-settings.json:5:7",
            "TWS422": ".srt-settings.json:5:7",
            "TWS443": ".srt-settings.json:20:7",
        },
        commands=MODES,
        files={"twsrt.toml": config(ALL_TARGETS), ".srt-settings.json": GLOBS_SRT},
    ),
    Case(
        "codex-lossy-keys",
        {
            "TWS417": ".srt-settings.json:25:17",
        },
        files={"twsrt.toml": config(CODEX), ".srt-settings.json": CODEX_KEYS_SRT},
    ),
    Case(
        "codex-roots-and-denies",
        {
            "TWS229": ".srt-settings.json:19:7",
        },
        files={"twsrt.toml": config(CODEX), ".srt-settings.json": CODEX_ROOTS_SRT},
    ),
    Case(
        "unpinned-home",
        {
            "TWS211": "twsrt.toml:9:20",
        },
        files={"twsrt.toml": config(COPILOT, head="")},
    ),
    Case(
        # the yolo file denies the web tools whole: its allowed host is lost for WebFetch
        "claude-yolo-web-tools",
        {"TWS638": ".srt-settings.json:1:14"},
        files={
            "twsrt.toml": config(
                CLAUDE + 'claude_settings_yolo = "home/.claude/settings.yolo.json"\n'
            ),
            ".srt-settings.json": '{"network": {"allowedDomains": ["github.com"]}}\n',
        },
    ),
    Case(
        "claude-overrides",
        {
            "TWS214": "twsrt.toml:18:11",
        },
        commands=(("check", "-v"), ("check", "-v", "--yolo")),
        files={
            "twsrt.toml": config(
                CLAUDE + 'claude_settings_yolo = "home/.claude/y.json"\n', OVERRIDES
            )
        },
    ),
]
