"""The ``Bash(...)`` permission-rule grammar that Claude Code and DeepCode share."""

from __future__ import annotations

from twsrt.findings import TwsrtError, finding, quoted
from twsrt.locations import Location
from twsrt.rules import UNEXPRESSIBLE_COMMAND


def bash_rules(command: str, origin: Location, agent: str, label: str) -> list[str]:
    """``Bash(cmd)`` and ``Bash(cmd *)``: the command alone and with arguments. A ``)`` cannot
    be held by the grammar, so such a command is refused at its source rule (``label``: how
    the message names the agent)."""
    if ")" in command:
        raise TwsrtError(
            finding(
                UNEXPRESSIBLE_COMMAND,
                f"command '{quoted(command)}' contains ')', which {label}'s Bash(...) rule "
                "syntax cannot hold; rewrite the rule without it",
                origin,
                agent=agent,
            )
        )
    return [f"Bash({command})", f"Bash({command} *)"]


def command_within(command: str, rule: str) -> bool:
    """``rule`` (``Bash(rule)`` and ``Bash(rule *)``) matches every command ``command`` does."""
    return command == rule or command.startswith(rule + " ")


def command_holders(command: str) -> list[str]:
    """Every rule that holds ``command`` (``command_within``): the command and each of its
    prefixes that ends before a space."""
    return [command[:i] for i, char in enumerate(command) if char == " "] + [command]
