"""The protected set: what no command a generated config allows may create, change, rename or
unlink, because a later launch loads it as configuration or runs it outside the sandbox
(docs/never-widen.md, "between launches").

Pure: ``protected_set`` reads the config and the policy (and the agent registry's declared
layers, ``agents.config_layers``), never the host; ``protected_policy`` is the policy every
agent compiles, its ``deny_write`` extended so the shared denyWrite machinery (tree pins, lossy
findings) covers the set as it covers the user's own denies.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from twsrt.agents import config_layers, rootnames, specs
from twsrt.agents.base import Context
from twsrt.config import DEFAULT_SANDBOX_MODE
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location, git_root, repo_root
from twsrt.mandatory import GIT_PROTECTED
from twsrt.policy import PathRule, Policy, is_glob, normalize_path
from twsrt.records import record
from twsrt.rules import BROAD_WRITE_ROOT, POLICY_UNPROTECTED

if TYPE_CHECKING:
    from twsrt.config import Config

# what a protected path is: an agent's config layer, twsrt's own policy files (config,
# sources, the checkout), srt's mandatory-deny set, or a denyRead path (a secret must not be
# overwritten or swapped either)
Kind = Literal["layer", "policy", "mandatory", "secret"]

CLASSIC_DIR = "~/.config/twsrt"  # the classic layout's config directory


@record
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

    return git_root(config.path) is not None


def protected_set(config: Config, policy: Policy) -> tuple[Protected, ...]:
    """Every protected path of this run, in a stable order, each path once (the first reason
    wins): the policy itself, every registered agent's user-level layers and the agent-side
    place of each generated target, and every denyRead path."""
    found: dict[str, Protected] = {}
    for item in (*_policy_files(config), *_layers(config), *_secrets(policy)):
        found.setdefault(normalize_path(item.path), item)
    trees = {path for path, item in found.items() if item.tree and not is_glob(path)}
    # a path below a protected tree is protected with it: one deny, not one per file
    return tuple(item for path, item in found.items() if not _below(path, trees))


def _below(path: str, trees: set[str]) -> bool:
    """Whether a protected tree other than ``path`` itself holds it (spelled alike)."""
    parts = path.split("/")
    return any("/".join(parts[:end]) in trees for end in range(1, len(parts)))


def protected_context(
    config: Config,
    policy: Policy,
    yolo: bool = False,
    sandbox_mode: str = DEFAULT_SANDBOX_MODE,
    sandbox_origin: Location | None = None,
    sandbox_flag: bool = False,
) -> Context:
    """The run context every agent compiles: ``policy`` with the protected set write-denied
    (``written`` keeps it as the sources write it). The one maker of a ``Context``, so no caller
    compiles without the set; applied again to a protected policy it changes nothing."""
    protected = protected_policy(policy, protected_set(config, policy))
    return Context(
        config, protected, yolo, sandbox_mode, sandbox_origin, sandbox_flag, written=policy
    )


def protected_policy(policy: Policy, protected: tuple[Protected, ...]) -> Policy:
    """``policy`` with every protected path the policy does not already deny for writing added
    to ``deny_write`` (each rule keeps the protected entry's origin), so every agent compiles it
    through its denyWrite translation; and the names every write root protects
    (``rootnames``: srt's mandatory set and every registered agent's project layers)."""
    policy = with_root_names(policy)
    denied = {normalize_path(rule.path) for rule in policy.deny_write}
    trees = {path for path in denied if not is_glob(path)}
    literal = {normalize_path(rule.path): rule.literal for rule in policy.deny_read}
    extra: list[PathRule] = []
    for item in protected:
        path = normalize_path(item.path)
        if path in denied or _below(path, trees):
            continue
        denied.add(path)
        if item.kind == "secret":  # a literal denyRead path stays literal
            extra.append(PathRule(path, item.origin, literal.get(path, False), echo=True))
        else:
            extra.append(PathRule(path, item.origin))
    if not extra:
        return policy
    # the srt settings agree with the rule lists (a translation that copies the srt list
    # zips it with the rules); pointers of the extra entries are never located, their
    # findings stand at the entry's origin
    srt = dict(policy.srt)
    filesystem = dict(srt.get("filesystem") or {})
    filesystem["denyWrite"] = [*filesystem.get("denyWrite", []), *(r.path for r in extra)]
    srt["filesystem"] = filesystem
    return replace(policy, srt=srt, deny_write=[*policy.deny_write, *extra])


def with_root_names(policy: Policy) -> Policy:
    """``policy`` carrying the names no command may create under a write root, from every
    registered agent's project layers (the translations read them, ``rootnames.of``)."""
    names = rootnames.names(layer for _agent, layer in config_layers("project"))
    return policy if policy.root_names == names else replace(policy, root_names=names)


def protection_findings(config: Config, policy: Policy) -> list[Finding]:
    """A repository config that does not say where it is checked out (TWS228, at the config),
    and write roots that hold the home, the root or the policy itself (TWS229, at the root)."""
    out: list[Finding] = []
    if config.scope == "user" and config.checkout is None and repo_mode(config):
        out.append(
            finding(
                POLICY_UNPROTECTED,
                "the policy repository cannot be protected: no top-level checkout key says "
                "where it is checked out on the machines the agents run on, so a command could "
                "rewrite the policy, its hooks and generated files for the next launch; add "
                'checkout = "~/dotfiles" (the path of this repository there)',
                config.location(""),
            )
        )
    out += _broad_roots(config, policy)
    return out


def _broad_roots(config: Config, policy: Policy) -> list[Finding]:
    """Each allowWrite entry that is ``~``, ``/`` or an ancestor of the checkout or config."""
    home = config.pinned_home

    def expanded(path: str) -> str:
        if home is None or not (path == "~" or path.startswith("~/")):
            return path
        return home.rstrip("/") + path[1:]

    held: list[tuple[str, str]] = [("~", "the home directory")]
    if home is not None:
        held.append((expanded("~"), "the home directory"))
    if config.checkout:
        held.append((normalize_path(config.checkout), "the policy checkout"))
        held.append((expanded(normalize_path(config.checkout)), "the policy checkout"))
    elif not repo_mode(config):
        held.append((home_spelling(config.path, config.home), "the twsrt config"))
    out: list[Finding] = []
    for root in policy.allow_write:
        path = normalize_path(root.path)
        if root.glob or not path.startswith(("/", "~")):
            continue
        what = "the filesystem root" if path == "/" else _holds(path, held)
        if what is None:
            continue
        out.append(
            finding(
                BROAD_WRITE_ROOT,
                f"write root '{quoted(root.path)}' holds {what}: commands may write everything "
                "below it that no deny names (directories on PATH, autostart and service "
                "units, shell and tool configuration); name the directories the work needs",
                root.origin,
            )
        )
    return out


def _holds(root: str, held: list[tuple[str, str]]) -> str | None:
    """What of ``held`` (path, description) lies at or below ``root``."""
    for path, what in held:
        if path == root or path.startswith(root.rstrip("/") + "/"):
            return what
    return None


def _checkout(config: Config) -> list[Protected]:
    """The checkout as one tree; a checkout that is the home or the root (a home directory kept
    in git) file by file instead: the config, sources, fragments, the pre-commit config and
    the repository's hooks and config, spelled below the checkout."""
    if not config.checkout:
        return []
    checkout = normalize_path(config.checkout)
    origin = config.location("/checkout")
    if checkout not in ("~", "/"):
        return [Protected(checkout, True, "policy", "the policy repository (checkout)", origin)]

    root = repo_root(config.path)
    files = [config.path, config.srt, config.bash_rules, root / ".pre-commit-config.yaml"]
    files += list(config.targets.values())
    files += [path for fragment in config.all_fragments.values() for _, path in fragment.files()]
    trees = [root / name for name in GIT_PROTECTED]
    items = []
    for path, tree in [*((path, False) for path in files), *((path, True) for path in trees)]:
        relative = _inside(path, root)
        if relative is not None:
            spelled = f"{checkout.rstrip('/')}/{relative}"
            items.append(
                Protected(spelled, tree, "policy", "a file of the policy repository", origin)
            )
    return items


def _policy_files(config: Config) -> list[Protected]:
    """The checkout (``checkout``) as a tree; a config that names none outside a repository
    (the classic layout): the config file and sources as the config names them, and
    ``~/.config/twsrt`` when the config lies there. Whether a ``.git`` lies above a config that
    names its checkout changes nothing (a copy of the repository compiles the same bytes)."""
    items = _checkout(config)
    if config.scope == "project" and config.scope_root is not None:
        return items + _project_files(config, config.scope_root)
    if config.checkout or repo_mode(config):  # the checkout holds them (or TWS228)
        return items
    home = config.home
    whole = config.location("")  # the config file, at its start
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


def _project_files(config: Config, root: Path) -> list[Protected]:
    """A project's own policy, relative to its root (where Claude anchors a project's relative
    paths; Codex at the directory it starts in, TWS458): the config, sources, fragments, the
    pre-commit config and the project files twsrt generates."""
    whole = config.location("")  # the config file, at its start
    named: list[tuple[Path, str, Location]] = [
        (config.path, "the twsrt config", whole),
        (root / ".pre-commit-config.yaml", "the pre-commit config", whole),
        (config.srt, "a source", config.location("/sources/srt")),
        (config.bash_rules, "a source", config.location("/sources/bash_rules")),
    ]
    for fragment in config.all_fragments.values():
        for kind, path in fragment.files():
            named.append(
                (path, "a fragment", config.location(f"/fragments/{fragment.name}/{kind}"))
            )
    items = []
    for path, why, origin in named:
        relative = _inside(path, root)
        if relative is not None:
            items.append(Protected(relative, False, "policy", why, origin))
    for key, path in config.targets.items():
        relative = _inside(path, root)
        if relative is None:
            continue
        # an agent's project directory (.codex, .claude, .deepcode) as one tree: a deny below
        # it would make Codex pin the directory writable, which it keeps read-only itself
        top, _, rest = relative.partition("/")
        tree = top.startswith(".") and bool(rest)
        why = f"a generated file ({key})"
        origin = config.location(f"/targets/{key}")
        items.append(Protected(top if tree else relative, tree, "policy", why, origin))
    return items


def _inside(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root``, None outside it (the user scope's checkout holds it)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def _layers(config: Config) -> list[Protected]:
    """Every registered agent's user-level layers (a Codex command must not rewrite Claude's
    config either), then where each generated user target and its settings link take effect."""

    whole = config.location("")  # the config file, at its start
    items = [
        Protected(layer.path, layer.tree, "layer", layer.why, whole, agent)
        for agent, layer in config_layers("user")
    ]
    if config.scope != "user":
        return items
    in_repo = bool(config.checkout) or repo_mode(config)
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
    """Where an agent reads a target file: outside a repository the file itself; in one, a
    file at ``PACKAGE/REST`` beside the config takes effect at ``~/REST`` (the stow layout
    ``init --repo`` scaffolds: ``home/`` mirrors ``~``, a profile's ``work/`` too), one at the
    top level at the key's default place."""
    if not in_repo:
        return home_spelling(path, config.home)
    try:
        package, _, rest = path.relative_to(config.path.parent).as_posix().partition("/")
    except ValueError:
        return default
    return f"~/{rest}" if package and rest else default


def _secrets(policy: Policy) -> list[Protected]:
    """Every denyRead path is write-denied too: a secret a command cannot read it must not
    overwrite or swap either (``~/.ssh/authorized_keys`` inside a write root ``~``)."""
    why = "a denyRead path (a secret is not overwritten or swapped either)"
    return [
        Protected(rule.path, not is_glob(rule.path), "secret", why, rule.origin)
        for rule in policy.deny_read
    ]
