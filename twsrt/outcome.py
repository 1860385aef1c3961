"""What a command prints and its exit code, as a value: a command (``twsrt.commands``) returns
an ``Outcome``, the CLI prints it. Imports nothing of twsrt at module level (the CLI loads it on
every run)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from twsrt.records import record

if TYPE_CHECKING:
    from twsrt.findings import Finding

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


@record
class Line:
    """Text as printed (its newline included), on stdout or stderr. ``colour``: keep the ANSI
    colours (True), strip them (False), or leave it to the stream (None), as ``click.echo``.
    ``encoded``: a format for programs that escapes what it holds itself (JSON, SARIF, JUnit,
    GitHub's workflow commands); any other text is printed through ``escaping.terminal``."""

    text: str
    err: bool = False
    colour: bool | None = None
    encoded: bool = False


class Refused(Exception):
    """What a command was asked is refused as a bad command line (exit 2, click's message): the
    CLI shows it as a usage error (``usage``: the command's usage line first; ``param``: the
    argument it names, as click names it), so a command needs no click."""

    def __init__(self, message: str, *, usage: bool = False, param: str | None = None) -> None:
        super().__init__(message)
        self.message, self.usage, self.param = message, usage, param


@record(frozen=False)
class Outcome:
    lines: list[Line] = field(default_factory=list)
    exit_code: int = EXIT_OK
    # The run stopped here: the lines before it are printed, then the error is raised as if
    # the command had raised it (bad input: exit 2 with its findings; a bug: exit 3).
    error: Exception | None = None

    def out(self, text: str, colour: bool | None = None, encoded: bool = False) -> None:
        """Text for stdout, printed as it is (no newline added) but escaped (``Line``)."""
        if text:
            self.lines.append(Line(text, colour=colour, encoded=encoded))

    def err(self, line: str) -> None:
        """One line for stderr (its newline added)."""
        self.lines.append(Line(line + "\n", err=True))

    def findings(self, items: Sequence[Finding], verbose: bool) -> None:
        """Each finding's line on stderr; notes only when ``verbose``."""
        from twsrt.findings import Level

        for item in items:
            if verbose or item.level is not Level.NOTE:
                self.err(item.render())

    @contextlib.contextmanager
    def stopping(self) -> Iterator[Outcome]:
        """Run a stage's body: an exception ends it, kept in ``error`` after the lines so far."""
        try:
            yield self
        except Exception as exc:  # noqa: BLE001 - replayed by the CLI, not swallowed
            self.error = exc

    @property
    def stdout(self) -> str:
        return "".join(line.text for line in self.lines if not line.err)

    @property
    def stderr(self) -> str:
        return "".join(line.text for line in self.lines if line.err)
