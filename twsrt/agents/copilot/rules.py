"""Copilot CLI's own rules, taken into the catalog through its declaration (``rules``): an ask
rule its flags can only deny (TWS420) and srt's mandatory-deny set its sandbox leaves writable
(TWS471)."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

LOSSY_ASK_AS_DENY = Rule(
    "TWS420",
    "lossy-ask-as-deny",
    Family.TRANSLATION,
    Level.NOTE,
    Basis.STRICTER,
    "A bash ask rule is enforced as a deny because the agent has no ask tier.",
    "Copilot CLI can only allow or deny a tool pattern, so an ask rule becomes "
    "`--deny-tool 'shell(cmd)'`: stricter than the policy, never weaker. Yolo mode skips ask "
    "rules, as it does for every agent.",
)

COPILOT_MANDATORY_NAMES_OPEN = Rule(
    "TWS471",
    "copilot-mandatory-names-open",
    Family.TRANSLATION,
    Level.ERROR,
    Basis.WIDENS,
    "Copilot's sandbox lets a command write srt's mandatory-deny set, which runs outside it later.",
    "srt keeps sandboxed commands from shell rc and profile files, `.gitconfig`, "
    "`.gitmodules`, `.ripgreprc`, `.mcp.json`, `.vscode/`, `.idea/`, `.claude/commands`, "
    "`.claude/agents` and a repository's `.git/hooks` and `.git/config` in its working "
    "directory, whatever the policy says. Copilot CLI 1.0.102 protects none of them: a real "
    "run under the settings twsrt wrote created `.git/hooks/pre-commit` (run by the next "
    "`git commit`), `.bashrc`, `.vscode/tasks.json` and `.mcp.json` in the directory it "
    "started in and under a write root, and another agent's config layer "
    "(`sub/.claude/settings.json`, which a later Claude loads). twsrt adds each name (and "
    "every agent's project layer) under every write root to `readonlyPaths`; Copilot skips an "
    "entry that does not exist when it starts, so that holds for what is there (an existing "
    "repository's hooks and config) and nothing covers the launch directory, which Copilot "
    "takes only as `addCurrentWorkingDirectory`. Copilot's own layers below it are no way in: "
    "a planted `.github/copilot/settings.json` did not switch its sandbox off or widen it, and "
    "planted hooks and MCP servers ran inside the sandbox.\n\n"
    "Mitigation: start Copilot where the repository and its tool settings already exist, list "
    "the project as an absolute write root instead of `.`, or run Copilot under srt, which "
    "protects the set in its working directory. Suppress with the reason when one of these "
    "holds.",
)
