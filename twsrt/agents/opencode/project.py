"""OpenCode's project file: ``opencode.json`` at the project root (project scope, see
``twsrt.scopes``).

The user translation's ``permission`` members, merged into the project's own file as into the
user's (JSONC kept, every byte outside the owned members kept). OpenCode 1.18.33 finds the file
from the directory it starts in up to the git root (rows 14-15 of
docs/agents/opencode-observed.md; TWS670) and merges it after the user's config key by key, so
a user rule after a pattern the project denies, ``OPENCODE_DISABLE_PROJECT_CONFIG`` and
``OPENCODE_PERMISSION`` still win over it (TWS671). ``read``/``edit`` patterns are relative to
the project already, so the same patterns serve. One file serves every launch, ``--auto``
included: the yolo losses are reported as in the user scope.
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.opencode.declaration import LABEL, NAME, PROJECT_KEY
from twsrt.agents.opencode.rules import OPENCODE_PROJECT_LAYER, OPENCODE_PROJECT_MERGED
from twsrt.agents.opencode.settings import MEMBERS, drift_items, merged_text
from twsrt.agents.opencode.translate import translate
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.config import Config
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump


def compile_project(ctx: Context) -> Result:
    """The project file of one run: the permission rules (the file applies to ``--auto``
    launches too, whose approval of asks is reported)."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, True)
    findings = list(found)
    if ctx.full_access:
        what = "OpenCode has no sandbox to remove and the permission rules stay"
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))

    def preview() -> str:
        return dump(compiled.settings(), "  ")

    path = ctx.config.targets.get(PROJECT_KEY)
    if path is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    findings += project_findings(ctx.config, PROJECT_KEY, NAME, LABEL, "OPENCODE")
    files = TargetFiles(ctx.config, ctx.documents)

    def text(disk: str | None, display: str) -> str:
        return merged_text(disk, display, compiled)

    members = MEMBERS.using(ctx.documents)
    files.add(PROJECT_KEY, path, text, drift_items, members.view)
    return files.result(NAME, preview, findings, origins=compiled.origins)


def project_findings(
    config: Config, key: str, agent: str, label: str, prefix: str
) -> list[Finding]:
    """Where the project file binds (TWS670) and what still outranks it (TWS671), at the
    target key; shared with Kilo (``prefix`` spells its variables)."""
    where = config.location(f"/targets/{key}")
    display = config.display_path(config.targets[key])
    return [
        finding(
            OPENCODE_PROJECT_LAYER,
            f"{label} loads {display} when it starts in the project root or a directory "
            "below it (up to the git root); started elsewhere, only the user's and the "
            "managed config bind",
            where,
            agent=agent,
        ),
        finding(
            OPENCODE_PROJECT_MERGED,
            f"{label} merges {display} into the user's config key by key: a user rule written "
            "after a pattern this file denies keeps winning for the calls it matches, "
            f"{prefix}_DISABLE_PROJECT_CONFIG=1 drops the file and {prefix}_PERMISSION is "
            "merged after it; the user's config must not allow more",
            where,
            agent=agent,
        ),
    ]
