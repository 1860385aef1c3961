"""Malformed input: every case exits 2 with a located finding and writes nothing.

The harness (what each case asserts) is tests/support/badinput.py; this is the file-level table:
sources, the config, the Claude target tree, files that are not files, placement, usage.
Positions are 1-based; the comment next to each expected position shows how it was counted.
"""

from __future__ import annotations

import pytest
from support.badinput import (
    BASH,
    CLAUDE_DIR,
    CODEX,
    CODEX_CONFIG,
    CODEX_W,
    CONFIG,
    COPILOT_W,
    DIFF,
    FULL,
    GEN,
    GEN_W,
    LINK,
    SRT,
    TRAILING_COMMA,
    YOLO,
    YOLO_W,
    Case,
    Usage,
    append_config,
    chmod,
    fifo,
    home_file,
    make_dir,
    nothing,
    params,
    remove,
    run_case,
    sparse,
    steps,
    symlink,
    write,
)
from support.sandbox import DEFAULT_CONFIG, Sandbox

CASES: list[Case | Usage] = [
    # ---------------------------------------------------------- srt settings: JSON syntax
    Case(
        "srt-trailing-comma",
        write(
            SRT,
            """
            {
              "filesystem": {
                "denyRead": ["~/.aws", "~/.ssh",],
                "allowWrite": ["."]
              }
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS003",
        f"invalid JSON: {TRAILING_COMMA[1]}",
        3,
        TRAILING_COMMA[0],  # `    "denyRead": ["~/.aws", "~/.ssh",]`: the ',' (col 36)
    ),
    Case("srt-empty-file", write(SRT, ""), GEN_W, SRT, "TWS003", "invalid JSON", 1, 1),
    Case(
        "srt-not-utf8",
        write(SRT, b'{"filesystem": {"denyRead": ["\xff"]}}\n'),
        GEN_W,
        SRT,
        "TWS003",
        "not valid UTF-8",
    ),
    Case(
        "srt-duplicate-key",
        write(
            SRT,
            """
            {
              "network": {"allowedDomains": ["github.com"]},
              "filesystem": {"denyRead": ["~/.aws"]},
              "network": {"allowedDomains": []}
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS103",
        "key 'network' appears more than once",
        4,
        3,  # the second "network" key
    ),
    # ---------------------------------------------------------- srt settings: schema
    # ---------------------------------------------------------- srt settings: entries srt refuses
    *(
        Case(
            f"srt-refused-domain-{name}",
            write(SRT, f'{{\n  "network": {{"{key}": ["github.com", "{entry}"]}}\n}}\n'),
            args,
            SRT,
            "TWS215",
            f"refuses '{entry}' in network.{key}: {why}",
            2,
            col,  # `  "network": {"allowedDomains": ["github.com", "*"]}`: the second entry
        )
        for name, key, entry, args, why, col in (
            ("star", "allowedDomains", "*", GEN_W, "it would allow every host", 48),
            ("star-com", "allowedDomains", "*.com", GEN, "it would allow every host under", 48),
            ("no-dot", "allowedDomains", "intranet", DIFF, "srt takes a domain", 48),
            ("denied-star-com", "deniedDomains", "*.com", GEN_W, "srt takes a domain", 47),
        )
    ),
    Case(
        "srt-top-level-array",
        write(SRT, "[]\n"),
        GEN_W,
        SRT,
        "TWS102",
        "expected an object, got array []",
        1,
        1,
    ),
    Case(
        "srt-network-null",
        write(
            SRT,
            """
            {
              "filesystem": {"denyRead": ["~/.aws"]},
              "network": null
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS102",
        "expected an object, got null",
        3,
        14,  # `  "network": null`
    ),
    Case(
        "srt-string-for-list",
        write(
            SRT,
            """
            {
              "filesystem": {
                "denyRead": "~/.aws"
              }
            }
            """,
        ),
        GEN,
        SRT,
        "TWS102",
        'expected an array, got string "~/.aws"',
        3,
        17,  # `    "denyRead": "~/.aws"`
    ),
    Case(
        "srt-unknown-top-level-key",
        write(
            SRT,
            """
            {
              "filesystem": {"denyRead": ["~/.aws"]},
              "proxy": {"port": 8080}
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS101",
        "unknown key 'proxy' in the top level",
        3,
        3,
    ),
    Case(
        "srt-typo-denyRaed",
        write(
            SRT,
            """
            {
              "filesystem": {
                "denyRaed": ["~/.aws"],
                "allowWrite": ["."]
              }
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS101",
        "unknown key 'denyRaed' in '/filesystem'; did you mean 'denyRead'?",
        3,
        5,  # the key's opening quote
    ),
    Case(
        "srt-tilde-user-path",
        write(
            SRT,
            """
            {
              "filesystem": {
                "denyRead": ["~/.aws", "~bob/.ssh"]
              }
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS102",
        "~user/ forms are not supported",
        3,
        28,  # `    "denyRead": ["~/.aws", "~bob/.ssh"]`
    ),
    Case(
        "srt-enabled-not-boolean",
        write(
            SRT,
            """
            {
              "enabled": "yes",
              "filesystem": {"denyRead": ["~/.aws"]}
            }
            """,
        ),
        DIFF,
        SRT,
        "TWS102",
        'expected a boolean, got string "yes"',
        2,
        14,  # `  "enabled": "yes"`
    ),
    Case(
        "srt-literal-false",
        write(
            SRT,
            """
            {
              "filesystem": {
                "denyRead": [{"path": "x", "literal": false}]
              }
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS102",
        "invalid value false: must be true",
        3,
        43,  # `    "denyRead": [{"path": "x", "literal": false}]`
    ),
    Case(
        "srt-domain-with-space",
        write(
            SRT,
            """
            {
              "network": {"allowedDomains": ["github.com", "git hub.com"]}
            }
            """,
        ),
        GEN,
        SRT,
        "TWS102",
        "a domain must be non-empty and contain no whitespace",
        2,
        48,  # `  "network": {"allowedDomains": ["github.com", "git hub.com"]}`
    ),
    Case(
        "srt-number-in-path-list",
        write(SRT, '{"filesystem": {"denyRead": [5]}}\n'),
        GEN_W,
        SRT,
        "TWS102",
        "(at /filesystem/denyRead/0)",
        1,
        30,  # `{"filesystem": {"denyRead": [5]}}`
    ),
    Case(
        # deeper than the position scanner's recursion, shallower than json.loads' limit
        "srt-deeply-nested",
        write(SRT, "[" * 600 + "]" * 600 + "\n"),
        GEN_W,
        SRT,
        "TWS003",
        "invalid JSON: nesting too deep",
        1,
        1,
    ),
    Case(
        "srt-nested-beyond-json-limit",
        write(SRT, "[" * 5000 + "]" * 5000 + "\n"),
        GEN_W,
        SRT,
        "TWS003",
        "invalid JSON: nesting too deep",
        1,
        1,
    ),
    Case(
        "srt-port-out-of-range",
        write(
            SRT,
            """
            {
              "network": {"httpProxyPort": 70000}
            }
            """,
        ),
        GEN_W,
        SRT,
        "TWS102",
        "invalid value 70000",
        2,
        32,  # `  "network": {"httpProxyPort": 70000}`
    ),
    # ---------------------------------------------------------- bash rules
    Case(
        "bash-missing-comma",
        write(
            BASH,
            """
            {
              "allow": ["gh pr view"],
              "deny": ["rm" "sudo"]
            }
            """,
        ),
        GEN_W,
        BASH,
        "TWS003",
        "invalid JSON: Expecting ',' delimiter",
        3,
        17,  # `  "deny": ["rm" "sudo"]`: the second string
    ),
    Case(
        "bash-empty-command",
        write(BASH, '{\n  "deny": ["rm", ""]\n}\n'),
        GEN_W,
        BASH,
        "TWS102",
        'invalid value ""',
        2,
        18,  # `  "deny": ["rm", ""]`
    ),
    Case(
        "bash-whitespace-command",
        write(BASH, '{\n  "ask": ["   "]\n}\n'),
        GEN_W,
        BASH,
        "TWS102",
        "a command must be non-empty, without leading or trailing whitespace",
        2,
        11,  # `  "ask": ["   "]`
    ),
    Case(
        "bash-unknown-key",
        write(BASH, '{\n  "deny": ["rm"],\n  "denny": ["sudo"]\n}\n'),
        GEN_W,
        BASH,
        "TWS101",
        "unknown key 'denny' in the top level; did you mean 'deny'?",
        3,
        3,
    ),
    Case(
        "bash-number-in-list",
        write(BASH, '{\n  "deny": ["rm", 42]\n}\n'),
        DIFF,
        BASH,
        "TWS102",
        "expected a string, got number 42",
        2,
        18,  # `  "deny": ["rm", 42]`
    ),
    Case(
        "bash-deny-close-paren",
        write(BASH, '{\n  "deny": ["rm", "echo $(id)"]\n}\n'),
        GEN_W,
        BASH,
        "TWS406",
        "contains ')'",
        2,
        18,  # `  "deny": ["rm", "echo $(id)"]`
    ),
    # ---------------------------------------------------------- twsrt.toml
    Case(
        "config-bad-toml",
        write(
            CONFIG,
            """
            [sources]
            srt = ".srt-settings.json"
            bash_rules = "bash-rules.json"

            [targets]
            claude_settings = home/.claude/settings.full.json
            """,
        ),
        GEN_W,
        CONFIG,
        "TWS001",
        "invalid TOML: Invalid value",
        6,
        19,  # the unquoted value
    ),
    Case(
        "config-duplicate-key",
        append_config('claude_settings = "home/.claude/other.json"\n'),
        GEN_W,
        CONFIG,
        "TWS001",
        "invalid TOML: Cannot overwrite a value",
        9,
        44,  # tomllib points at the end of the repeated line
    ),
    Case(
        "config-deeply-nested",
        append_config("x = " + "[" * 2000 + "]" * 2000 + "\n"),
        GEN_W,
        CONFIG,
        "TWS001",
        "invalid TOML",
        any_position=True,
    ),
    *(
        Case(
            f"config-ignore-reason-{name}",
            append_config(f'\n[check]\n[[check.ignore]]\nrule = "TWS208"\nreason = {reason}\n'),
            args,
            CONFIG,
            "TWS102",
            "a reason must say why the finding is acceptable",
            13,
            10,  # `reason = "."`: the value
        )
        for name, reason, args in (
            ("dot", '"."', GEN_W),
            ("blank", '"   "', ("check",)),
            ("one-word", '"intended"', ("check", "--format", "github")),
            ("short", '"ok, fine"', DIFF),
        )
    ),
    Case(
        "config-unknown-target-key",
        append_config('claude_setings_yolo = "home/.claude/settings.yolo.json"\n'),
        GEN_W,
        CONFIG,
        "TWS101",
        "unknown key 'claude_setings_yolo' in '/targets'; did you mean 'claude_settings_yolo'?",
        9,
        1,
    ),
    Case(
        "config-unknown-table",
        append_config("\n[agents]\nclaude = true\n"),
        GEN_W,
        CONFIG,
        "TWS101",
        "unknown key 'agents' in the top level",
        10,
        2,  # `[agents]`: the table name
    ),
    Case(
        "config-yolo-enabled-string",
        append_config('\n[sandbox_overrides.yolo]\nenabled = "yes"\n'),
        YOLO_W,
        CONFIG,
        "TWS102",
        'expected a boolean, got string "yes"',
        11,
        11,  # `enabled = "yes"`
    ),
    Case(
        "config-source-tilde-user",
        write(CONFIG, DEFAULT_CONFIG.replace('".srt-settings.json"', '"~bob/srt.json"')),
        GEN_W,
        CONFIG,
        "TWS102",
        "~user/ forms are not supported",
        4,
        7,  # `srt = "~bob/srt.json"`
    ),
    Case(
        "config-source-number",
        write(CONFIG, DEFAULT_CONFIG.replace('".srt-settings.json"', "5")),
        GEN,
        CONFIG,
        "TWS102",
        "expected a string, got number 5",
        4,
        7,  # `srt = 5`
    ),
    Case(
        "config-no-claude-target",
        write(CONFIG, DEFAULT_CONFIG.split("claude_settings")[0]),
        DIFF,
        CONFIG,
        "TWS001",
        "no [targets] claude_settings configured for claude",
        7,
        2,  # `[targets]`: the table name
    ),
    Case(
        "config-flag-missing-file",
        nothing,
        ("-c", "missing.toml", *GEN_W),
        "missing.toml",
        "TWS001",
        "config file named by -c/--config does not exist",
    ),
    Case(
        "config-flag-directory",
        make_dir("conf.d"),
        (*GEN_W, "--config", "conf.d"),
        "conf.d",
        "TWS001",
        "config file named by -c/--config is a directory",
    ),
    Case(
        "config-env-missing-file",
        nothing,
        GEN_W,
        "/nonexistent",
        "TWS001",
        "config file named by $TWSRT_CONFIG does not exist",
        env=(("TWSRT_CONFIG", "/nonexistent"),),
    ),
    *(
        Case(
            f"config-none-found-{name}",
            remove(CONFIG),
            args,
            CONFIG,  # where the search would find it first: the repository root
            "TWS013",
            "no twsrt config found",
        )
        for name, args in (
            ("generate", GEN_W),
            ("check", ("check",)),
            ("check-json", ("check", "--format", "json")),
        )
    ),
    Case(
        "config-flag-missing-file-check-github",
        nothing,
        ("check", "--format", "github", "-c", "missing.toml"),
        "missing.toml",
        "TWS001",
        "config file named by -c/--config does not exist",
    ),
    # ---------------------------------------------------------- source files on disk
    Case(
        "srt-missing-file",
        remove(SRT),
        GEN_W,
        SRT,
        "TWS002",
        "source file does not exist",
    ),
    Case(
        "bash-missing-file",
        remove(BASH),
        DIFF,
        BASH,
        "TWS002",
        "source file does not exist",
    ),
    Case(
        "srt-is-directory",
        make_dir(SRT),
        GEN_W,
        SRT,
        "TWS002",
        "source path is a directory",
    ),
    # ---------------------------------------------------------- the Claude target tree
    Case(
        "target-is-directory",
        make_dir(FULL),
        GEN_W,
        FULL,
        "TWS004",
        "is a directory, expected a file",
    ),
    Case(
        "target-yolo-is-directory",
        make_dir(YOLO),
        YOLO_W,
        YOLO,
        "TWS004",
        "is a directory, expected a file",
    ),
    Case(
        "link-name-is-directory",
        make_dir(LINK),
        GEN_W,
        LINK,
        "TWS004",
        "is a directory, expected a settings file or symlink",
    ),
    Case(
        "target-dangling-symlink",
        symlink(FULL, "gone.json"),
        GEN_W,
        FULL,
        "TWS004",
        "dangling symlink (points to gone.json)",
    ),
    Case(
        "target-invalid-json",
        write(FULL, '{\n  "model": "opus"\n  "permissions": {}\n}\n'),
        GEN_W,
        FULL,
        "TWS004",
        "invalid JSON in settings file: Expecting ',' delimiter",
        3,
        3,  # the key after the missing comma
    ),
    Case(
        "target-invalid-json-diff",
        write(FULL, '{\n  "model": "opus"\n  "permissions": {}\n}\n'),
        DIFF,
        FULL,
        "TWS004",
        "invalid JSON in settings file",
        3,
        3,
    ),
    Case(
        "migrated-settings-invalid-json",
        write(LINK, '{\n  "model": "opus",\n}\n'),
        GEN_W,
        LINK,
        "TWS004",
        "invalid JSON in settings file",
        3,
        1,  # the '}' after the trailing comma
    ),
    Case(
        "yolo-seed-from-invalid-full",
        write(FULL, '{\n  "model": "opus"\n  "permissions": {}\n}\n'),
        YOLO_W,
        FULL,  # the broken file is settings.full.json (settings.json does not exist)
        "TWS004",
        "invalid JSON in settings file",
        3,
        3,
    ),
    Case(
        "target-deeply-nested",
        write(FULL, '{"x": ' + "[" * 600 + "]" * 600 + "}\n"),
        GEN_W,
        FULL,
        "TWS004",
        "invalid JSON in settings file: nesting too deep",
        1,
        1,
    ),
    Case(
        "target-top-level-array",
        write(FULL, "[]\n"),
        GEN_W,
        FULL,
        "TWS004",
        "settings file is not a JSON object",
        1,
        1,
    ),
    Case(
        "target-permissions-list",
        write(FULL, '{\n  "model": "opus",\n  "permissions": ["Bash(ls)"]\n}\n'),
        GEN_W,
        FULL,
        "TWS004",
        "'/permissions' must be an object",
        3,
        18,  # `  "permissions": ["Bash(ls)"]`
    ),
    Case(
        "target-permissions-allow-string",
        write(FULL, '{\n  "permissions": {"allow": "Bash(ls)"}\n}\n'),
        GEN,
        FULL,
        "TWS004",
        "'/permissions/allow' must be an array",
        2,
        28,  # `  "permissions": {"allow": "Bash(ls)"}`
    ),
    Case(
        "target-sandbox-network-string",
        write(FULL, '{\n  "sandbox": {"network": "none"}\n}\n'),
        GEN_W,
        FULL,
        "TWS004",
        "'/sandbox/network' must be an object",
        2,
        26,  # `  "sandbox": {"network": "none"}`
    ),
    Case(
        "target-duplicate-key",
        write(FULL, '{\n  "sandbox": {},\n  "sandbox": {"enabled": true}\n}\n'),
        GEN_W,
        FULL,
        "TWS004",
        "settings file repeats a key",
        3,
        3,  # the repeated key
    ),
    Case(
        "target-parent-is-file",
        write(CLAUDE_DIR, "not a directory\n"),
        GEN_W,
        FULL,
        "TWS004",
        "parent path is not a directory",
    ),
    Case(
        "target-dir-unwritable",
        steps(make_dir(CLAUDE_DIR), chmod(CLAUDE_DIR, 0o555)),
        GEN_W,
        FULL,
        "TWS004",
        "is not writable",
        marks=("needs-non-root",),
    ),
    Case(
        "settings-json-and-full-both-regular",
        steps(
            write(LINK, '{\n  "model": "opus"\n}\n'),
            write(FULL, '{\n  "model": "sonnet"\n}\n'),
        ),
        GEN_W,
        LINK,
        "TWS004",
        f"is a regular file while {FULL} also exists",
    ),
    Case(
        "target-read-only",
        steps(write(FULL, '{\n  "model": "opus"\n}\n'), chmod(FULL, 0o444)),
        GEN_W,
        FULL,
        "TWS004",
        "is read-only (mode 0444); twsrt does not replace it",
    ),
    Case(
        "target-name-over-name-max",
        write(CONFIG, DEFAULT_CONFIG.replace("settings.full.json", "f" * 256)),
        GEN_W,
        CONFIG,  # refused at the key before anything is read (twsrt/placement.py)
        "TWS004",
        "file name is 256 bytes, longer than the file system allows (255)",
        8,
        19,  # `claude_settings = "home/.claude/fff..."`
    ),
    Case(
        "settings-json-users-link",
        steps(
            write("stow/claude/settings.json", '{\n  "model": "opus"\n}\n'),
            symlink(LINK, "../../stow/claude/settings.json"),
        ),
        GEN_W,
        LINK,
        "TWS010",  # the finding; the refusal to replace the link follows on the next line
        "points to ../../stow/claude/settings.json, not to a settings file twsrt generates",
    ),
    # ---------------------------------------------------------- files that are not files
    Case(
        "config-fifo",
        fifo(CONFIG),
        GEN_W,
        CONFIG,
        "TWS001",
        "cannot read config: is a FIFO, not a regular file",
    ),
    Case(
        "srt-fifo",
        fifo(SRT),
        GEN_W,
        SRT,
        "TWS003",
        "cannot read source: is a FIFO, not a regular file",
    ),
    Case(
        "srt-symlink-loop",
        steps(remove(SRT), symlink(SRT, SRT)),
        DIFF,
        SRT,
        "TWS003",
        "cannot read source: symlink loop",
    ),
    Case(
        "srt-larger-than-cap",
        sparse(SRT, 33 * 1024 * 1024),
        GEN_W,
        SRT,
        "TWS003",
        "cannot read source: is larger than 32 MiB",
    ),
    Case(
        "target-fifo",
        fifo(FULL),
        GEN_W,
        FULL,
        "TWS004",
        "cannot read: is a FIFO, not a regular file",
    ),
    Case(
        "target-symlink-loop",
        symlink(FULL, "settings.full.json"),
        DIFF,
        FULL,
        "TWS004",
        "cannot read: symlink loop",
    ),
    # ---------------------------------------------------------- values no parser may pass on
    Case(
        "srt-integer-too-long",
        write(SRT, '{\n  "network": {"httpProxyPort": ' + "9" * 5000 + "}\n}\n"),
        GEN_W,
        SRT,
        "TWS003",
        "invalid JSON: number with more than 4300 digits",
        2,
        32,  # `  "network": {"httpProxyPort": 999...`
    ),
    Case(
        "bash-lone-surrogate",
        write(BASH, '{\n  "deny": ["rm", "sudo\\udc00"]\n}\n'),
        GEN_W,
        BASH,
        "TWS003",
        "invalid JSON: string is not valid Unicode (a lone surrogate)",
        2,
        18,  # `  "deny": ["rm", "sudo\udc00"]`: the second string
    ),
    Case(
        "srt-lone-surrogate-key",
        write(SRT, '{\n  "filesystem": {"\\ud800": []}\n}\n'),
        DIFF,
        SRT,
        "TWS003",
        "invalid JSON: key is not valid Unicode (a lone surrogate)",
        2,
        18,  # `  "filesystem": {"\ud800": []}`: the key
    ),
    Case(
        "srt-nan",
        write(SRT, '{\n  "network": {"httpProxyPort": NaN}\n}\n'),
        GEN_W,
        SRT,
        "TWS003",
        "invalid JSON: number is not finite",
        2,
        32,
    ),
    Case(
        "srt-del-in-path",
        write(SRT, '{\n  "filesystem": {"denyRead": ["~/.aws\x7f"]}\n}\n'),
        GEN_W,
        SRT,
        "TWS102",
        "contains the control character U+007F",
        2,
        31,  # `  "filesystem": {"denyRead": ["~/.aws<DEL>"]}`
    ),
    Case(
        "bash-escape-in-command",
        write(BASH, '{\n  "deny": ["rm", "sudo\\u001b[2J"]\n}\n'),
        DIFF,
        BASH,
        "TWS102",
        "contains the control character U+001B",
        2,
        18,
    ),
    Case(
        "config-del",
        append_config('claude_settings_yolo = "home/.claude/y\x7f.json"\n'),
        GEN_W,
        CONFIG,
        "TWS001",
        "invalid TOML: Illegal character",
        9,
        39,  # `claude_settings_yolo = "home/.claude/y<DEL>`
    ),
    Case(
        "config-integer-too-long",
        append_config("\n[check]\nx = " + "9" * 5000 + "\n"),
        GEN_W,
        CONFIG,
        "TWS001",
        "invalid TOML: number with more than 4300 digits",
        11,
        5,  # `x = 999...`
    ),
    Case(
        "target-integer-too-long",
        write(FULL, '{\n  "model": ' + "9" * 5000 + "\n}\n"),
        GEN_W,
        FULL,
        "TWS004",
        "invalid JSON in settings file: number with more than 4300 digits",
        2,
        12,
    ),
    Case(
        "target-lone-surrogate",
        write(FULL, '{\n  "model": "\\udc00"\n}\n'),
        GEN_W,
        FULL,
        "TWS004",
        "invalid JSON in settings file: string is not valid Unicode",
        2,
        12,
    ),
    # ---------------------------------------------------------- wrong types in target files
    Case(
        "target-permissions-ask-number",
        write(FULL, '{\n  "permissions": {"ask": 5}\n}\n'),
        GEN_W,
        FULL,
        "TWS004",
        "'/permissions/ask' must be an array",
        2,
        26,  # `  "permissions": {"ask": 5}`
    ),
    Case(
        "target-permissions-deny-object",
        write(FULL, '{\n  "permissions": {"deny": {}}\n}\n'),
        DIFF,
        FULL,
        "TWS004",
        "'/permissions/deny' must be an array",
        2,
        27,
    ),
    Case(
        "codex-features-number",
        steps(append_config(CODEX), write(CODEX_CONFIG, 'model = "o3"\nfeatures = 1\n')),
        CODEX_W,
        CODEX_CONFIG,
        "TWS004",
        "'features' must be a table",
        2,
        12,  # `features = 1`
    ),
    Case(
        "codex-permissions-string",
        steps(append_config(CODEX), write(CODEX_CONFIG, 'permissions = "none"\n')),
        ("diff", "codex"),
        CODEX_CONFIG,
        "TWS004",
        "'permissions' must be a table",
        1,
        15,
    ),
    Case(
        "codex-profiles-array",
        steps(append_config(CODEX), write(CODEX_CONFIG, "[[profiles]]\nx = 1\n")),
        CODEX_W,
        CODEX_CONFIG,
        "TWS004",
        "'profiles' must be a table",
        any_position=True,
    ),
    Case(
        "codex-nested-beyond-tomlkit",  # tomllib takes 200 levels, the merge's tomlkit 100
        steps(append_config(CODEX), write(CODEX_CONFIG, "x = " + "[" * 200 + "]" * 200 + "\n")),
        CODEX_W,
        CODEX_CONFIG,
        "TWS004",
        "invalid TOML: TOML value nested more than 100 levels deep",
        1,
        104,  # tomlkit stops at the 101st '['
    ),
    Case(
        "codex-integer-too-long",
        steps(append_config(CODEX), write(CODEX_CONFIG, "x = " + "9" * 5000 + "\n")),
        CODEX_W,
        CODEX_CONFIG,
        "TWS004",
        "invalid TOML: number with more than 4300 digits",
        1,
        5,
    ),
    # ---------------------------------------------------------- placement (repo mode)
    Case(
        "target-symlink-out-of-repo",
        steps(
            home_file(".bashrc", "export TOKEN=bashrc-secret\n"),
            append_config('copilot_output = "home/.copilot/flags.sh"\n'),
            symlink("home/.copilot/flags.sh", "../../../.bashrc"),
        ),
        COPILOT_W,
        CONFIG,
        "TWS005",
        "copilot_output (home/.copilot/flags.sh) resolves to ~/.bashrc, outside the repository",
        9,
        18,  # `copilot_output = "home/.copilot/flags.sh"`
    ),
    Case(
        "target-proc-environ",
        append_config('copilot_output = "/proc/self/environ"\n'),
        ("diff", "copilot"),
        CONFIG,
        "TWS005",
        "copilot_output (/proc/self/environ) resolves to /proc/",
        9,
        18,
    ),
    Case(
        "target-dotdot-out-of-repo",
        append_config('claude_settings_yolo = "../.claude/settings.yolo.json"\n'),
        GEN_W,
        CONFIG,
        "TWS005",
        "claude_settings_yolo (~/.claude/settings.yolo.json) resolves to",
        9,
        24,
    ),
    Case(
        "srt-symlink-to-dev-zero",
        steps(remove(SRT), symlink(SRT, "/dev/zero")),
        GEN_W,
        CONFIG,
        "TWS005",
        "the srt source (.srt-settings.json) resolves to /dev/zero, outside the repository",
        4,
        7,  # `srt = ".srt-settings.json"`
    ),
    Case(
        "target-is-a-source",
        append_config('copilot_output = "bash-rules.json"\n'),
        COPILOT_W,
        CONFIG,
        "TWS006",
        "copilot_output (bash-rules.json) is the same file as the bash rules source",
        9,
        18,
    ),
    Case(
        "target-is-the-config",
        append_config('codex_rules = "twsrt.toml"\n' + CODEX),
        CODEX_W,
        CONFIG,
        "TWS006",
        "codex_rules (twsrt.toml) is the same file as the config file",
        9,
        15,
    ),
    Case(
        "two-targets-one-file",
        append_config('deepcode_settings = "home/.claude/settings.full.json"\n'),
        GEN_W,
        CONFIG,
        "TWS006",
        "deepcode_settings (home/.claude/settings.full.json) is the same file as claude_settings",
        9,
        21,
    ),
    Case(
        "target-is-the-settings-json-link",
        append_config('codex_rules = "home/.claude/settings.json"\n' + CODEX),
        CODEX_W,
        CONFIG,
        "TWS006",
        "the settings.json link beside claude_settings (home/.claude/settings.json) is the same "
        "file as codex_rules",
        8,
        19,
    ),
    Case(
        "yolo-file-is-another-target",
        append_config('copilot_output = "flags.sh"\ncodex_rules = "flags.yolo.sh"\n' + CODEX),
        COPILOT_W,
        CONFIG,
        "TWS006",
        "codex_rules (flags.yolo.sh) is the same file as the yolo file of copilot_output",
        10,
        15,
    ),
    Case(
        "derived-yolo-name-too-long",  # 251 bytes, and .yolo makes 256: stat would fail
        append_config('copilot_output = "' + "f" * 248 + '.sh"\n'),
        ("generate", "copilot", "-w", "--yolo"),
        CONFIG,
        "TWS004",
        "the yolo file of copilot_output (" + "f" * 248 + ".yolo.sh): file name is 256 bytes",
        9,
        18,
    ),
    # ---------------------------------------------------------- hostile names (issue 26 items 5, 7)
    Case(
        "config-symlink-loop",
        steps(remove(CONFIG), symlink(CONFIG, CONFIG)),
        GEN_W,
        CONFIG,
        "TWS001",
        "symlink loop",
    ),
    Case(
        "target-path-nul",
        append_config('claude_settings_yolo = "home/a\\u0000b.json"\n'),
        YOLO_W,
        CONFIG,
        "TWS004",
        "NUL",
        9,
        24,
    ),
    Case(
        "source-path-nul",
        write(CONFIG, DEFAULT_CONFIG.replace('".srt-settings.json"', '"a\\u0000b.json"')),
        GEN_W,
        CONFIG,
        "TWS001",
        "the srt source: the path holds a NUL byte",
        4,
        7,
    ),
    Case(
        "target-name-escape",
        append_config('claude_settings_yolo = "home/a\\u001b]52;c;eA==\\u0007.json"\n'),
        YOLO_W,
        CONFIG,
        "TWS004",
        "control character",
        9,
        24,
    ),
    Case(
        "target-name-newline",
        append_config('claude_settings_yolo = "home/a\\n::error::forged.json"\n'),
        YOLO_W,
        CONFIG,
        "TWS004",
        "control character",
        9,
        24,
    ),
    # ---------------------------------------------------------- names no file may have (issue 26)
    # A symlink loop, a NUL, a control character or a name longer than the file system allows:
    # refused at the key when the config is loaded (twsrt/pathnames.py), never exit 3.
    *(
        Case(
            f"config-symlink-loop-{name}",
            steps(remove(CONFIG), symlink(CONFIG, CONFIG)),
            args,
            CONFIG,
            "TWS001",
            "cannot read config: symlink loop",
        )
        for name, args in (("generate", GEN_W), ("check", ("check",)), ("diff", DIFF))
    ),
    Case(
        "target-directory-symlink-loop",
        steps(
            append_config('copilot_output = "loop/flags.sh"\n'),
            symlink("loop", "loop2"),
            symlink("loop2", "loop"),
        ),
        COPILOT_W,
        "loop/flags.sh",
        "TWS004",
        "cannot read: symlink loop",
    ),
    Case(
        "source-directory-symlink-loop",
        steps(
            write(CONFIG, DEFAULT_CONFIG.replace('".srt-settings.json"', '"loop/srt.json"')),
            symlink("loop", "loop2"),
            symlink("loop2", "loop"),
        ),
        DIFF,
        "loop/srt.json",
        "TWS003",
        "cannot read source: symlink loop",
    ),
    *(
        Case(
            f"target-control-{name}",
            append_config(f'claude_settings_yolo = "home/.claude/a{escape}.json"\n'),
            args,
            CONFIG,
            "TWS004",
            f"claude_settings_yolo: the path holds {what}; twsrt refuses file names with control",
            9,
            24,  # `claude_settings_yolo = "home/.claude/a...`: the value
        )
        for name, escape, what, args in (
            ("nul", "\\u0000", "a NUL byte", GEN_W),
            ("escape", "\\u001b]52;c;aGk=\\u0007", "the control character U+001B", GEN_W),
            ("newline", "\\n::error::forged", "the control character U+000A", ("check",)),
            ("del", "\\u007f", "the control character U+007F", DIFF),
            ("c1-csi", "\\u009b2J", "the control character U+009B", GEN),
            ("c1-nel", "\\u0085", "the control character U+0085", ("check", "--format", "json")),
        )
    ),
    Case(
        "source-name-nul",
        write(CONFIG, DEFAULT_CONFIG.replace('".srt-settings.json"', '"srt\\u0000.json"')),
        GEN_W,
        CONFIG,
        "TWS001",
        "the srt source: the path holds a NUL byte",
        4,
        7,  # `srt = "srt\u0000.json"`
    ),
    Case(
        "fragment-name-nul",
        write(
            CONFIG,
            """
            checkout = "~/dotfiles"
            profile = "p"

            [fragments.base]
            srt = ".srt-settings.json"
            bash_rules = "bash\\u0000.json"

            [profiles.p]
            extends = ["base"]

            [targets]
            claude_settings = "home/.claude/settings.full.json"
            """,
        ),
        DIFF,
        CONFIG,
        "TWS001",
        "the bash_rules file of fragment base: the path holds a NUL byte",
        6,
        14,  # `bash_rules = "bash\u0000.json"`
    ),
    Case(
        "user-config-name-nul",
        write(
            CONFIG,
            DEFAULT_CONFIG.replace("claude_settings", "claude_project")
            + '\n[project]\nuser_config = "user\\u0000.toml"\n',
        ),
        ("check",),
        CONFIG,
        "TWS001",
        "[project] user_config: the path holds a NUL byte",
        11,
        15,  # `user_config = "user\u0000.toml"`
    ),
    *(
        Case(
            f"pinned-home-{name}",
            write(CONFIG, f'home = "/home/u{escape}"\n' + DEFAULT_CONFIG),
            args,
            CONFIG,
            "TWS001",
            f"the home holds {what}",
            1,
            8,  # `home = "/home/u..."`
        )
        for name, escape, what, args in (
            ("nul", "\\u0000", "a NUL byte", GEN_W),
            ("escape", "\\u001b[2J", "the control character U+001B", ("check",)),
        )
    ),
    Case(
        "env-home-escape",
        nothing,
        GEN_W,
        CONFIG,
        "TWS001",
        "the home directory ($HOME) holds the control character U+001B",
        env=(("HOME", "/home/u\x1b[2J"),),
    ),
    *(
        Case(
            f"{scope}-root-{name}",
            write(
                CONFIG,
                DEFAULT_CONFIG.replace("claude_settings", key) + f'\n[{scope}]\nroot = "{root}"\n',
            ),
            args,
            CONFIG,
            "TWS018",
            f"[{scope}] root ",
            11,
            8,  # `root = "..."`
        )
        for scope, key in (("project", "claude_project"), ("managed", "claude_managed_linux"))
        for name, root, args in (
            ("component-over-name-max", "r" * 256, GEN_W),
            ("over-path-max", "/".join(["r" * 250] * 17), ("check",)),
        )
    ),
    *(
        Case(
            f"project-option-{name}",
            nothing,
            (*args, "--project", root),
            CONFIG,
            "TWS018",
            f"--project {root[:10]}",
        )
        for name, root, args in (
            ("component-over-name-max", "p" * 256, GEN_W),
            ("over-path-max", "/".join(["p" * 250] * 17), DIFF),
            ("over-path-max-check", "/".join(["p" * 250] * 17), ("check",)),
        )
    ),
    # ---------------------------------------------------------- command line
    Usage(
        "usage-unknown-agent",
        ("generate", "nosuchagent"),
        ("Error: Invalid value for", "'nosuchagent'"),
    ),
    Usage(
        "usage-unknown-option",
        ("generate", "claude", "--bogus"),
        ("Error: No such option", "--bogus"),
    ),
    # ---------------------------------------------------------- init --repo
    # The scaffold is written before the agent files are generated from it: a user file that
    # cannot be merged takes the whole scaffold back (HOME unchanged).
    Case(
        "init-repo-user-settings-invalid",
        write("dots/home/.claude/settings.json", '{"model": "opus",}\n'),
        ("init", "--repo", "dots"),
        "dots/home/.claude/settings.json",
        "TWS004",
        "invalid JSON",
        any_position=True,
    ),
    Usage(
        "usage-init-unknown-agent",
        ("init", "--repo", "dots", "--agents", "claude,nosuch"),
        ("Error: Invalid value for '--agents'", "'nosuch'"),
    ),
    Usage("usage-init-agents-without-repo", ("init", "--agents", "claude"), ("needs --repo",)),
    Usage(
        "usage-quiet-with-verbose",
        ("check", "-q", "-v"),
        ("Error: -q/--quiet and -v/--verbose exclude each other",),
    ),
    Usage(
        "usage-quiet-with-global-verbose",
        ("-v", "check", "--quiet"),
        ("Error: -q/--quiet and -v/--verbose exclude each other",),
    ),
    *(
        Usage(f"usage-{name}", args, (message,))
        for name, args, message in (
            ("explain-unknown-rule", ("explain", "TWS999"), "Error: unknown rule 'TWS999'"),
            ("explain-empty-rule", ("explain", ""), "Error: unknown rule ''"),
            ("explain-no-rule", ("explain",), "Error: Missing argument 'RULE'."),
            ("schema-unknown", ("schema", "nope"), "'nope' is not one of 'srt', 'bash', 'config'"),
            ("schema-extra", ("schema", "config", "x"), "Got unexpected extra argument (x)"),
            ("edit-unknown-source", ("edit", "nosuch"), "unknown source 'nosuch'; one of: srt"),
            ("edit-extra", ("edit", "srt", "x"), "Got unexpected extra argument (x)"),
            ("test-unknown-engine", ("test", "--engine", "x"), "Invalid value for '--engine'"),
            ("init-repo-is-a-file", ("init", "--repo", "bash-rules.json"), "is a file."),
            ("check-unknown-format", ("check", "--format", "xml"), "Invalid value for '--format'"),
            ("check-unknown-fail-on", ("check", "--fail-on", "x"), "Invalid value for '--fail-on'"),
            ("generate-sandbox", ("generate", "--sandbox", "x"), "Invalid value for '--sandbox'"),
            ("diff-agent-option", ("diff", "--agent", "x"), "No such option '--agent'"),
            ("show-unknown-format", ("show", "--format", "yaml"), "'yaml' is not one of 'text'"),
        )
    ),
    Usage(
        "usage-completion-unknown-shell",
        ("completion", "tcsh"),
        ("Error: Invalid value for '{bash|zsh|fish}'", "'tcsh'"),
    ),
]


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 25


@pytest.mark.parametrize("case", params(CASES))
def test_bad_input(sandbox: Sandbox, case: Case | Usage) -> None:
    run_case(sandbox, case)
