"""Generate docs/rules.md from the rule catalog (``python -m twsrt.docs > docs/rules.md``)."""

from __future__ import annotations

from twsrt.findings import CATALOG

FAMILIES = {
    "0": "Loading and parsing",
    "1": "Schema",
    "2": "Policy",
    "3": "Drift",
    "4": "Translation",
    "5": "Engine gaps (twsrt test)",
}


def render_rules_markdown() -> str:
    lines = [
        "# twsrt rules",
        "",
        "Generated from the rule catalog (`twsrt/findings.py`) by `python -m twsrt.docs`; a test",
        "fails when this file is stale. `twsrt explain <id>` prints the same help. Rule ids never",
        "change once released. Suppress a finding with `[[check.ignore]]` in the config",
        "(`rule`, optional `path` glob, `pointer` glob and `agent`, and a required `reason` of at",
        "least 10 characters and two words); a suppressed finding stays in SARIF, marked as",
        "suppressed with the reason. Loading, parse, config, file-safety and schema errors cannot "
        "be suppressed: "
        + ", ".join(
            rule.id
            for rule in sorted(CATALOG.values(), key=lambda r: r.id)
            if not rule.suppressible
        )
        + " (an entry naming one is reported as TWS008).",
        "",
        "| id | name | default level | summary |",
        "|---|---|---|---|",
    ]
    rules = sorted(CATALOG.values(), key=lambda r: r.id)
    for rule in rules:
        lines.append(
            f"| [{rule.id}](#{rule.anchor}) | {rule.name} | {rule.level.value} | {rule.short} |"
        )
    family = None
    for rule in rules:
        if rule.id[3] != family:
            family = rule.id[3]
            lines += ["", f"## {FAMILIES.get(family, 'Other')}"]
        lines += [
            "",
            f'<a id="{rule.anchor}"></a>',
            f"### {rule.id} {rule.name}",
            "",
            f"Default level: **{rule.level.value}**. {rule.short}"
            + ("" if rule.suppressible else " Cannot be suppressed."),
            "",
            rule.help,
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_rules_markdown(), end="")
