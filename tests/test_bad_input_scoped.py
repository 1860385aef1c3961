"""Bad input in the scoped and composed features: ``--project``/``[project]``, ``--managed``/
``[managed]``, ``[fragments]``/``[profiles]`` and ``--profile``/``$TWSRT_PROFILE``.

The harness is tests/support/badinput.py (exit 2, the located first error line, no traceback,
HOME unchanged in bytes, links and modes). A finding about a command-line argument
(``--project DIR``) has no position in a file: it names the config it was run with.
"""

from __future__ import annotations

import pytest
from support.badinput import (
    BASH,
    CONFIG,
    SRT,
    Case,
    Usage,
    make_dir,
    params,
    run_case,
    steps,
    write,
)
from support.sandbox import DEFAULT_CONFIG, Sandbox

GEN_W = ("generate", "-w")

# No default profile: lines 1 [fragments.base], 5 [profiles.home], 6 extends, 9 claude_settings.
BARE = """\
[fragments.base]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[profiles.home]
extends = ["base"]

[targets]
claude_settings = "home/.claude/settings.full.json"
"""

# A default profile of two fragments: 1 profile, 8 extends, 10 [fragments.two], 11 its srt.
TWO = """\
profile = "home"

[fragments.base]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[profiles.home]
extends = ["base", "two"]

[fragments.two]
srt = "two.srt.json"

[targets]
claude_settings = "home/.claude/settings.full.json"
"""
TWO_SRT = "two.srt.json"

# 5 [project], 6 root.
PROJECT = """\
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[project]
root = "."
"""
MANAGED = PROJECT.replace("[project]", "[managed]").replace('"."', '"managed"')


def config(content: str, *more: tuple[str, str]) -> object:
    """The config ``content`` plus files (relative path, content) beside it."""
    return steps(write(CONFIG, content), *(write(path, text) for path, text in more))


def bare(extra: str = "", old: str = "", new: str = "") -> object:
    return config(BARE.replace(old, new) + extra)


def two(old: str = "", new: str = "", extra: str = "", fragment: str = "{}\n") -> object:
    return config(TWO.replace(old, new) + extra, (TWO_SRT, fragment))


CASES: list[Case | Usage] = [
    # ---------------------------------------------------------- the profiles' structure
    Case(
        "profiles-beside-sources",
        bare('\n[sources]\nsrt = "x.json"\n'),
        GEN_W,
        CONFIG,
        "TWS014",
        "[sources] names the one policy of a config without profiles",
        11,
        2,  # `[sources]`
    ),
    Case(
        "profile-extends-twice",
        bare(old='["base"]', new='["base", "base"]'),
        GEN_W,
        CONFIG,
        "TWS014",
        "profile 'home' extends fragment 'base' twice",
        6,
        20,  # `extends = ["base", "base"]`: the second name
    ),
    Case(
        "profile-extends-nothing",
        bare(old='["base"]', new="[]"),
        ("diff",),
        CONFIG,
        "TWS014",
        "profile 'home' extends no fragment",
        6,
        11,
    ),
    Case(
        "profile-extends-string",
        bare(old='["base"]', new='"base"'),
        GEN_W,
        CONFIG,
        "TWS102",
        'expected an array, got string "base"',
        6,
        11,
    ),
    Case(
        "profile-extend-typo",
        bare(old="extends", new="extend"),
        ("show",),
        CONFIG,
        "TWS101",
        "unknown key 'extend' in '/profiles/home'; did you mean 'extends'?",
        6,
        1,
    ),
    Case(
        "fragments-without-profiles",
        config(DEFAULT_CONFIG + '\n[fragments.x]\nsrt = ".srt-settings.json"\n'),
        GEN_W,
        CONFIG,
        "TWS014",
        "'fragments' needs a [profiles] table",
        1,
        1,
    ),
    Case(
        "default-profile-without-profiles",
        config('profile = "home"\n' + DEFAULT_CONFIG),
        GEN_W,
        CONFIG,
        "TWS014",
        "'profile' needs a [profiles] table",
        1,
        11,  # `profile = "home"`: the value
    ),
    Case(
        "fragment-name-with-space",
        config(BARE.replace("fragments.base", 'fragments."a b"').replace('"base"', '"a b"')),
        GEN_W,
        CONFIG,
        "TWS102",
        'invalid value "a b": must match',
        1,
        1,
    ),
    Case(
        "profile-composes-no-bash-rules",
        config(
            BARE.replace('["base"]', '["two"]') + '\n[fragments.two]\nsrt = "two.srt.json"\n',
            (TWO_SRT, "{}\n"),
        ),
        GEN_W,
        CONFIG,
        "TWS014",
        "profile 'home' composes no bash_rules file",
        6,
        11,
    ),
    Case(
        "profile-targets-unknown-key",
        bare('\n[profiles.home.targets]\nclaude_setings = "x.json"\n'),
        GEN_W,
        CONFIG,
        "TWS101",
        "unknown key 'claude_setings' in '/profiles/home/targets'; did you mean",
        12,
        1,
    ),
    Case(
        "profile-targets-outside-repository",
        two(extra='\n[profiles.home.targets]\nclaude_settings = "../x.json"\n'),
        GEN_W,
        CONFIG,
        "TWS005",
        "claude_settings (~/x.json) resolves to ~/x.json, outside the repository",
        17,
        19,
    ),
    Case(
        "profile-hosts-string",
        two(old='"two"]', new='"two"]\nhosts = "x"'),
        GEN_W,
        CONFIG,
        "TWS102",
        'expected an array, got string "x"',
        9,
        9,
    ),
    # ---------------------------------------------------------- the selection
    *(
        Case(
            f"profile-flag-unknown-{name}",
            bare(),
            args,
            CONFIG,
            "TWS015",
            "profile 'nosuch' named by --profile is not defined (profiles: home)",
            5,
            2,  # `[profiles.home]`
        )
        for name, args in (
            ("generate-w", ("generate", "-w", "--profile", "nosuch")),
            ("before-command", ("--profile", "nosuch", "generate", "-w")),
            ("diff", ("diff", "--profile", "nosuch")),
            ("check", ("check", "--profile", "nosuch")),
            ("check-json", ("check", "--format", "json", "--profile", "nosuch")),
            ("show", ("show", "--profile", "nosuch")),
            ("test", ("test", "--profile", "nosuch")),
            ("edit", ("edit", "--profile", "nosuch")),
        )
    ),
    Case(
        "profile-env-unknown",
        bare(),
        GEN_W,
        CONFIG,
        "TWS015",
        "profile 'nosuch' named by $TWSRT_PROFILE is not defined",
        5,
        2,
        env=(("TWSRT_PROFILE", "nosuch"),),
    ),
    Case(
        "profile-none-selected",
        bare('\n[profiles.work]\nextends = ["base"]\n'),
        GEN_W,
        CONFIG,
        "TWS015",
        "no profile selected: name one with --profile or $TWSRT_PROFILE",
        5,
        2,
    ),
    Case(
        "profile-two-hosts-match",
        bare(
            '\n[profiles.work]\nextends = ["base"]\nhosts = ["*"]\n',
            '["base"]',
            '["base"]\nhosts = ["*"]',
        ),
        GEN_W,
        CONFIG,
        "TWS015",
        "matches hosts of two profiles: '*' of home and '*' of work",
        7,
        10,  # the first profile's pattern
    ),
    Case(
        "profile-default-unknown",
        two(old='profile = "home"', new='profile = "nosuch"'),
        GEN_W,
        CONFIG,
        "TWS015",
        "default profile 'nosuch' is not defined (profiles: home)",
        1,
        11,
    ),
    # ---------------------------------------------------------- the fragments' files
    Case(
        "fragment-value-conflict",
        steps(
            two(fragment='{\n  "network": {"httpProxyPort": 1234}\n}\n'),
            write(SRT, '{\n  "network": {"httpProxyPort": 8080}\n}\n'),
        ),
        GEN_W,
        TWO_SRT,
        "TWS016",
        "'/network/httpProxyPort' is 1234 in fragment 'two' but 8080 in fragment 'base'",
        2,
        32,
    ),
    Case(
        "fragment-file-missing",
        config(TWO),
        GEN_W,
        CONFIG,
        "TWS002",
        "fragment 'two': source file does not exist (two.srt.json)",
        11,
        7,  # `srt = "two.srt.json"`
    ),
    Case(
        "fragment-invalid-json",
        two(fragment='{\n  "network": {"httpProxyPort": }\n}\n'),
        GEN_W,
        TWO_SRT,
        "TWS003",
        "invalid JSON",
        2,
        32,
    ),
    Case(
        "fragment-outside-repository",
        two(old='srt = "two.srt.json"', new='srt = "../outside.json"'),
        GEN_W,
        CONFIG,
        "TWS005",
        "the srt file of fragment two (~/outside.json) resolves to ~/outside.json, outside",
        11,
        7,
    ),
    Case(
        "fragment-unknown-key",
        two(old='srt = "two.srt.json"', new='srtt = "two.srt.json"'),
        GEN_W,
        CONFIG,
        "TWS101",
        "unknown key 'srtt' in '/fragments/two'; did you mean 'srt'?",
        11,
        1,
    ),
    Case(
        "fragment-bash-rules-number",
        two(old='srt = "two.srt.json"', new='srt = "two.srt.json"\nbash_rules = 3'),
        GEN_W,
        CONFIG,
        "TWS102",
        "expected a string, got number 3",
        12,
        14,
    ),
    Case(
        "fragment-path-nul",
        two(old='srt = "two.srt.json"', new='srt = "two\\u0000.json"'),
        GEN_W,
        CONFIG,
        "TWS001",
        "the srt file of fragment two: the path holds a NUL byte",
        11,
        7,  # `srt = "two\u0000.json"`
    ),
    # ---------------------------------------------------------- project scope
    Case(
        "project-and-managed",
        config(PROJECT + '\n[managed]\nroot = "m"\n'),
        GEN_W,
        CONFIG,
        "TWS001",
        "[project] and [managed] exclude each other",
        8,
        2,
    ),
    *(
        Case(
            f"project-flag-missing-{name}",
            config(DEFAULT_CONFIG),
            (*args, "--project", "nosuch"),
            CONFIG,
            "TWS018",
            "--project nosuch does not exist; a project root is an existing directory",
        )
        for name, args in (("generate-w", GEN_W), ("diff", ("diff",)), ("check", ("check",)))
    ),
    Case(
        "project-flag-is-a-file",
        config(DEFAULT_CONFIG),
        ("generate", "-w", "--project", BASH),
        CONFIG,
        "TWS018",
        "--project bash-rules.json is not a directory",
    ),
    Case(
        "project-flag-name-too-long",
        config(DEFAULT_CONFIG),
        ("generate", "-w", "--project", "p" * 300),
        CONFIG,
        "TWS018",
        "longer than the file system allows",
    ),
    Usage(
        "project-flag-with-managed",
        ("generate", "--project", "p", "--managed", "m"),
        ("Error: --project and --managed exclude each other",),
    ),
    Case(
        "project-root-outside-repository",
        config(PROJECT.replace('"."', '"../.."')),
        GEN_W,
        CONFIG,
        "TWS005",
        "outside the repository",
        6,
        8,
    ),
    Case(
        "project-root-missing",
        config(PROJECT.replace('"."', '"nosuch"')),
        GEN_W,
        CONFIG,
        "TWS018",
        "[project] root nosuch does not exist",
        6,
        8,
    ),
    Case(
        "project-agents-unknown",
        config(PROJECT + 'agents = ["nosuch"]\n'),
        GEN_W,
        CONFIG,
        "TWS001",
        "unknown agent 'nosuch' (known: claude, codex, copilot, deepcode, gemini, qwen, "
        "opencode, kilo, pi, droid)",
        7,
        10,
    ),
    Case(
        "project-agents-string",
        config(PROJECT + 'agents = "claude"\n'),
        GEN_W,
        CONFIG,
        "TWS102",
        'expected an array, got string "claude"',
        7,
        10,
    ),
    Case(
        "project-agents-twice",
        config(PROJECT + 'agents = ["claude", "claude"]\n'),
        GEN_W,
        CONFIG,
        "TWS102",
        "has non-unique elements",
        7,
        10,
    ),
    *(
        Case(
            f"project-no-agent-with-a-file-{name}",
            config(PROJECT + f"agents = {agents}\n"),
            GEN_W,
            CONFIG,
            "TWS017",
            "no agent this config selects has a project file",
        )
        for name, agents in (("copilot", '["copilot"]'), ("empty", "[]"))
    ),
    Case(
        "project-check-agent-copilot",
        config(PROJECT),
        ("check", "--agent", "copilot"),
        CONFIG,
        "TWS017",
        "--agent copilot: Copilot has no project file",
    ),
    Case(
        "project-unknown-key",
        config(PROJECT + 'rot = "x"\n'),
        GEN_W,
        CONFIG,
        "TWS101",
        "unknown key 'rot' in '/project'; did you mean 'root'?",
        7,
        1,
    ),
    Case(
        "project-target-outside-root",
        config(PROJECT + '\n[targets]\nclaude_project = "../x.json"\n'),
        GEN_W,
        CONFIG,
        "TWS018",
        "claude_project (~/x.json) resolves to ~/x.json, outside the project root",
        9,
        18,
    ),
    Case(
        "project-yolo",
        config(PROJECT),
        ("generate", "-w", "--yolo"),
        CONFIG,
        "TWS001",
        "--yolo has no project file",
    ),
    # ---------------------------------------------------------- managed scope
    Case(
        "managed-root-required",
        config(MANAGED.replace('root = "managed"\n', "")),
        GEN_W,
        CONFIG,
        "TWS102",
        "'root' is a required property",
        5,
        2,
    ),
    Case(
        "managed-root-number",
        config(MANAGED.replace('"managed"', "5")),
        GEN_W,
        CONFIG,
        "TWS102",
        "expected a string, got number 5",
        6,
        8,
    ),
    Case(
        "managed-root-outside-repository",
        config(MANAGED.replace('"managed"', '"/etc"')),
        ("diff",),
        CONFIG,
        "TWS005",
        "[managed] root (/etc) resolves to /etc, outside the repository",
        6,
        8,
    ),
    Case(
        "managed-unknown-key",
        config(MANAGED + 'roots = "x"\n'),
        GEN_W,
        CONFIG,
        "TWS101",
        "unknown key 'roots' in '/managed'; did you mean 'root'?",
        7,
        1,
    ),
    Case(
        "managed-agents-copilot",
        config(MANAGED + 'agents = ["copilot"]\n'),
        GEN_W,
        CONFIG,
        "TWS017",
        "no agent this config selects has a managed file",
    ),
    Case(
        "managed-check-agent-copilot",
        config(MANAGED),
        ("check", "--agent", "copilot", "--format", "github"),
        CONFIG,
        "TWS017",
        "--agent copilot: Copilot has no managed file",
    ),
    Case(
        "managed-target-outside-root",
        config(MANAGED + '\n[targets]\nclaude_managed_linux = "elsewhere/x.json"\n'),
        GEN_W,
        CONFIG,
        "TWS018",
        "claude_managed_linux (elsewhere/x.json) resolves to elsewhere/x.json, outside the",
        9,
        24,
    ),
    Case(
        "managed-yolo",
        config(MANAGED),
        ("generate", "-w", "--yolo"),
        CONFIG,
        "TWS001",
        "--yolo has no managed file",
    ),
    Case(
        "managed-flag-is-a-file",
        config(DEFAULT_CONFIG),
        ("generate", "-w", "--managed", BASH),
        CONFIG,
        "TWS018",
        "--managed bash-rules.json is not a directory",
    ),
    Case(
        "managed-flag-name-too-long",
        steps(config(DEFAULT_CONFIG), make_dir("out")),
        ("generate", "-w", "--managed", "m" * 300),
        CONFIG,
        "TWS018",
        "longer than the file system allows",
    ),
]


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", params(CASES))
def test_bad_input_scoped(sandbox: Sandbox, case: Case | Usage) -> None:
    run_case(sandbox, case)
