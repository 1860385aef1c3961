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

# Sandbox keys forced per mode, applied after the srt values:
# [sandbox_overrides.yolo]
# enabled = true
# autoAllowBashIfSandboxed = true
# allowUnsandboxedCommands = false
#
# [sandbox_overrides.full]
# enabled = false
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
