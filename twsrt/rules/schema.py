"""Schema rules (TWS1xx): a source or the config breaks its JSON schema."""

from __future__ import annotations

from twsrt.rules.model import Basis, Family, Level, Rule

SCHEMA_UNKNOWN_KEY = Rule(
    "TWS101",
    "schema-unknown-key",
    Family.SCHEMA,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A key the schema does not know.",
    "The sandbox runtime silently drops keys it does not know, so a typo such as "
    "`denyRaed` would protect nothing. twsrt treats every unknown key as an error and points "
    "at the key itself, with the closest known key as a hint.",
)

SCHEMA_VIOLATION = Rule(
    "TWS102",
    "schema-violation",
    Family.SCHEMA,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "A value does not match the schema.",
    "A value has the wrong type (a string where a list belongs, a null section, a "
    "non-boolean `enabled`), is empty, or has a form the agents cannot use (`~user/` paths). "
    "`twsrt schema srt|bash|config` prints the schema for your editor.",
)

DUPLICATE_JSON_KEY = Rule(
    "TWS103",
    "duplicate-json-key",
    Family.SCHEMA,
    Level.ERROR,
    Basis.CANNOT_CHECK,
    "An object names the same key twice.",
    "JSON parsers keep only the last of two equal keys, so the first one is silently lost. "
    "Merge the two entries.",
)
