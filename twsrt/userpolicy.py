"""``check`` in project scope: the user policy a project names (``[project] user_config``, and
``user_profile``), read, and the project policy compared with it (``narrowing``).

The user's files lie outside the project repository, so they are read unconfined, as the user's
own run reads them; a user policy that cannot be read or is invalid is one error at the key
(TWS227: the comparison could not be made), and a project table that names none is an error too
(TWS226: nothing to compare with, so a hostile checkout cannot check green by leaving the key
out; a project used on its own suppresses it with a reason).
"""

from __future__ import annotations

from pathlib import Path

from twsrt.config import Config
from twsrt.findings import Finding, TwsrtError, finding, quoted
from twsrt.policy import Policy
from twsrt.rules import NARROWING_UNCHECKED, USER_POLICY_UNREADABLE


def narrowing_check(policy: Policy, config: Config, agents: list[str]) -> list[Finding]:
    """The findings of comparing this project-scope run's ``policy`` with the user policy its
    config names; ``agents``: the agents the run compiles (whether a left-out user restriction
    widens depends on them). A run without a ``[project]`` table (``--project DIR`` on a
    dotfiles config) compiles the user's own policy: nothing to compare."""
    data = config.positions.value if config.positions is not None else {}
    table = data.get("project")
    if config.scope != "project" or not isinstance(table, dict):
        return []
    raw = table.get("user_config")
    if raw is None:
        message = (
            "this project policy is not checked against a user policy: set `user_config` "
            "in [project] to the twsrt config of the policy it must narrow"
        )
        return [finding(NARROWING_UNCHECKED, message, config.location("/project"))]
    try:
        user, user_home = _load_user(config.resolve(raw), config, table.get("user_profile"))
    except TwsrtError as exc:
        return [_unreadable(config, raw, exc.findings)]
    from twsrt.agents import label
    from twsrt.hostchecks import host_anchors
    from twsrt.narrowing import MERGING_AGENTS, MERGING_RULES_AGENTS, narrowing_findings

    root = config.scope_root or config.path.parent
    anchors = host_anchors(config.home, root, config.pinned_home or user_home)
    replacing = [label(name) for name in agents if name not in MERGING_AGENTS]
    rules = [label(name) for name in agents if name not in MERGING_RULES_AGENTS]
    return narrowing_findings(
        policy, user, anchors=anchors, replacing=replacing, replacing_rules=rules
    )


def load_user_policy(path: Path, config: Config, profile: str | None) -> Policy:
    """The policy of the twsrt config at ``path`` (see ``_load_user``)."""
    return _load_user(path, config, profile)[0]


def _load_user(path: Path, config: Config, profile: str | None) -> tuple[Policy, str | None]:
    """The policy of the twsrt config at ``path`` (its ``profile`` when named, else that
    config's own choice: $TWSRT_PROFILE, hosts, default), read as the user's own run reads it;
    files are named as this run names them. The project run's ``--profile`` names a profile
    of the project's config, never of the user's. Also the home that config pins."""
    from twsrt.config import PROFILE_OPTION, load_config
    from twsrt.sources import load_policy

    token = PROFILE_OPTION.set(None)
    try:
        user = load_config(
            path, config.home, Path.cwd(), display_root=config.display_root, profile=profile
        )
    finally:
        PROFILE_OPTION.reset(token)
    return load_policy(user), user.pinned_home


def _unreadable(config: Config, raw: str, problems: list[Finding]) -> Finding:
    first = problems[0].render() if problems else "no policy"
    message = (
        f"the user policy '{quoted(raw)}' names cannot be read, so this project policy was not "
        f"checked against it: {first}"
    )
    related = tuple(problem.location for problem in problems[:5])
    where = config.location("/project/user_config")
    return finding(USER_POLICY_UNREADABLE, message, where, related=related)
