"""The protected set: what no command a generated config allows may create, change, rename or
unlink, because a later launch loads it as configuration or runs it outside the sandbox
(docs/never-widen.md, "between launches").

Pure: ``protected_set`` reads the config and the policy (and the agent registry's declared
layers, ``agents.config_layers``), never the host; ``protected_policy`` is the policy every
agent compiles, its ``deny_write`` extended so the shared denyWrite machinery (tree pins, lossy
findings) covers the set as it covers the user's own denies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from twsrt.locations import Location
from twsrt.policy import PathRule, Policy, is_glob, normalize_path

if TYPE_CHECKING:
    from twsrt.config import Config

# srt 0.0.83's mandatory write denies (sandbox-utils.js DANGEROUS_FILES and
# getDangerousDirectories; linux-sandbox-utils.js adds .git/hooks and .git/config of the
# working directory and of every repository its scan finds below it)
MANDATORY_FILES = (
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".ripgreprc",
    ".mcp.json",
)
MANDATORY_DIRS = (".vscode", ".idea", ".claude/commands", ".claude/agents")
GIT_PROTECTED = (".git/hooks", ".git/config")

# what a protected path is: an agent's config layer, twsrt's own policy files (config,
# sources, the checkout), srt's mandatory-deny set, or a denyRead path (a secret must not be
# overwritten or swapped either)
Kind = Literal["layer", "policy", "mandatory", "secret"]

CLASSIC_DIR = "~/.config/twsrt"  # the classic layout's config directory


@dataclass(frozen=True)
class Protected:
    """One protected path, in policy spelling (``~/x``, ``/abs`` or relative to the launch
    directory), with why it is protected and the config or policy entry behind it."""

    path: str
    tree: bool  # everything below it too
    kind: Kind
    why: str
    origin: Location
    agent: str = ""  # the agent whose layer it is ("" for every other kind)


def home_spelling(path: Path, home: Path) -> str:
    """``path`` as a policy names it: from ``~/`` when under the home, else absolute."""
    try:
        rest = path.relative_to(home).as_posix()
    except ValueError:
        return path.as_posix()
    return "~" if rest == "." else f"~/{rest}"


def repo_mode(config: Config) -> bool:
    """Whether the config lives in a git repository (the policy repository layout)."""
    from twsrt.config import git_root

    return git_root(config.path) is not None


def protected_set(config: Config, policy: Policy) -> tuple[Protected, ...]:
    """Every protected path of this run, in a stable order, each path once (the first reason
    wins): the policy itself, every registered agent's user-level layers and the agent-side
    place of each generated target, and every denyRead path."""
    found: dict[str, Protected] = {}
    for item in (*_policy_files(config), *_layers(config), *_secrets(policy)):
        found.setdefault(normalize_path(item.path), item)
    return tuple(found.values())


def protected_policy(policy: Policy, protected: tuple[Protected, ...]) -> Policy:
    """``policy`` with every protected path the policy does not already deny for writing added
    to ``deny_write`` (each rule keeps the protected entry's origin), so every agent compiles it
    through its denyWrite translation."""
    denied = {normalize_path(rule.path) for rule in policy.deny_write}
    extra: list[PathRule] = []
    for item in protected:
        path = normalize_path(item.path)
        if path in denied:
            continue
        denied.add(path)
        extra.append(PathRule(path, item.origin))
    if not extra:
        return policy
    return replace(policy, deny_write=[*policy.deny_write, *extra])


def _policy_files(config: Config) -> list[Protected]:
    """The checkout (``checkout``) as a tree; outside a repository also the config file and
    sources as the config names them, and ``~/.config/twsrt`` when the config lies there."""
    items: list[Protected] = []
    if config.checkout:
        why = "the policy repository (checkout)"
        origin = config.location("/checkout")
        items.append(Protected(normalize_path(config.checkout), True, "policy", why, origin))
    if repo_mode(config):
        return items
    home = config.home
    whole = Location(config.display)
    config_path = home_spelling(config.path, home)
    if config_path.startswith(CLASSIC_DIR + "/"):
        items.append(Protected(CLASSIC_DIR, True, "policy", "twsrt's config directory", whole))
    items.append(Protected(config_path, False, "policy", "the twsrt config", whole))
    named = config.positions.value.get("sources", {}) if config.positions else {}
    for kind, path in (("srt", config.srt), ("bash_rules", config.bash_rules)):
        origin = config.location(f"/sources/{kind}") if kind in named else whole
        items.append(Protected(home_spelling(path, home), False, "policy", "a source", origin))
    for fragment in config.all_fragments.values():
        for kind, path in fragment.files():
            origin = config.location(f"/fragments/{fragment.name}/{kind}")
            spelled = home_spelling(path, home)
            items.append(Protected(spelled, False, "policy", "a fragment", origin))
    return items


def _layers(config: Config) -> list[Protected]:
    """Every registered agent's user-level layers (a Codex command must not rewrite Claude's
    config either), then where each generated user target and its settings link take effect."""
    from twsrt.agents import config_layers, specs

    whole = Location(config.display)
    items = [
        Protected(layer.path, layer.tree, "layer", layer.why, whole, agent)
        for agent, layer in config_layers("user")
    ]
    if config.scope != "user":
        return items
    in_repo = repo_mode(config)
    for agent, spec in ((a.name, t) for a in specs() for t in a.targets):
        path = config.targets.get(spec.key)
        if path is None or spec.scope != "user":
            continue
        placed = _agent_side(config, path, spec.default, in_repo)
        origin = config.location(f"/targets/{spec.key}")
        why = f"a generated target ({spec.key})"
        items.append(Protected(placed, False, "layer", why, origin, agent))
        if spec.link:
            link = placed.rsplit("/", 1)[0] + "/" + spec.link if "/" in placed else spec.link
            why = f"the {spec.link} link"
            items.append(Protected(link, False, "layer", why, origin, agent))
    return items


def _agent_side(config: Config, path: Path, default: str, in_repo: bool) -> str:
    """Where an agent reads a target file: outside a repository the file itself; in one, its
    place under ``~`` when the repository holds it under ``home/`` (the stow layout ``init
    --repo`` scaffolds), else the key's default place."""
    if not in_repo:
        return home_spelling(path, config.home)
    from twsrt.config import repo_root

    try:
        rest = path.relative_to(repo_root(config.path)).as_posix()
    except ValueError:
        return default
    return "~/" + rest.removeprefix("home/") if rest.startswith("home/") else default


def _secrets(policy: Policy) -> list[Protected]:
    """Every denyRead path is write-denied too: a secret a command cannot read it must not
    overwrite or swap either (``~/.ssh/authorized_keys`` inside a write root ``~``)."""
    why = "a denyRead path (a secret is not overwritten or swapped either)"
    return [
        Protected(rule.path, not is_glob(rule.path), "secret", why, rule.origin)
        for rule in policy.deny_read
    ]
