"""A sample check report with one finding of each shape, for the report tests."""

from __future__ import annotations

from pathlib import Path

from twsrt import rules
from twsrt.agents.codex import rules as codex_rules
from twsrt.findings import Finding
from twsrt.locations import Location
from twsrt.report import CheckedFile, CheckReport, Suppression
from twsrt.rules import Level, Rule

DIFF = (
    "--- a/.claude/settings.json\n"
    "+++ b/.claude/settings.json\n"
    "@@ -3,1 +3,2 @@\n"
    '     "deny": [\n'
    '+      "Read(~/.ssh/**)",\n'
)


def _find(rule: Rule, message: str, where: Location, **kw: object) -> Finding:
    level = kw.pop("level", rule.level)
    return Finding(rule.id, message, where, level, **kw)  # type: ignore[arg-type]


def make_report(root: Path, fail_on: Level = Level.ERROR) -> CheckReport:
    """Findings of all three levels, related locations, a diff, unicode, unknown lines."""
    unknown = _find(
        rules.SCHEMA_UNKNOWN_KEY,
        "Unknown key `denyRaed`. Did you mean `denyRead`?",
        Location("srt.json", 4, 5, "/filesystem/denyRaed"),
    )
    drift = _find(
        rules.DRIFT_UNAPPLIED,
        "Managed entries are missing. Run `twsrt generate -w`.",
        Location(".claude/settings.json", 3, 7, "/permissions/deny"),
        agent="claude",
        related=(Location("srt.json", 5, 9, "/filesystem/denyRead/0"), Location("bash.json")),
        diff=DIFF,
    )
    missing = _find(rules.TARGET_MISSING, "Target file does not exist.", Location(".codex/x.toml"))
    duplicate = _find(  # a warning: a glob that Codex expands once
        codex_rules.LOSSY_GLOB_SNAPSHOT,
        "Duplicate „~/.ssh“ entry — 重复 ✓.",
        Location("srt.json", 6, 11, "/filesystem/denyRead/1"),
    )
    lossy = _find(
        codex_rules.LOSSY_BASH_RULE,
        "Allow rule `git status` is not compiled.",
        Location("bash.json", 2, 3, "/allow/0"),
        agent="codex",
    )
    lossy_other = _find(
        codex_rules.LOSSY_BASH_RULE,
        "Allow rule `git status` is not compiled.",
        Location("bash.json", 2, 3, "/allow/0"),
        agent="copilot",
    )
    no_network = _find(
        rules.NO_NETWORK,
        "allowedDomains is empty.",
        Location("my dir/srt.json", 0, 0, "/network/allowedDomains"),
    )
    control = _find(
        rules.DUPLICATE_JSON_KEY, "Key \x1b[1mdeny\x1b[0m twice.", Location("srt.json", 9, 1)
    )
    findings = [unknown, drift, missing, duplicate, lossy, lossy_other, no_network, control]
    findings.append(duplicate)  # an identical finding twice must still get unique names
    hidden = _find(
        rules.CONTRADICTORY_COMMANDS,
        "Command `rm` in deny and ask. SECRET-SUPPRESSED.",
        Location("bash.json", 7, 3, "/ask/0"),
    )
    return CheckReport(
        findings=findings,
        suppressed=[(hidden, Suppression("TWS203", "intended", path="bash.json"))],
        checked=[
            CheckedFile("twsrt.toml", "config"),
            CheckedFile("srt.json", "source"),
            CheckedFile("bash.json", "source"),
            CheckedFile(".claude/settings.json", "target", "claude"),
            CheckedFile(".codex/x.toml", "target", "codex"),
            CheckedFile("srt.json", "source"),  # listed twice: still one testcase
        ],
        fail_on=fail_on,
        root=root,
    )


# --- SARIF ------------------------------------------------------------------------------------
