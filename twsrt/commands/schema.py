"""``twsrt schema [NAME]``: a shipped JSON Schema (srt, bash or config) for editors and CI;
``--write DIR`` puts every one into a directory, for sources that name them by relative path."""

from __future__ import annotations

from pathlib import Path

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


def write(directory: Path) -> Outcome:
    """Every shipped schema written into ``directory`` as shipped (``$id`` kept), replacing an
    older copy; each file written (or already current) named on stderr. An editor then loads
    ``"$schema": "<relative path>"`` from the repository, offline."""
    from twsrt.journal import on_disk
    from twsrt.locations import display_path
    from twsrt.schemas import SCHEMA_FILES, schema_text
    from twsrt.writes import Change, FileWrite, apply

    outcome = Outcome()
    with outcome.stopping() as out:
        writes: list[Change] = []
        for name, filename in SCHEMA_FILES.items():
            path = directory / filename
            current = on_disk(path)
            old = current.value if current.kind == "file" else None
            writes.append(FileWrite(path, display_path(path), schema_text(name), old))
        changed = apply(writes)
        for change in writes:
            state = "wrote" if change in changed else "up to date:"
            out.err(f"twsrt: {state} {change.display}")
    return outcome
