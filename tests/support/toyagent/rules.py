"""The toy agent's own rule."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

TOY_SANDBOX_OFF = Rule(
    "TWS699",
    "toy-sandbox-off",
    Family.EFFECTIVE,
    Level.ERROR,
    Basis.WIDENS,
    "A user file switches the toy sandbox off.",
    "Remove `enabled: false` from sandbox.local.json.",
)
