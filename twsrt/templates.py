"""Starter files written by ``twsrt init``."""

from __future__ import annotations

USER_CONFIG = """\
# twsrt config: names the canonical sources and the agent files twsrt generates.
# Relative paths resolve against this file's directory; ~/ is your home directory.
# Schema: `twsrt schema config`.

[sources]
srt = "{srt}"                # sandbox runtime (srt) settings: paths and domains
bash_rules = "{bash_rules}"  # allow / deny / ask shell commands

[targets]
claude_settings = "{claude}"   # settings.json becomes a symlink to it
# claude_settings_yolo = "{claude_yolo}"
# codex_config = "~/.codex/config.toml"
# codex_rules = "~/.codex/rules/twsrt.rules"      # optional: omit to skip escalation rules
# copilot_output = "~/.config/twsrt/copilot-flags.txt"
# deepcode_settings = "~/.deepcode/settings.json"  # creating it ends DeepCode's ~/.claude fallback

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

SRT_SETTINGS = """\
{
  "filesystem": {
    "denyRead": ["~/.aws", "~/.ssh", "~/.gnupg", "~/.netrc"],
    "denyWrite": ["**/.env", "**/*.pem", "**/*.key", "**/secrets/**"],
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
"""

BASH_RULES = """\
{
  "allow": ["gh pr view"],
  "deny": ["rm", "sudo", "git push --force"],
  "ask": ["git push", "git commit", "pip install"]
}
"""

REPO_CONFIG = """\
# twsrt config of a dotfiles repository: paths are relative to this file, and home/ mirrors ~
# (install it with `stow -d . -t ~ home`, chezmoi, yadm or your own links).
# Schema: `twsrt schema config`. Pin the home directory so every machine generates the same bytes:
# home = "/home/you"

[sources]
srt = "policy/srt-settings.json"
bash_rules = "policy/bash-rules.json"

[targets]
claude_settings = "home/.claude/settings.full.json"
claude_settings_yolo = "home/.claude/settings.yolo.json"
codex_config = "home/.codex/config.toml"
codex_rules = "home/.codex/rules/twsrt.rules"
# deepcode_settings = "home/.deepcode/settings.json"

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

PRE_COMMIT_CONFIG = """\
# Runs twsrt on every commit that touches the policy or a generated file.
repos:
  - repo: https://github.com/twsrt/twsrt
    rev: v{version}
    hooks:
      - id: twsrt-check
      # - id: twsrt-generate   # instead of twsrt-check: rewrite the targets, fail once
"""
