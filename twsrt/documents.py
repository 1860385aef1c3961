"""The files one run reads: each read once (through ``safeio``) and each text parsed at most
once per format, shared by every stage of the run.

A ``Documents`` store belongs to one run: the invocation's context holds it (``Context.documents``,
made with the context by ``protection.protected_context``; each mode's context shares it) and
every compile, drift compare and effective check reads through it. Nothing is global and
nothing outlives the run, so in-process callers that run many commands never see a stale file.

Files are cached by the path and the confinement they were read under (a refusal, such as a
missing file, is cached too). Parses are cached by text: the compile's splice, the drift
compare, the report views and the effective-configuration check all hand in the same text, so
the file a ``check`` finds in sync is parsed once however many stages look at it, and a
generated text equal to the file on disk (the unchanged case) costs no parse at all.

Parsed values are shared: a consumer never changes one in place (copy it first, as the
settings merges do).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.jsonpos import parse_json
from twsrt.safeio import FileProblem, read_text
from twsrt.tomlpos import parse_toml

if TYPE_CHECKING:
    from twsrt.jsonpos import PositionedJson
    from twsrt.tomlpos import PositionedToml

# the formats a text is parsed in: positioned JSON and TOML, and the plain values
_JSON, _TOML, _JSON_VALUE, _TOML_VALUE = "json", "toml", "json-value", "toml-value"
_UNPARSED = object()


class _Failed:
    """A cached refusal: reading or parsing raised ``error``; it is raised again, unchanged."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


class Documents:
    """One run's files and parses (see the module docstring)."""

    def __init__(self) -> None:
        self._texts: dict[tuple[str, str | None], str | _Failed] = {}
        self._universal: dict[tuple[str, str | None], str] = {}
        self._parsed: dict[tuple[str, str], Any] = {}

    # ------------------------------------------------------------ reading

    def read(
        self, path: Path, *, confine: Path | None = None, universal_newlines: bool = True
    ) -> str:
        """``safeio.read_text`` of ``path`` (refused outside ``confine``, a ``FileProblem`` as
        there), read once per run: with universal newlines, or exactly as on disk."""

        key = (os.fspath(path), None if confine is None else os.fspath(confine))
        raw = self._texts.get(key)
        if raw is None:
            try:
                raw = read_text(path, confine=confine, universal_newlines=False)
            except FileProblem as exc:  # a missing file stays missing for the whole run
                raw = _Failed(exc)
            self._texts[key] = raw
        if isinstance(raw, _Failed):
            raise raw.error.with_traceback(None)
        if not universal_newlines or "\r" not in raw:
            return raw  # the same object either way: one text, one parse
        universal = self._universal.get(key)
        if universal is None:
            universal = self._universal[key] = raw.replace("\r\n", "\n").replace("\r", "\n")
        return universal

    # ------------------------------------------------------------ parsing

    def json(self, text: str) -> PositionedJson:
        """``jsonpos.parse_json(text)``, once per text (a ``JsonSyntaxError`` as there)."""

        return self._parse(_JSON, text, parse_json)

    def toml(self, text: str) -> PositionedToml:
        """``tomlpos.parse_toml(text)``, once per text (a ``TomlSyntaxError`` as there)."""

        return self._parse(_TOML, text, parse_toml)

    def json_value(self, text: str) -> Any:
        """``json.loads(text)`` (its errors as there); the positioned parse's value when the
        text has been parsed with positions already."""
        import json

        positioned = self._parsed.get((_JSON, text))
        if positioned is not None and not isinstance(positioned, _Failed):
            return positioned.value
        return self._parse(_JSON_VALUE, text, json.loads)

    def toml_value(self, text: str) -> dict[str, Any]:
        """``tomllib.loads(text)`` (its errors as there, ``RecursionError`` included); the
        positioned parse's value when the text has been parsed with positions already."""
        import tomllib

        positioned = self._parsed.get((_TOML, text))
        if positioned is not None and not isinstance(positioned, _Failed):
            value: dict[str, Any] = positioned.value
            return value
        return self._parse(_TOML_VALUE, text, tomllib.loads)

    def _parse(self, kind: str, text: str, parse: Any) -> Any:
        key = (kind, text)
        found = self._parsed.get(key, _UNPARSED)
        if found is _UNPARSED:
            try:
                found = parse(text)
            except (ValueError, RecursionError) as exc:  # each parser's syntax errors
                found = _Failed(exc)
            self._parsed[key] = found
        if isinstance(found, _Failed):
            raise found.error.with_traceback(None)
        return found
