"""Selective merge into a user's JSON settings file: refuse a shape twsrt cannot merge into,
splice only the managed members into the user's text, and copy the user's object for a merge
without copying the managed lists it is about to replace. Shared by every JSON-settings agent
(Claude, Copilot, DeepCode)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from twsrt.agents.base import value_at
from twsrt.documents import Documents
from twsrt.findings import quoted
from twsrt.locations import Location, located
from twsrt.rules import TARGET_UNUSABLE


def check_json_shape(parsed: Any, display: str, shapes: dict[str, type]) -> None:
    """Refuse a JSON settings file twsrt cannot merge into: not an object, a repeated key, or a
    managed member of the wrong type (``shapes`` maps pointers to ``dict`` or ``list``)."""
    from twsrt.findings import fail

    def where(pointer: str, key: bool = False) -> Location:
        return located(display, parsed, pointer, key=key)  # start and end, for SARIF

    document = parsed.value
    if not isinstance(document, dict):
        raise fail(TARGET_UNUSABLE, "settings file is not a JSON object", where(""))
    if parsed.duplicate_keys:
        pointer = parsed.duplicate_keys[0]
        message = "settings file repeats a key; fix it by hand first"
        raise fail(TARGET_UNUSABLE, message, where(pointer, True))
    for pointer, kind in shapes.items():
        node = value_at(document, pointer)
        if node is not None and not isinstance(node, kind):
            expected = "an object" if kind is dict else "an array"
            raise fail(TARGET_UNUSABLE, f"'{quoted(pointer)}' must be {expected}", where(pointer))


def splice_settings(
    base_text: str | None,
    display: str,
    shapes: dict[str, type],
    merge: Callable[[dict[str, Any]], dict[str, Any]],
    documents: Documents | None = None,
) -> str:
    """A JSON settings file with only the members ``merge`` returns spliced into the user's
    text (every other byte kept); a new file when there is none, and the text unchanged when
    the managed members are already right, key order included. ``documents``: the run's
    store, so the text read from disk is parsed once for every stage (``merge`` gets the
    shared value and must not change it)."""

    from twsrt.findings import fail
    from twsrt.jsonedit import render_new, replace_members
    from twsrt.jsonpos import JsonSyntaxError
    from twsrt.writes import keep_line_endings

    if base_text is None or not base_text.strip():
        return render_new(merge({}))
    documents = documents or Documents()
    try:
        parsed = documents.json(base_text)
    except JsonSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise fail(
            TARGET_UNUSABLE, f"invalid JSON in settings file: {exc.message}", location
        ) from None
    check_json_shape(parsed, display, shapes)
    updates = merge(parsed.value)
    if all(same_json(parsed.value.get(k), v) for k, v in updates.items()):
        return base_text
    # spliced members come out with LF; a CRLF file (also one migrated to a new name) stays CRLF
    return keep_line_endings(base_text, replace_members(base_text, updates, documents.json))


def same_json(a: Any, b: Any) -> bool:
    """``json.dumps(a) == json.dumps(b)`` (key order, ``1`` against ``1.0`` or ``true``
    included) without rendering either: at 50k rules the two renderings of every managed member
    cost more than the splice. A list of strings is compared at C speed; what this does not
    take apart is left to ``json.dumps``."""
    import json

    kind = type(a)
    if kind in (list, tuple) and type(b) in (list, tuple):
        if len(a) != len(b):
            return False
        if {*map(type, a), *map(type, b)} <= {str}:
            return list(a) == list(b)
        return all(map(same_json, a, b))
    if kind is dict and type(b) is dict:
        if all(type(key) is str for key in (*a, *b)):  # json.dumps makes 1 and "1" alike
            if list(a) != list(b):
                return False
            return all(same_json(value, b[key]) for key, value in a.items())
    elif kind is type(b) and kind in (str, int, bool, type(None)):
        return bool(a == b)
    return json.dumps(a) == json.dumps(b)


def merge_sections(
    target: dict[str, Any],
    generated: dict[str, Any],
    sections: tuple[tuple[str, tuple[str, ...]], ...],
) -> None:
    """Set the managed keys of each sub-object (``network``, ``filesystem``) in ``target`` to the
    generated values, removing the ones not generated this run; other keys stay (in place)."""
    for section, keys in sections:
        # the user's keys copied; a managed key only keeps its place (each is set or removed
        # below), so the thousands of entries about to be replaced are never copied
        part = copy_for_merge(target.get(section) or {}, keys)
        wanted = generated.get(section, {})
        for key in keys:
            if key in wanted:
                part[key] = _copied(wanted[key])
            else:
                part.pop(key, None)  # stale: not generated in this run
        if part or section in target:
            target[section] = part


def _copied(value: Any) -> Any:
    """A deep copy of a JSON value; a list of strings (the usual managed value, thousands of
    entries) in one C call instead of one ``deepcopy`` call per entry."""
    if isinstance(value, list) and set(map(type, value)) <= {str}:  # a C loop, not a genexpr
        return list(value)
    from copy import deepcopy

    return deepcopy(value)


def copy_for_merge(
    document: dict[str, Any], replaced: Iterable[str] = (), rebuilt: Iterable[str] = ()
) -> dict[str, Any]:
    """A deep copy of a user's object for a merge that sets or removes each ``replaced`` key
    (a None holds its place, so the key order stays) and rebuilds each ``rebuilt`` sub-object
    from copies (``merge_sections``; it is handed over as it is): the large managed lists are
    never copied only to be thrown away."""
    from copy import deepcopy

    placeholders, handed_over = set(replaced), set(rebuilt)
    out: dict[str, Any] = {}
    for key, value in document.items():
        if key in placeholders:
            out[key] = None
        elif key in handed_over:
            out[key] = value
        else:
            out[key] = deepcopy(value)
    return out
