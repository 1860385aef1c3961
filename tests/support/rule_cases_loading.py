"""Rule-table cases: what refuses a config, a source, a target or a report before anything
is compiled (each such error stops the run, so each has a fixture of its own)."""

from __future__ import annotations

from collections.abc import Callable

from support.rule_cases import PROFILES, Case, config
from support.sandbox import DEFAULT_CONFIG, Sandbox

CLAUDE = 'claude_settings = "home/.claude/settings.full.json"\n'
GEN_W = (("generate", "-w"),)
CHECK = (("check",),)

TWO = PROFILES.format(base=".srt-settings.json", two="two.srt.json")

PROJECT = """\
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[project]
root = "."
"""


def remove(relative: str) -> Callable[[Sandbox], None]:
    def setup(box: Sandbox) -> None:
        (box.repo / relative).unlink()

    return setup


def symlink(relative: str, target: str) -> Callable[[Sandbox], None]:
    def setup(box: Sandbox) -> None:
        path = box.repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)

    return setup


def generated_on_another_machine(box: Sandbox) -> None:
    """The targets written with another HOME, as the same repository on another machine."""
    other = box.home.parent / "elsewhere"
    other.mkdir()
    assert box.run("generate", "-w", HOME=str(other)).returncode == 0


CASES = [
    Case(
        "config-invalid-toml",
        {"TWS001": "twsrt.toml:1:12"},
        CHECK,
        files={"twsrt.toml": "checkout = \n"},
    ),
    Case("config-not-found", {"TWS013": "twsrt.toml"}, CHECK, setup=remove("twsrt.toml")),
    Case(
        "source-missing",
        {
            "TWS002": "missing.json",
        },
        CHECK,
        files={"twsrt.toml": DEFAULT_CONFIG.replace(".srt-settings.json", "missing.json")},
    ),
    Case(
        "source-unparsable",
        {"TWS003": ".srt-settings.json:2:1"},
        CHECK,
        files={".srt-settings.json": "{\n"},
    ),
    Case(
        "source-duplicate-key",
        {"TWS103": "bash-rules.json:1:14"},
        CHECK,
        files={"bash-rules.json": '{"deny": [], "deny": []}\n'},
    ),
    Case(
        "schema-error",
        {
            "TWS101": "twsrt.toml:2:1",
            "TWS102": "twsrt.toml:1:12",
        },
        CHECK,
        files={
            "twsrt.toml": DEFAULT_CONFIG.replace(
                'checkout = "~/dotfiles"', "checkout = 1\nbogus = 2"
            )
        },
    ),
    Case(
        "target-unusable",
        {
            "TWS004": "home/.claude/settings.full.json:1:1",
            "TWS608": "home/.claude/settings.full.json:1:1",
        },
        CHECK,
        files={"home/.claude/settings.full.json": "[]\n"},
    ),
    Case(
        "target-outside-repository",
        {
            "TWS005": "twsrt.toml:9:19",
        },
        CHECK,
        files={"twsrt.toml": config('claude_settings = "../elsewhere/settings.full.json"\n')},
    ),
    Case(
        "target-collision",
        {
            "TWS006": "twsrt.toml:10:24",
        },
        CHECK,
        files={
            "twsrt.toml": config(
                CLAUDE + 'claude_settings_yolo = "home/.claude/settings.full.json"\n'
            )
        },
    ),
    Case(
        "ignore-not-allowed",
        {
            "TWS008": "twsrt.toml:12:8",
            "TWS215": ".srt-settings.json:4:7",
        },
        CHECK,
        files={
            "twsrt.toml": config(
                CLAUDE, '\n[[check.ignore]]\nrule = "refused-domain"\nreason = "every host"\n'
            ),
            ".srt-settings.json": {"network": {"allowedDomains": ["*"], "deniedDomains": []}},
        },
    ),
    Case(
        "settings-link-foreign",
        {
            "TWS010": "home/.claude/settings.json",
        },
        GEN_W,
        files={"stow/settings.json": "{}\n"},
        setup=symlink("home/.claude/settings.json", "../../stow/settings.json"),
    ),
    Case(
        "drift-unpinned-home",
        {
            "TWS012": "home/.copilot/settings.json:15:1",
        },
        CHECK,
        files={"twsrt.toml": config('copilot_settings = "home/.copilot/settings.json"\n', head="")},
        setup=generated_on_another_machine,
    ),
    Case(
        "profile-invalid",
        {
            "TWS014": "twsrt.toml:16:2",
        },
        CHECK,
        files={"twsrt.toml": TWO + '\n[sources]\nsrt = "x.json"\n', "two.srt.json": "{}\n"},
    ),
    Case(
        "profile-not-selected",
        {
            "TWS015": "twsrt.toml:10:2",
        },
        (("check", "--profile", "nosuch"),),
        files={"twsrt.toml": TWO, "two.srt.json": "{}\n"},
    ),
    Case(
        "fragment-value-conflict",
        {
            "TWS016": "two.srt.json:3:22",
        },
        CHECK,
        files={
            "twsrt.toml": TWO,
            "two.srt.json": {"network": {"httpProxyPort": 1234}},
            ".srt-settings.json": {"network": {"httpProxyPort": 8080}},
        },
    ),
    Case(
        "scope-agent-unavailable",
        {
            "TWS017": "twsrt.toml",
        },
        (("check", "--agent", "copilot"),),
        files={"twsrt.toml": PROJECT},
    ),
    Case(
        "scope-target-outside-root", {"TWS018": "twsrt.toml"}, (("check", "--project", "nosuch"),)
    ),
    Case(
        "vcs-metadata-path",
        {
            "TWS019": "twsrt.toml:10:24",
        },
        CHECK,
        files={"twsrt.toml": config(CLAUDE + 'claude_settings_yolo = ".git/hooks/pre-commit"\n')},
    ),
    Case(
        "target-key-unused",
        {
            "TWS020": "twsrt.toml:9:19",
        },
        CHECK,
        files={"twsrt.toml": PROJECT + '\n[targets]\nclaude_settings = "x.json"\n'},
    ),
    Case(
        "report-unwritable",
        {
            "TWS023": "report.json",
        },
        (("check", "--json", "report.json"),),
        setup=symlink("report.json", "/nonexistent/report.json"),
    ),
]
