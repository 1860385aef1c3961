"""What Claude Code's sandbox leaves writable for a later launch, and what its settings close.

Observed with Claude Code 2.1.332 (tests/real/test_claude_layers.py): by itself Claude keeps
sandboxed commands from its own settings files and srt's mandatory-deny set (shell rc files,
``.gitconfig``, ``.mcp.json``, ``.vscode/``, ``.git/hooks``, ...) in the directory it starts in
only. A command may still

- create a config layer below that directory (``sub/.claude/settings.json`` with
  ``sandbox.enabled: false``, a hook, ``sub/.mcp.json``), which a Claude started in ``sub/``
  loads: the sandbox is off, the hook and the MCP server run outside it;
- write the mandatory-deny set of any other write root (``~/.bashrc`` under ``allowWrite: ~``,
  ``~/dev/.git/hooks`` started in ``~/dev/app``), and another agent's layer
  (``.codex/config.toml``) in the launch directory.

Every Claude file twsrt writes therefore carries, for each protected name
(``agents/rootnames.py``: srt's mandatory set and every registered agent's project layers):

- ``Edit(NAME)`` deny rules: relative, so Claude merges them into its sandbox at the working
  directory and refuses Bash there (the mandatory names are refused there already). Not for
  names under ``.git/`` or ``.github/``: srt puts an empty read-only directory where the first
  missing part of a denied path would be, so a launch directory without them could get no
  ``git init`` and no first workflow inside the sandbox (srt itself protects the launch
  directory's ``.git`` only when there is one);
- ``Edit(//**/NAME)``: Claude's own file tools at any depth, in every mode (bypassPermissions
  too, where they otherwise write a layer unasked);
- ``NAME`` under every write root that is no glob, in ``sandbox.filesystem.denyWrite``.

What stays open is a layer Bash creates below the launch directory or a write root: srt leaves
glob write denies out on Linux. ``check`` reports it (TWS628, effective_layers.py) with
the mitigation, the managed scope, whose ``sandbox.enabled``, ``allowManagedHooksOnly`` and
``allowedMcpServers`` bind every launch (agents/claude/managed.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from twsrt.agents.claude.declaration import Managed
from twsrt.agents.rootnames import of, under
from twsrt.agents.targets import unique
from twsrt.policy import Policy, is_glob

if TYPE_CHECKING:
    from twsrt.agents.base import Once

# names a launch directory must stay able to create inside the sandbox (see above)
CREATED_AT_WORK = (".git/", ".github/")


def permission_rules(policy: Policy) -> list[str]:
    """The ``Edit`` deny rules: each name ``policy`` protects at the working directory (but
    ``CREATED_AT_WORK``) and at any depth."""
    at_work = [(n, t) for n, t in of(policy) if not n.startswith(CREATED_AT_WORK)]
    anywhere = [(f"//**/{n}", t) for n, t in of(policy)]
    rules: list[str] = []
    for spelled, tree in (*at_work, *anywhere):
        rules.append(f"Edit({spelled})")
        if tree:
            rules.append(f"Edit({spelled}/**)")
    return rules


def root_denies(write_roots: list[str], policy: Policy) -> list[str]:
    """Each protected name under every write root Claude gets that is no glob (the working
    directory, ``.``, is covered by the relative ``Edit`` rules)."""
    denies: list[str] = []
    for root in write_roots:
        if is_glob(root) or root in (".", "./"):
            continue
        denies += under(root, policy)
    return denies


def protect(managed: Managed, policy: Policy, once: Once | None = None) -> None:
    """Add the protected names to the translated sections (in place, after the policy's own
    rules): the ``Edit`` deny rules, and the write-root denies when there are write roots.
    ``once``: the run's ``Context.once``, so that both modes of a check, which mostly give the
    same lists (at 50k rules ~90,000 names under the roots), make them once."""
    deny = managed.deny
    managed.deny = _shared(once, ("deny", deny), lambda: unique([*deny, *permission_rules(policy)]))
    filesystem = managed.sandbox.get("filesystem")
    if not isinstance(filesystem, dict):
        return
    roots = [root for root in filesystem.get("allowWrite") or [] if root]
    written = filesystem.get("denyWrite") or []

    def deny_write() -> list[str]:
        extra = root_denies(roots, policy)
        return unique([*written, *extra]) if extra else []

    merged = _shared(once, ("denyWrite", roots, written), deny_write)
    if merged:
        filesystem["denyWrite"] = merged


def _shared(once: Once | None, key: tuple[Any, ...], make: Callable[[], list[str]]) -> list[str]:
    """``make()``, or a copy of the run's one for the same lists (strings only: a key of
    other JSON values is not hashable, so those are made again)."""
    lists = key[1:]
    if once is None or not all(set(map(type, items)) <= {str} for items in lists):
        return make()
    return list(once(("claude", key[0], *map(tuple, lists)), make))
