"""Drift rules (TWS3xx): a generated target no longer matches what the policy compiles to."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

TARGET_MISSING = Rule(
    "TWS301",
    "target-missing",
    Family.DRIFT,
    Level.ERROR,
    Basis.WIDENS,
    "A configured target file does not exist.",
    "The policy names a target that has not been generated yet. Run `twsrt generate -w`.",
)

DRIFT_UNAPPLIED = Rule(
    "TWS302",
    "drift-unapplied",
    Family.DRIFT,
    Level.ERROR,
    Basis.WIDENS,
    "The policy changed but the target was not regenerated.",
    "Entries that the current policy generates are missing from the target file. Run "
    "`twsrt generate -w` and commit the result.",
)

DRIFT_OUT_OF_BAND = Rule(
    "TWS303",
    "drift-out-of-band",
    Family.DRIFT,
    Level.ERROR,
    Basis.WIDENS,
    "A managed section of a target was edited by hand.",
    "The target holds managed entries that the policy does not generate. Edit the canonical "
    "sources instead and run `twsrt generate -w`, which removes them.",
)

DRIFT_CHANGED = Rule(
    "TWS304",
    "drift-changed",
    Family.DRIFT,
    Level.ERROR,
    Basis.WIDENS,
    "A managed section of a target differs from what the policy generates.",
    "The managed content differs in order or form. Run `twsrt generate -w`.",
)

BROKEN_SYMLINK = Rule(
    "TWS305",
    "broken-symlink",
    Family.DRIFT,
    Level.ERROR,
    Basis.WIDENS,
    "settings.json is a broken symlink.",
    "Claude Code reads `settings.json`; when it points at a file that does not exist, the "
    "agent runs without the generated permissions. Run `twsrt generate claude -w`.",
)
