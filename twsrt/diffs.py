"""The one diff renderer of every report: only what twsrt manages, never a user's value.

A target file mixes twsrt's members with the user's own (hooks, MCP servers with their ``env``,
API key helpers, bearer tokens). Reports show a unified diff of the file's *managed projection*:
the members twsrt owns, in the file's own order, with each run of the user's members elided as
``… N unmanaged keys …``. Rendering the projection from the parsed document, not masking lines
of the text, holds for any layout (a one-line JSON file, an inline TOML table). Fully generated
files (Codex rules, Copilot flags) are shown whole. Values under credential keys inside what is
shown are redacted (``redact.py``).

An agent declares its managed members as a ``Spec``: a mapping from member name to ``True``
(the whole member), a nested ``Spec`` (only those sub-members), or a predicate that picks the
managed entries of a list (Claude's ``WebFetch`` allow rules among the user's allow rules).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Union

from twsrt.redact import redact

if TYPE_CHECKING:
    from twsrt.documents import Documents

View = Callable[[str], str]
Spec = dict[str, Union[bool, "Spec", Callable[[Any], bool]]]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def render_diff(display: str, old: str | None, new: str, view: View) -> str:
    """A unified diff of the managed projections of ``old`` (None: a new file) and ``new``."""
    before = [] if old is None else view(old).splitlines(keepends=True)
    after = view(new).splitlines(keepends=True)
    lines = difflib.unified_diff(
        before,
        after,
        fromfile=f"a/{display}" if old is not None else "/dev/null",
        tofile=f"b/{display}",
    )
    out = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    if not out and old != new:
        return f"(only content twsrt does not manage changes in {display})\n"
    return out


def whole(text: str) -> str:
    """A file twsrt generates entirely: every line is managed."""
    return text


def opaque(text: str) -> str:
    """A file without a declared view shows nothing of its content."""
    return _marker(len(text.splitlines()), "line") + "\n"


def toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _marker(count: int, noun: str, plural: str = "") -> str:
    return f"… {count} unmanaged {noun if count == 1 else plural or noun + 's'} …"


# ---------------------------------------------------------------- JSON


def json_view(spec: Spec, documents: Documents | None = None) -> View:
    """The managed projection of a JSON settings file, as indented JSON with elision markers;
    texts parsed through the run's ``documents`` when given."""

    def view(text: str) -> str:
        from twsrt.documents import Documents

        try:
            document = (documents or Documents()).json_value(text)
        except (ValueError, RecursionError):  # not JSON, or beyond what a parser takes
            return _marker(len(text.splitlines()), "line") + " (not valid JSON)\n"
        if not isinstance(document, dict):
            return _marker(len(text.splitlines()), "line") + " (not a JSON object)\n"
        return "\n".join(_json_object(document, spec, (), 0)) + "\n"

    return view


def _json_value(value: Any, path: tuple[str, ...], depth: int) -> list[str]:
    text = json.dumps(redact(value, path), indent=2, ensure_ascii=False, default=str)
    return text.replace("\n", "\n" + "  " * depth).split("\n")


def _json_object(value: dict[str, Any], spec: Spec, path: tuple[str, ...], depth: int) -> list[str]:
    pad = "  " * (depth + 1)
    members: list[list[str]] = []  # each shown member's lines, or a marker line alone
    hidden = 0
    for key, item in value.items():
        sub = spec.get(key)
        if sub is None or sub is False:
            hidden += 1
            continue
        if hidden:
            members.append([pad + _marker(hidden, "key")])
            hidden = 0
        here = (*path, key)
        if isinstance(sub, dict) and isinstance(item, dict):
            body = _json_object(item, sub, here, depth + 1)
        elif callable(sub) and isinstance(item, list):
            body = _json_list(item, sub, here, depth + 1)
        elif sub is True:
            body = _json_value(item, here, depth + 1)
        else:  # partly managed, but not the container twsrt expects: the user's value
            body = [_marker(1, "value")]
        body[0] = f"{pad}{json.dumps(key, ensure_ascii=False)}: {body[0]}"
        members.append(body)
    if hidden:
        members.append([pad + _marker(hidden, "key")])
    return _join("{", members, "}", depth)


def _json_list(
    value: list[Any], keep: Callable[[Any], bool], path: tuple[str, ...], depth: int
) -> list[str]:
    pad = "  " * (depth + 1)
    members: list[list[str]] = []
    hidden = 0
    for item in value:
        if not keep(item):
            hidden += 1
            continue
        if hidden:
            members.append([pad + _marker(hidden, "entry", "entries")])
            hidden = 0
        body = _json_value(item, path, depth + 1)
        body[0] = pad + body[0]
        members.append(body)
    if hidden:
        members.append([pad + _marker(hidden, "entry", "entries")])
    return _join("[", members, "]", depth)


def _join(opening: str, members: list[list[str]], closing: str, depth: int) -> list[str]:
    """JSON punctuation around shown members; marker lines take no comma."""
    if not members:
        return [opening + closing]
    shown = [index for index, lines in enumerate(members) if not _is_marker(lines)]
    last = shown[-1] if shown else -1
    out = [opening]
    for index, lines in enumerate(members):
        out += lines[:-1]
        out.append(lines[-1] + ("," if index in shown and index != last else ""))
    out.append("  " * depth + closing)
    return out


def _is_marker(lines: list[str]) -> bool:
    return len(lines) == 1 and lines[0].lstrip().startswith("… ")


# ---------------------------------------------------------------- TOML


def toml_view(spec: Spec, documents: Documents | None = None) -> View:
    """The managed projection of a TOML config, as TOML with the elisions as comments; texts
    parsed through the run's ``documents`` when given."""

    def view(text: str) -> str:
        import tomllib

        from twsrt.documents import Documents

        try:
            document = (documents or Documents()).toml_value(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return "# " + _marker(len(text.splitlines()), "line") + " (not valid TOML)\n"
        lines = _toml_table(document, spec, ())
        return "\n".join(lines).strip("\n") + "\n"

    return view


def _toml_table(table: dict[str, Any], spec: Spec | bool, path: tuple[str, ...]) -> list[str]:
    body: list[str] = []
    tables: list[tuple[str, Any, Spec | bool]] = []
    hidden = 0
    for key, value in table.items():
        sub = True if spec is True else spec.get(key) if isinstance(spec, dict) else None
        if sub is None or sub is False or callable(sub):
            hidden += 1
            continue
        if hidden:
            body.append("# " + _marker(hidden, "key"))
            hidden = 0
        if isinstance(value, dict):
            tables.append((key, value, sub))
        elif sub is not True:  # partly managed, but not a table: the user's value
            body.append(f"{toml_key(key)} = # " + _marker(1, "value"))
        else:
            rendered = json.dumps(redact(value, (*path, key)), ensure_ascii=False, default=str)
            body.append(f"{toml_key(key)} = {rendered}")
    if hidden:
        body.append("# " + _marker(hidden, "key"))
    for key, value, sub in tables:
        here = (*path, key)
        header = ".".join(toml_key(part) for part in here)
        inner = _toml_table(value, sub, here)
        # a table holding only tables needs no header of its own (TOML's super-table)
        body += inner if inner and inner[0] == "" else ["", f"[{header}]", *inner]
    return body
