"""What the GitHub Actions runner reads as a workflow command in a step's output."""

from __future__ import annotations

import re
import unicodedata


def _dotnet_space(char: str) -> bool:
    """.NET's char.IsWhiteSpace, which the runner's TrimStart uses."""
    return char in "\t\n\v\f\r\x85\xa0" or unicodedata.category(char) in ("Zs", "Zl", "Zp")


def _parse(line: str) -> tuple[str, str] | None:
    """(name, data) when the runner reads ``line`` as a command, else None.

    ``::name props::data`` after leading whitespace (the V2 form), else ``##[name props]data``
    anywhere in the line (the legacy form). Every name counts, registered or not.
    """
    start = 0
    while start < len(line) and _dotnet_space(line[start]):
        start += 1
    trimmed = line[start:]
    if trimmed.startswith("::"):
        end = trimmed.find("::", 2)
        if end >= 0 and trimmed[2:end].split(" ", 1)[0]:
            return trimmed[2:end].split(" ", 1)[0], trimmed[end + 2 :]
    legacy = line.find("##[")
    if legacy >= 0:
        rest = line[legacy + 3 :]
        end = rest.find("]")
        if end > 0:
            return rest[:end].split(" ", 1)[0], rest[end + 1 :]
    return None


def runner_commands(output: str) -> list[tuple[str, str, str]]:
    """(name, data, line) of every command the runner would process in ``output``.

    Lines end at CR, LF or CRLF (StreamReader.ReadLine). ``::stop-commands::TOKEN`` disables
    every command until one named TOKEN (either form, any case) resumes them.
    """
    commands = []
    token: str | None = None
    for line in re.split(r"\r\n|\r|\n", output):
        parsed = _parse(line)
        if parsed is None:
            continue
        name, data = parsed
        if token is not None:
            if name.lower() == token.lower():
                token = None
                commands.append((name, data, line))
            continue
        if name == "stop-commands":
            token = data
        commands.append((name, data, line))
    return commands
