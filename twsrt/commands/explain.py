"""``twsrt explain RULE``: the help of one rule of the catalog, by id or name."""

from __future__ import annotations

from twsrt.outcome import Outcome, Refused


def run(rule_id: str) -> Outcome:
    """The rule's help on stdout; a name no rule has is a usage error."""
    from twsrt.rules import explain_text

    outcome = Outcome()
    text = explain_text(rule_id)
    if text is None:
        outcome.error = Refused(f"unknown rule {rule_id!r}; see docs/rules.md", usage=True)
    else:
        outcome.out(text + "\n", encoded=True)  # twsrt's own text, printed as it is
    return outcome
