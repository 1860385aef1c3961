"""The one escaping of untrusted text on its way to a terminal or a CI log.

Keys, values, file names and the old content of files come from the checkout, which in CI is a
pull request. Printed raw, a value could write the clipboard (``ESC ] 52 ;``), move the cursor,
overwrite a line (a lone CR) or start a line of its own that the runner reads as a workflow
command (``::error``, ``::add-mask::``). So every line a command prints for a person passes
``terminal`` (``cli`` and ``exits`` print nothing else), and formats for programs escape
themselves: JSON reports through ``json_text`` (their one dump), JUnit by dropping what XML 1.0
cannot hold, GitHub's workflow commands with ``printable`` and ``defuse`` below.
"""

from __future__ import annotations

import re
import unicodedata

# Every control character but newline and tab (C0, DEL, C1: CR, ESC and the 8-bit CSI
# included), the Unicode line separators, lone surrogates.
CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
_CONTROL = re.compile(f"[{CONTROL}]")
_CONTROL_OR_NEWLINE = re.compile(f"[\n{CONTROL}]")
# ...and, for a terminal, twsrt's own colours kept whole (reports/text.paint: bold, red, green,
# yellow, cyan, reset); a colour from the checkout can only colour text.
_CONTROL_OR_COLOUR = re.compile(f"\x1b\\[(?:0|1|3[1-6])m|[{CONTROL}]")
# What JSON leaves raw inside a string (ensure_ascii off) that a terminal or log still acts on.
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab as a visible escape."""
    return _CONTROL.sub(_visible, text)


def one_line(text: str) -> str:
    """``printable``, with a newline shown as ``\\x0a`` too: one value quoted in a line."""
    if text.isprintable():
        return text  # the common value: no scan
    return _CONTROL_OR_NEWLINE.sub(_visible, text)


def _blank(char: str) -> bool:
    """What the runner may trim before ``::`` (a superset: every space, control, format)."""
    return char.isspace() or unicodedata.category(char)[0] in "CZ"


def no_commands(text: str) -> str:
    """``text`` whose lines never start with ``::`` (after what the runner trims) and never
    hold ``##[``: the first ``:`` and the ``#`` percent-escaped."""
    lines = []
    for line in text.split("\n"):
        start = next((i for i, char in enumerate(line) if not _blank(char)), len(line))
        if line.startswith("::", start):
            line = line[:start] + "%3A" + line[start + 1 :]
        lines.append(line.replace("##[", "%23#["))
    return "\n".join(lines)


def defuse(text: str) -> str:
    """Text whose lines the runner never reads as a command (control characters escaped,
    a leading ``::`` and every ``##[`` percent-escaped)."""
    return no_commands(printable(text))


def terminal(text: str, colour: bool = False) -> str:
    """What a command prints for a person: ``defuse``, keeping twsrt's own colours when the
    stream shows ``colour`` (where click would strip them, a colour from the checkout could
    join ``:`` and ``:`` into a command once stripped, so none is kept)."""
    if text.isprintable() and "::" not in text and "##[" not in text:
        return text  # the common line: nothing to escape, no scan
    if not colour:
        return defuse(text)
    escaped = _CONTROL_OR_COLOUR.sub(
        lambda match: match.group() if len(match.group()) > 1 else _visible(match), text
    )
    return no_commands(escaped)


def json_text(text: str) -> str:
    """A JSON document's text with DEL, C1 controls, line separators and lone surrogates as
    ``\\u`` escapes: outside strings JSON holds none of them, inside one the escape is equal."""
    return _JSON_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
