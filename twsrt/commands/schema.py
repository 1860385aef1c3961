"""``twsrt schema [NAME]``: a shipped JSON Schema (srt, bash or config) for editors and CI."""

from __future__ import annotations

from twsrt.outcome import Outcome


def run(name: str | None) -> Outcome:
    """The schema ``name`` on stdout as shipped; without one, each name and its file."""
    from twsrt.schemas import SCHEMA_FILES, schema_text

    outcome = Outcome()
    if name is None:
        for key, filename in SCHEMA_FILES.items():
            outcome.out(f"{key:7} {filename}\n", encoded=True)
    else:
        outcome.out(schema_text(name), encoded=True)  # the file's bytes, for programs
    return outcome
