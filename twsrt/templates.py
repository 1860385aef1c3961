"""Starter files written by ``twsrt init``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from twsrt.agents import spec_of, specs
from twsrt.agents.base import Accepted, AgentSpec
from twsrt.protection import home_spelling
from twsrt.registry import hook_files_regex, indented
from twsrt.schemas import schema_url

_USER_CONFIG_HEAD = """\
#:schema @CONFIG@
# twsrt config: names the canonical sources and the agent files twsrt generates.
# Relative paths resolve against this file's directory; ~/ is your home directory.
# Schema: `twsrt schema config`.

[sources]
srt = "{srt}"                # sandbox runtime (srt) settings: paths and domains
bash_rules = "{bash_rules}"  # allow / deny / ask shell commands

[targets]
"""

_USER_CONFIG_TAIL = """
# What sandboxed commands may touch (read-only, workspace-write, danger-full-access);
# independent of full/yolo, and --sandbox wins:
# [sandbox]
# mode = "workspace-write"

# Claude Code sandbox keys forced per approval mode, applied after the srt values
# (an override that switches the sandbox off while the policy's is on is an error, TWS214):
# [sandbox_overrides.yolo]
# autoAllowBashIfSandboxed = true
# allowUnsandboxedCommands = false
"""

# the agents' lines in registry order (a default agent's uncommented), filled by ``twsrt init``
USER_CONFIG = (
    _USER_CONFIG_HEAD + "".join(spec.config_template for spec in specs()) + _USER_CONFIG_TAIL
).replace("@CONFIG@", schema_url("config"))

SRT_SETTINGS = """\
{
  "$schema": "@SRT@",
  "filesystem": {
    "denyRead": ["~/.aws", "~/.ssh", "~/.gnupg", "~/.netrc"],
    "denyWrite": ["~/.bashrc", "~/.zshrc", "~/.profile", "~/.gitconfig"],
    "allowWrite": [".", "/tmp"]
  },
  "network": {
    "allowedDomains": [
      "github.com",
      "*.github.com",
      "pypi.org",
      "*.pypi.org",
      "registry.npmjs.org"
    ],
    "deniedDomains": []
  }
}
""".replace("@SRT@", schema_url("srt"))

BASH_RULES = """\
{
  "$schema": "@BASH@",
  "allow": ["gh pr view"],
  "deny": ["rm", "sudo", "git push --force"],
  "ask": ["git push", "git commit", "pip install"]
}
""".replace("@BASH@", schema_url("bash"))


def repo_targets() -> dict[str, list[tuple[str, str]]]:
    """Every agent's targets in a dotfiles repository (home/ mirrors ~), in config order."""

    return {
        spec.name: [(t.key, "home/" + t.default[2:]) for t in spec.targets if t.scaffold]
        for spec in specs()
    }


_REPO_CONFIG_HEAD = """\
#:schema @CONFIG@
# twsrt config of a dotfiles repository: paths are relative to this file, and home/ mirrors ~
# (install it with `stow --no-folding -d . -t ~ home`, chezmoi, yadm or your own links).
# @ABSOLUTE@ take absolute paths only: ~ expands with the pinned home directory, so
# that every machine generates the same bytes.
@HOME@
# Where this repository is checked out on the machines the agents run on: every generated file
# write-denies it, so no command an agent runs can rewrite the policy for the next launch.
@CHECKOUT@

[sources]
srt = "policy/srt-settings.json"
bash_rules = "policy/bash-rules.json"

[targets]
""".replace("@CONFIG@", schema_url("config"))


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, [", ".join(names[:-1]), *names[-1:]]))


# the agents whose files hold absolute paths (``AgentSpec.home_dependent``), in registry order
_ABSOLUTE = _listed([spec.label for spec in specs() if spec.home_dependent])
_REPO_CONFIG_HEAD = _REPO_CONFIG_HEAD.replace("@ABSOLUTE@", _ABSOLUTE)

_REPO_CONFIG_TAIL = """
# [sandbox]
# mode = "workspace-write"   # or read-only / danger-full-access (reported on every run)

[sandbox_overrides.yolo]
enabled = true
allowUnsandboxedCommands = false

# [[check.ignore]]
# rule = "lossy-bash-rule"
# agent = "codex"
# reason = "Codex already asks before leaving its sandbox"
"""


def _accepted(agents: Sequence[str]) -> str:
    """The scaffold's accepted findings of the chosen agents (``AgentSpec.accepted``): every
    agent's between-launch gaps, then what lies below the top of a write root."""
    chosen = [spec for spec in specs() if spec.name in agents]
    return "".join(
        _ignore_entry(spec, item)
        for group in ("launch", "roots")
        for spec in chosen
        for item in spec.accepted
        if item.group == group
    )


def _ignore_entry(spec: AgentSpec, item: Accepted) -> str:
    """One accepted finding as the scaffold writes it: its comment, then the entry."""
    rule = item.rule
    entry = (
        f'\n{item.comment}[[check.ignore]]\nrule = "{rule.name}"\nagent = "{spec.name}"\n'
        f'reason = "{item.reason}"\n'
    )
    return entry.replace("@ID@", rule.id).replace("@LABEL@", spec.label)


def repo_config(agents: Sequence[str], home: Path, repo: Path) -> str:
    """The repository config: targets of the chosen agents, the others commented out; the home
    directory is pinned when an agent that needs absolute paths is chosen; ``checkout``: where
    ``repo`` lies, from ``~/`` when under the home."""
    import json

    lines = []
    for agent, targets in repo_targets().items():
        prefix = "" if agent in agents else "# "
        lines += [f'{prefix}{key} = "{path}"\n' for key, path in targets]
    # a JSON string is a valid TOML basic string
    pin = f"home = {json.dumps(str(home), ensure_ascii=False)}"
    if not any(spec_of(name).home_dependent for name in agents):
        pin = '# home = "/home/you"'
    tail = _REPO_CONFIG_TAIL + _accepted(agents)
    checkout = f"checkout = {json.dumps(home_spelling(repo, home), ensure_ascii=False)}"
    head = _REPO_CONFIG_HEAD.replace("@HOME@", pin).replace("@CHECKOUT@", checkout)
    return head + "".join(lines) + tail


_GITIGNORE_HEAD = """\
# Written by `twsrt init --repo`. home/ mirrors ~: each agent writes its login, sessions,
# history and caches into its own directory there, and none of it belongs in a commit. Link the
# tree with `stow --no-folding` (real directories, one link per file), so those files land in ~
# and not here; these lines are the second guard, and `twsrt check` reports any of them it finds
# in the tree (TWS241). Rotate a credential that was ever committed.
"""


def gitignore() -> str:
    """The ``.gitignore`` of ``init --repo``: every registered agent's state and credential
    files (``AgentSpec.state_files``), under the home tree, whichever agents are configured."""

    lines = [_GITIGNORE_HEAD]
    for spec in specs():
        lines.append(f"\n# {spec.label}\n")
        for state in spec.state_files:
            if state.credential:  # a comment of its own: gitignore has no trailing comments
                lines.append(f"# credential: {state.what}\n")
            # a leading "/" anchors the name at the repository root
            lines.append(f"/home/{state.path[2:]}\n")
    return "".join(lines)


# The link that makes a plain `srt CMD` (which reads ~/.srt-settings.json) enforce the policy:
# stow puts it at ~/.srt-settings.json.
SRT_LINK = ("home/.srt-settings.json", "../policy/srt-settings.json")


# A local hook runs the twsrt installed in the environment that commits: it works before any
# release exists and offline (a `repo: <url>` hook would clone and pip-install twsrt). `files` is
# the pattern of the twsrt-check hook in .pre-commit-hooks.yaml: both come from the registry.
_PRE_COMMIT_CONFIG = """\
# Runs `twsrt check` on every commit that touches the policy or a generated file. The hook runs
# the twsrt installed where you commit (activate its virtual environment, or use pipx); a
# released twsrt can instead be pinned by URL and rev (see docs/init.md).
repos:
  - repo: local
    hooks:
      - id: twsrt-check
        name: twsrt check (policy, drift, lossy translations)
        entry: twsrt check
        language: system
        pass_filenames: false
        require_serial: true
        types_or: [file, symlink]
        files: |
"""


def pre_commit_config() -> str:
    """The ``.pre-commit-config.yaml`` of ``init --repo``."""

    return _PRE_COMMIT_CONFIG + indented(hook_files_regex(), " " * 10)


NEXT_STEPS = """\
Next steps:
  1. Edit the policy in policy/srt-settings.json and policy/bash-rules.json, then write the
     agent files:  twsrt generate -w   (twsrt check lists what an agent cannot enforce)
  2. Link the home tree into your home directory, after moving aside what is there
     ({homes}):  stow --no-folding -d {repo} -t ~ home
     (--no-folding keeps ~/.claude and the others real directories: a folded link into
     the repository is removable by any command run in ~, and the agents' logins would
     land in the repository; .gitignore keeps them out of commits)
  3. Install the commit hook (pre-commit runs the twsrt of this environment):
     cd {repo} && git init && pip install pre-commit && pre-commit install
"""
