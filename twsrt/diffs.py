"""The one diff renderer of every report: only what twsrt manages, never a user's value.

A target file mixes twsrt's members with the user's own (hooks, MCP servers with their ``env``,
API key helpers, bearer tokens). Reports show a unified diff of the file's *managed projection*:
the members twsrt owns, in the file's own order, with each run of the user's members elided as
``… N unmanaged keys …``. Rendering the projection from the parsed document, not masking lines
of the text, holds for any layout (a one-line JSON file, an inline TOML table). Fully generated
files (Codex rules, Copilot flags, Codex's managed files) are shown whole, redacted line by
line. Values under credential keys inside what is shown are redacted (``redact.py``). Large
texts are matched at anchors first (``line_opcodes``), so a diff of any size stays near linear.

An agent declares its managed members as a ``Spec``: a mapping from member name to ``True``
(the whole member), a nested ``Spec`` (only those sub-members), or a predicate that picks the
managed entries of a list (Claude's ``WebFetch`` allow rules among the user's allow rules).
"""

from __future__ import annotations

import difflib
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal, Union

from twsrt.documents import Documents
from twsrt.redact import redact, redact_text

if TYPE_CHECKING:
    from twsrt.documents import Documents

View = Callable[[str], str]
Spec = dict[str, Union[bool, "Spec", Callable[[Any], bool]]]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def render_diff(display: str, old: str | None, new: str, view: View) -> str:
    """A unified diff of the managed projections of ``old`` (None: a new file) and ``new``."""
    before = [] if old is None else view(old).splitlines(keepends=True)
    after = view(new).splitlines(keepends=True)
    lines = unified_diff(
        before,
        after,
        fromfile=f"a/{display}" if old is not None else "/dev/null",
        tofile=f"b/{display}",
    )
    out = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    if not out and old != new:
        return f"(only content twsrt does not manage changes in {display})\n"
    return out


# ---------------------------------------------------------------- line diffs at any size

Tag = Literal["replace", "delete", "insert", "equal"]
Opcode = tuple[Tag, int, int, int, int]  # difflib's (tag, i1, i2, j1, j2)

# Up to this many lines (both sides together) difflib matches the lines itself, as reports have
# always shown them. Above it, difflib can take minutes (every other line changed makes it
# quadratic: 13,000 lines took a minute), so lines that appear once on each side are matched
# first (the patience diff's anchors) and difflib only matches the runs between two anchors.
PLAIN_DIFF_LINES = 1000


def line_opcodes(
    a: list[str], b: list[str], plain_up_to: int = PLAIN_DIFF_LINES, *, autojunk: bool = True
) -> list[Opcode]:
    """How to turn the lines ``a`` into ``b``, as difflib's opcodes (``autojunk`` as there):
    difflib's own up to ``plain_up_to`` lines, else anchored at the lines unique on both sides
    (near linear)."""
    if len(a) + len(b) <= plain_up_to:
        return difflib.SequenceMatcher(None, a, b, autojunk).get_opcodes()
    codes: list[Opcode] = []
    spans = [(0, len(a), 0, len(b))]
    while spans:  # a stack, not recursion: any depth of nested anchors is fine
        spans += _match(a, b, spans.pop(), (plain_up_to, autojunk), codes)
    codes.sort(key=lambda code: (code[1], code[3]))  # no code is empty: each starts elsewhere
    return _merged(codes)


Span = tuple[int, int, int, int]  # a[i1:i2] against b[j1:j2]


def _match(
    a: list[str], b: list[str], span: Span, plain: tuple[int, bool], out: list[Opcode]
) -> list[Span]:
    """The opcodes of ``span`` into ``out``, except for the spans between its anchors, which
    it returns to be matched in turn."""
    i1, i2, j1, j2 = span
    while i1 < i2 and j1 < j2 and a[i1] == b[j1]:  # a common head and tail need no matching
        i1, j1 = i1 + 1, j1 + 1
    if i1 > span[0]:
        out.append(("equal", span[0], i1, span[2], j1))
    while i2 > i1 and j2 > j1 and a[i2 - 1] == b[j2 - 1]:
        i2, j2 = i2 - 1, j2 - 1
    if i2 < span[1]:
        out.append(("equal", i2, span[1], j2, span[3]))
    if i1 == i2 or j1 == j2:
        if i1 < i2 or j1 < j2:
            out.append(("delete" if j1 == j2 else "insert", i1, i2, j1, j2))
        return []
    plain_up_to, autojunk = plain
    if (i2 - i1) + (j2 - j1) <= plain_up_to:
        codes = difflib.SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk).get_opcodes()
        out.extend((tag, i1 + x1, i1 + x2, j1 + y1, j1 + y2) for tag, x1, x2, y1, y2 in codes)
        return []
    anchors = _anchors(a, b, (i1, i2, j1, j2))
    if not anchors:  # nothing to hold on to: shown replaced whole (correct, if not shortest)
        out.append(("replace", i1, i2, j1, j2))
        return []
    gaps = []
    for i, j in anchors:
        out.append(("equal", i, i + 1, j, j + 1))
        gaps.append((i1, i, j1, j))
        i1, j1 = i + 1, j + 1
    gaps.append((i1, i2, j1, j2))
    return [gap for gap in gaps if gap[0] < gap[1] or gap[2] < gap[3]]


def _anchors(a: list[str], b: list[str], span: Span) -> list[tuple[int, int]]:
    """The longest run of lines, each once in both ranges, in the same order on both sides
    (patience sorting: each line goes on the leftmost pile whose top is not before it)."""
    i1, i2, j1, j2 = span
    once_a = _once(a, i1, i2)
    once_b = _once(b, j1, j2)
    pairs = [(i, once_b[line]) for line, i in once_a.items() if line in once_b]
    pairs.sort()
    tops: list[int] = []  # the j on top of each pile
    top_index: list[int] = []  # which pair is on top of each pile
    below: list[int] = []  # for each pair, the pair on top of the pile to its left
    for index, (_i, j) in enumerate(pairs):
        pile = bisect_left(tops, j)
        below.append(top_index[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            top_index.append(index)
        else:
            tops[pile], top_index[pile] = j, index
    run: list[tuple[int, int]] = []
    index = top_index[-1] if top_index else -1
    while index >= 0:
        run.append(pairs[index])
        index = below[index]
    return run[::-1]


def _once(lines: list[str], start: int, stop: int) -> dict[str, int]:
    """The lines that appear once in ``lines[start:stop]``, with their index."""
    seen: dict[str, int] = {}
    for index in range(start, stop):
        line = lines[index]
        seen[line] = -1 if line in seen else index
    return {line: index for line, index in seen.items() if index >= 0}


def _merged(codes: list[Opcode]) -> list[Opcode]:
    """Neighbouring opcodes of one kind as one: equal runs joined, and changes next to each
    other as one change (a delete and an insert together are a replace, as difflib says)."""
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if out and (out[-1][0] == "equal") == (tag == "equal"):
            last = out.pop()
            i1, j1 = last[1], last[3]
            if tag != "equal":
                tag = "replace" if i1 < i2 and j1 < j2 else "delete" if i1 < i2 else "insert"
        out.append((tag, i1, i2, j1, j2))
    return out


def unified_diff(
    a: list[str],
    b: list[str],
    fromfile: str,
    tofile: str,
    context: int = 3,
    plain_up_to: int = PLAIN_DIFF_LINES,
) -> Iterator[str]:
    """``difflib.unified_diff(a, b, fromfile, tofile)``, with ``line_opcodes`` (fast at any
    size); the same lines for inputs of up to ``plain_up_to`` lines."""
    grouped = _Opcodes(line_opcodes(a, b, plain_up_to)).get_grouped_opcodes(context)
    for number, group in enumerate(grouped):
        if number == 0:
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            yield from ("-" + line for line in a[i1:i2])
            yield from ("+" + line for line in b[j1:j2])


class _Opcodes(difflib.SequenceMatcher):
    """difflib's grouping of opcodes into hunks, over opcodes computed elsewhere."""

    def __init__(self, codes: list[Opcode]) -> None:  # no matching: the opcodes are given
        self.codes = codes

    def get_opcodes(self) -> list[Opcode]:
        return list(self.codes)


def _range(start: int, stop: int) -> str:
    """A hunk's line range as unified diffs write it (an empty range names the line before)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def whole(text: str) -> str:
    """A file twsrt generates entirely: every line is managed, and shown redacted (its old
    content may be anything a target path names: ``redact.redact_text``)."""
    return redact_text(text)


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
