"""Codex's project layer: ``<project>/.codex/config.toml`` and ``.codex/rules/twsrt.rules``.

Observed with Codex 0.171.0 (tests/real/test_codex_project.py):

- Codex loads ``.codex/config.toml`` and ``.codex/rules/*.rules`` of the directories from the
  project root (the git root above the launch directory) down to where it starts, each only
  when the user's ``config.toml`` trusts that directory (its own ``[projects."<dir>"]`` entry,
  else the root's); otherwise it ignores them (effective_project.py reports that).
- The layer takes ``default_permissions``, ``[permissions.*]``, ``[features] network_proxy``
  and the approval keys, and it wins over the user's ``config.toml``. A ``[permissions.NAME]``
  table of the same name as one of the user's is merged key by key into the user's, which
  keeps the user's write roots that the project policy does not grant; so the project profile
  has a name of its own (``twsrt-project``) and is selected by the layer.
- ``:workspace_roots`` is the directory Codex starts in, not the project root (a relative
  ``workspace_roots`` key resolves against it too, so ``".."`` would name the project's parent
  when Codex starts in the root): the policy's relative paths cover the project exactly when
  Codex starts in its root. Started in a subdirectory, a relative deny covers only that
  subdirectory (TWS458, a note, as TWS207) and a relative write root lies below it (TWS457).
"""

from __future__ import annotations

from twsrt.agents.codex.declaration import NAME, OWNED_TOP, WORKSPACE, Compiled, _lossy
from twsrt.agents.codex.paths import _relative
from twsrt.agents.codex.rules import CODEX_LAUNCH_ANCHORED_DENY, CODEX_LAUNCH_ANCHORED_WRITE
from twsrt.agents.codex.translate import translate
from twsrt.agents.targets import Members
from twsrt.findings import Finding, quoted
from twsrt.policy import Policy

PROJECT_PROFILE = "twsrt-project"

CONFIG_KEY = "codex_project_config"
RULES_KEY = "codex_project_rules"


def translate_project(
    policy: Policy, sandbox_mode: str = "workspace-write", home: str | None = None
) -> tuple[Compiled, list[Finding]]:
    """The policy as Codex's project layer: the user profile's translation (``translate``)
    under the project's own profile name, which the layer selects."""
    compiled, findings = translate(policy, sandbox_mode, home)
    compiled.name = PROJECT_PROFILE  # also what danger-full-access removes
    if not compiled.profile:  # danger-full-access: the layer selects Codex's built-in profile
        return compiled, findings
    compiled.top["default_permissions"] = PROJECT_PROFILE
    filesystem = compiled.profile.get("filesystem", {})
    scoped = filesystem.get(WORKSPACE, {}) if isinstance(filesystem, dict) else {}
    if isinstance(scoped, str):  # the launch directory alone: ``":workspace_roots" = "write"``
        scoped = {".": scoped}
    writable = {sub for sub, mode in scoped.items() if mode == "write"}
    findings += _launch_anchored_roots(policy, writable)
    findings += _launch_anchored_denies(policy)
    return compiled, findings


def _launch_anchored_roots(policy: Policy, writable: set[str]) -> list[Finding]:
    """Codex anchors ``:workspace_roots`` entries at the directory it starts in. Started in a
    subdirectory, a relative write root below it is writable, which the policy does not grant
    unless the project itself (``.``) is a write root (the subdirectory then lies in it)."""
    if "." in writable:
        return []
    roots = [rule for rule in policy.allow_write if _relative(rule.path)]
    return [
        _lossy(
            CODEX_LAUNCH_ANCHORED_WRITE,
            f"Codex anchors relative write root '{quoted(rule.path)}' at the directory it "
            "starts in, not at the project root: started in a subdirectory, that directory's "
            f"'{quoted(_plain(rule.path))}' is writable instead; grant the project ('.') or "
            "always start Codex in the project root",
            rule.origin,
        )
        for rule in roots
        if _plain(rule.path) in writable
    ]


def _launch_anchored_denies(policy: Policy) -> list[Finding]:
    """Started in a subdirectory, Codex enforces a relative deny only below it."""
    rules = [*policy.deny_read, *(rule for rule in policy.deny_write if not rule.echo)]
    return [
        _lossy(
            CODEX_LAUNCH_ANCHORED_DENY,
            f"Codex anchors relative deny '{quoted(rule.path)}' at the directory it starts in: "
            "started in a subdirectory of the project, it covers only that subdirectory; start "
            "Codex in the project root",
            rule.origin,
        )
        for rule in rules
        if _relative(rule.path)
    ]


def _plain(path: str) -> str:
    path = path.removesuffix("/**").removeprefix("./")
    return path.rstrip("/") or "."


# What twsrt owns in the project layer, for drift and reports: as in the user's config.toml,
# with the project profile in place of the user's.
PROJECT_CONFIG = Members(
    {
        **dict.fromkeys(OWNED_TOP, True),
        "features": {"network_proxy": True},
        "permissions": {PROJECT_PROFILE: True},
    },
    kind="toml",
)

__all__ = [
    "CONFIG_KEY",
    "NAME",
    "PROJECT_CONFIG",
    "PROJECT_PROFILE",
    "RULES_KEY",
    "translate_project",
]
