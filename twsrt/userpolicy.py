"""``check`` in project scope: the user policy a project names (``[project] user_config``, and
``user_profile``), read, and the project policy compared with it (``narrowing``).

Where the user policy may lie depends on who named it. ``check --user-config FILE`` (the
command line, the Action's ``args``: the person or the workflow) names it anywhere, and it is
read unconfined, as the user's own run reads it. ``[project] user_config`` is the checkout's
word: in repo mode it, and every file that config reads, stays inside the repository like any
other path (TWS005 at the key, nothing read), so a pull request cannot learn whether
``~/.codex/auth.json`` exists, what it is or which keys it holds. A user policy that cannot be
read or is invalid is one error at the key (TWS227: the comparison could not be made), and a
project table that names none is an error too (TWS226: nothing to compare with, so a hostile
checkout cannot check green by leaving the key out; a project used on its own suppresses it
with a reason).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from twsrt.agents import label, spec_of
from twsrt.config import Config
from twsrt.configload import load_config
from twsrt.findings import Finding, TwsrtError, fail, finding, quoted
from twsrt.hostchecks import host_anchors
from twsrt.locations import Location
from twsrt.narrowing import narrowing_findings
from twsrt.policy import Policy
from twsrt.rules import (
    CONFIG_INVALID,
    NARROWING_UNCHECKED,
    PATH_OUTSIDE_REPOSITORY,
    USER_POLICY_UNREADABLE,
)
from twsrt.safeio import within
from twsrt.sources import load_policy


def narrowing_check(policy: Policy, config: Config, agents: list[str]) -> list[Finding]:
    """The findings of comparing this project-scope run's ``policy`` with the user policy its
    config names; ``agents``: the agents the run compiles (whether a left-out user restriction
    widens depends on them). A run without a ``[project]`` table (``--project DIR`` on a
    dotfiles config) compiles the user's own policy: nothing to compare."""
    data = config.positions.value if config.positions is not None else {}
    table = data.get("project")
    if config.scope != "project" or not isinstance(table, dict):
        return []
    named = config.user_config_option
    raw = config.display_path(named) if named is not None else table.get("user_config")
    if raw is None:
        message = (
            "this project policy is not checked against a user policy: set `user_config` "
            "in [project] to the twsrt config of the policy it must narrow, or name it with "
            "`twsrt check --user-config FILE`"
        )
        return [finding(NARROWING_UNCHECKED, message, config.location("/project"))]
    path = named if named is not None else config.resolve(raw)
    confine = None if named is not None else config.confine_root
    if confine is not None and not within(path, confine):
        return [_outside(config, raw)]
    try:
        user, user_home = _load_user(path, config, table.get("user_profile"), confine)
    except TwsrtError as exc:
        return [_unreadable(config, raw, exc.findings)]

    root = config.scope_root or config.path.parent
    anchors = host_anchors(config.home, root, config.pinned_home or user_home)
    replacing = [label(name) for name in agents if not spec_of(name).project_lists_merge]
    rules = [label(name) for name in agents if not spec_of(name).project_rules_merge]
    return narrowing_findings(
        policy, user, anchors=anchors, replacing=replacing, replacing_rules=rules
    )


def with_user_config(config: Config, path: Path | None) -> Config:
    """``config`` with the user policy ``check --user-config`` names (None: not named); a
    config without a [project] table compares with none, so naming one is a usage error."""
    if path is None:
        return config
    if config.positions is None or "project" not in config.positions.value:
        message = (
            "--user-config: this config has no [project] table, so no project policy is "
            "compared with a user policy"
        )
        raise fail(CONFIG_INVALID, message, Location(config.display))
    return replace(config, user_config_option=path)


def load_user_policy(path: Path, config: Config, profile: str | None) -> Policy:
    """The policy of the twsrt config at ``path`` (see ``_load_user``)."""
    return _load_user(path, config, profile)[0]


def _outside(config: Config, raw: str) -> Finding:
    """``[project] user_config`` outside the repository in repo mode: nothing of it is read
    (only the value as written is named, not what it resolves to on this machine)."""
    message = (
        f"[project] user_config '{quoted(raw)}' lies outside the repository; in "
        "repo mode twsrt reads only files inside it, so this project policy was not checked "
        "against it: name a user policy outside the repository on the command line "
        "(`twsrt check --user-config FILE`; in the GitHub Action, `args: --user-config FILE`)"
    )
    return finding(PATH_OUTSIDE_REPOSITORY, message, config.location("/project/user_config"))


def _load_user(
    path: Path, config: Config, profile: str | None, confine: Path | None = None
) -> tuple[Policy, str | None]:
    """The policy of the twsrt config at ``path`` (its ``profile`` when named, else that
    config's own choice: $TWSRT_PROFILE, hosts, default), read as the user's own run reads it
    (inside ``confine`` when given, its sources too); files are named as this run names them.
    The project run's ``--profile`` names a profile of the project's config, never of the
    user's. Also the home that config pins."""

    user = load_config(
        path, config.home, Path.cwd(), display_root=config.display_root, profile=profile
    )
    return load_policy(user.confined(confine)), user.pinned_home


def _unreadable(config: Config, raw: str, problems: list[Finding]) -> Finding:
    first = problems[0].render() if problems else "no policy"
    message = (
        f"the user policy '{quoted(raw)}' names cannot be read, so this project policy was not "
        f"checked against it: {first}"
    )
    related = tuple(problem.location for problem in problems[:5])
    table = config.positions.value.get("project", {}) if config.positions else {}
    # named by --user-config only: the [project] table stands for it
    where = config.location("/project/user_config" if "user_config" in table else "/project")
    return finding(USER_POLICY_UNREADABLE, message, where, related=related)
