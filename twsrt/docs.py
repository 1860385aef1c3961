"""Generate docs/rules.md from the rule catalog (``python -m twsrt.docs > docs/rules.md``)."""

from __future__ import annotations

from twsrt.rules import CATALOG, Basis, Family

# The level policy: why a rule is an error, a warning or a note. Every rule names one basis
# (`Rule.basis`), and a test keeps its level equal to the basis's.
LEVEL_POLICY = [
    "## Levels",
    "",
    "Every rule has one basis, and the basis fixes its level:",
    "",
    "| basis | level | meaning |",
    "|---|---|---|",
]
BASIS_MEANING = {
    Basis.WIDENS: "the agent is, or may be, granted more than the policy: a user key that undoes "
    "it, a generated file that drifted from it, a sandbox switched off",
    Basis.CANNOT_CHECK: "a check could not be made or a rule could not be compiled: a file that "
    "cannot be read or parsed, a schema violation, a rule the agent's format cannot hold "
    "(nothing is written)",
    Basis.DROPS: "an agent enforces less than the policy says: it drops a rule, or cannot "
    "enforce it on some platform",
    Basis.STRICTER: "an agent enforces more than the policy says: a stricter approximation (Codex "
    "denies reads of a write-only glob, Copilot denies an ask rule outright, Codex asks before a "
    "bash allow leaves its sandbox, a grant that cannot be written is left out)",
    Basis.INFO: "nothing is lost or gained, but it is worth knowing (a pattern anchored at the "
    "launch directory, an unpinned home, a layer that could replace twsrt's lists)",
}
LEVEL_NOTES = [
    "",
    "A rule whose loss depends on the policy has two ids: the warning where something is lost "
    "and a note where it is not (DeepCode ignores deniedDomains: TWS433 when an allowed pattern "
    "admits the denied host, TWS440 when its allow-list blocks it anyway; DeepCode's Linux "
    "sandbox applies no deny: TWS432 for a path inside what it mounts, TWS444 for one outside). "
    "A level is never lowered to hide a loss: a glob that srt on Linux skips (TWS501) or that "
    "Codex expands once (TWS412) is a warning, and a careful policy avoids it (name "
    "directories). A clean, well-written policy, such as `examples/dotfiles` or a fresh "
    "`twsrt init --repo`, checks with no warnings. `twsrt check` hides notes unless `-v`; "
    "`generate` prints its errors and a count line when there is a warning, and the whole list "
    "with `-v`.",
]


def render_rules_markdown() -> str:
    lines = [
        "# twsrt rules",
        "",
        "Generated from the rule catalog (`twsrt/rules/`) by `python -m twsrt.docs`; a test fails",
        "when this file is stale. `twsrt explain <id>` prints the same help. Rule ids never change",
        "once released. Suppress a finding with `[[check.ignore]]` in the config",
        "(`rule`, optional `path` glob, `pointer` glob and `agent`, and a required `reason` of at",
        "least 10 characters and two words); a suppressed finding is left out of `--sarif`",
        "(code scanning would show it as an open alert) and kept, marked as suppressed with the",
        "reason, by `--sarif-suppressed`. Loading, parse, config, file-safety and schema errors "
        "cannot "
        "be suppressed: "
        + ", ".join(
            rule.id
            for rule in sorted(CATALOG.values(), key=lambda r: r.id)
            if not rule.suppressible
        )
        + " (an entry naming one is reported as TWS008).",
        "",
        *LEVEL_POLICY,
        *(f"| `{b.value}` | {b.level.value} | {BASIS_MEANING[b]} |" for b in Basis),
        *LEVEL_NOTES,
        "",
        "## Catalog",
        "",
        "| id | name | default level | basis | summary |",
        "|---|---|---|---|---|",
    ]
    rules = sorted(CATALOG.values(), key=lambda r: r.id)
    for rule in rules:
        lines.append(
            f"| [{rule.id}](#{rule.anchor}) | {rule.name} | {rule.level.value} | "
            f"{rule.basis.value} | {rule.short} |"
        )
    family: Family | None = None
    for rule in rules:
        if rule.family is not family:
            family = rule.family
            lines += ["", f"## {family.heading}"]
        lines += [
            "",
            f'<a id="{rule.anchor}"></a>',
            f"### {rule.id} {rule.name}",
            "",
            f"Default level: **{rule.level.value}** ({rule.basis.value}). {rule.short}"
            + ("" if rule.suppressible else " Cannot be suppressed."),
            "",
            rule.help,
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_rules_markdown(), end="")
