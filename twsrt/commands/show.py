"""``twsrt show``: the policy a run composes, entry by entry, each with the ``file:line:col``
that set it (and its fragment, when the policy is composed from fragments), as text or JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from twsrt.findings import MESSAGE_LIMIT, quoted
from twsrt.invocation import open_invocation
from twsrt.locations import Location, pointer_join
from twsrt.outcome import Outcome
from twsrt.records import record
from twsrt.request import Request

if TYPE_CHECKING:
    from twsrt.config import Selection
    from twsrt.policy import Entry, PathRule, Policy

SHOW_VERSION = 1  # of the JSON document; it changes only when a reader would break
FORMATS = ("text", "json")
BASH_LISTS = ("allow", "deny", "ask")
# a key shown bare in a dotted key path; any other (a domain, a command pattern) is quoted
_BARE_KEY = re.compile(r"[A-Za-z0-9_$-]+")
_ORIGIN_COLUMN = 56  # a longer line puts its origin two spaces after it, not in the column
# the srt lists the Policy holds as located entries; every other leaf is located by pointer
_TYPED_LISTS = {
    "/filesystem/denyRead": "deny_read",
    "/filesystem/allowRead": "allow_read",
    "/filesystem/allowWrite": "allow_write",
    "/filesystem/denyWrite": "deny_write",
    "/network/allowedDomains": "allowed_domains",
    "/network/deniedDomains": "denied_domains",
}


@record
class Shown:
    """One leaf of the policy: a list entry, a scalar, or an empty list or table."""

    key: str  # the srt key path ("filesystem.denyRead"), or the bash list ("allow")
    pointer: str  # where it sits in the composed policy
    value: Any
    origin: Location  # the file, line and column that set it
    item: bool  # an entry of the list ``key`` (else the value of ``key`` itself)


@record
class Shape:
    """What ``show`` prints: the srt leaves in the policy's order, each bash list's entries."""

    srt: list[Shown]
    bash: dict[str, list[Shown]]
    selection: Selection | None = None
    fragment_of: Callable[[Location], str] = lambda _where: ""  # a file's fragment name, if any


def shape(policy: Policy, selection: Selection | None = None) -> Shape:
    """Every leaf of ``policy`` with its origin."""
    srt = list(_srt_leaves(policy, policy.srt, "", ""))
    bash = {name: _bash_entries(name, getattr(policy, f"bash_{name}")) for name in BASH_LISTS}
    return Shape(srt, bash, selection, policy.fragment_of)


def _srt_leaves(policy: Policy, node: Any, key: str, pointer: str) -> Iterator[Shown]:
    if isinstance(node, dict) and node:
        for name, value in node.items():
            if not pointer and name == "$schema":
                continue  # the editor's schema reference, not policy
            part = name if _BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)
            dotted = f"{key}.{part}" if key else part
            yield from _srt_leaves(policy, value, dotted, pointer_join(pointer, name))
    elif isinstance(node, list) and node:
        typed: list[PathRule | Entry] = getattr(policy, _TYPED_LISTS.get(pointer, ""), [])
        for index, item in enumerate(node):
            here = pointer_join(pointer, index)
            # a list the Policy holds keeps each entry's own origin (its fragment's line)
            origin = typed[index].origin if len(typed) == len(node) else policy.srt_location(here)
            yield Shown(key, here, item, origin, item=True)
    else:  # a scalar, or an empty list or table: the line that set it
        yield Shown(key, pointer, node, policy.srt_location(pointer), item=False)


def _bash_entries(name: str, entries: list[Entry]) -> list[Shown]:
    return [Shown(name, e.origin.pointer, e.value, e.origin, item=True) for e in entries]


# --- text ----------------------------------------------------------------------------------------


def render_text(shown: Shape) -> str:
    """The policy as a person reads it: the profile, then each srt key and bash list, one
    entry a line, its origin in a column to the right."""
    from twsrt.report import selection_text

    rows: list[tuple[str, Location | None]] = []  # (text, its origin; None: a heading)
    if shown.selection:
        rows.append((f"profile: {selection_text(shown.selection)}", None))
    rows.append(("srt settings:", None))
    heading = None
    for leaf in shown.srt:
        if not leaf.item:
            rows.append((f"  {leaf.key} = {_scalar(leaf.value)}", leaf.origin))
            heading = None
            continue
        if leaf.key != heading:
            rows.append((f"  {leaf.key}:", None))
            heading = leaf.key
        rows.append((f"    {_item(leaf.value)}", leaf.origin))
    rows.append(("bash rules:", None))
    for name, entries in shown.bash.items():
        rows.append((f"  {name}:" + ("" if entries else " (none)"), None))
        rows += [(f"    {_item(e.value)}", e.origin) for e in entries]
    return "".join(_columns(rows, shown.fragment_of))


def _columns(
    rows: list[tuple[str, Location | None]], fragment_of: Callable[[Location], str]
) -> Iterator[str]:
    """Each row, its origin in a column (after its fragment's name, when there are
    fragments); a row longer than the column puts them two spaces after its end."""
    located = [(text, where) for text, where in rows if where is not None]
    width = max((len(text) for text, _ in located if len(text) <= _ORIGIN_COLUMN), default=0)
    names = max((len(fragment_of(where)) for _, where in located), default=0)
    for text, where in rows:
        if where is None:
            yield text + "\n"
        elif names:
            yield f"{text:{width}}  {fragment_of(where):{names}}  {where}\n"
        else:
            yield f"{text:{width}}  {where}\n"


def _scalar(value: Any) -> str:
    return quoted(json.dumps(value, ensure_ascii=False), MESSAGE_LIMIT)


def _item(value: Any) -> str:
    """A list entry as written: a string bare (a path, a domain, a command), else its JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return quoted(text, MESSAGE_LIMIT)


# --- JSON ----------------------------------------------------------------------------------------


def render_json(shown: Shape) -> str:
    """The policy for programs: every leaf with its pointer, value and location."""
    from twsrt.reports.json_report import dump, header, selection_json

    document: dict[str, Any] = header(SHOW_VERSION)
    if shown.selection:
        document["profile"] = selection_json(shown.selection)
    document["srt"] = [_leaf_json(shown, leaf, key=True) for leaf in shown.srt]
    document["bash"] = {
        name: [_leaf_json(shown, e, key=False) for e in entries]
        for name, entries in shown.bash.items()
    }
    return dump(document)


def _leaf_json(shown: Shape, leaf: Shown, *, key: bool) -> dict[str, Any]:
    from twsrt.reports.json_report import location_json

    out: dict[str, Any] = {"key": leaf.key, "pointer": leaf.pointer} if key else {}
    out["value"] = leaf.value
    out["location"] = location_json(leaf.origin)
    fragment = shown.fragment_of(leaf.origin)
    if fragment:
        out["fragment"] = fragment
    return out


# --- the command ---------------------------------------------------------------------------------


def run(request: Request) -> Outcome:
    """``twsrt show``: the composed policy on stdout; a config or source that cannot be read
    stops the run with its located findings (exit 2), as for ``generate``."""
    outcome = Outcome()
    with outcome.stopping() as out:
        invocation = open_invocation(request)
        shown = shape(invocation.policy, invocation.config.selection)
        if request.output_format == "json":
            out.out(render_json(shown), encoded=True)
        else:
            out.out(render_text(shown))
    return outcome
