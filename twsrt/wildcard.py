"""Wildcard matching that stays linear in the pattern times the text.

A pattern in a target, a policy or a config is attacker-controlled in CI, so no backtracking
regex is ever built from one: ``a*a*a*…*b`` against a long text is exponential for
``re`` (``.*`` joined), yet a match only ever needs to move back to the last ``*`` seen,
which bounds the work by ``len(pattern) * len(text)`` steps."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

_STAR = None  # a token that is a ``*``; every other token matches exactly one character

Token = Callable[[str], bool] | None


def star_match(pattern: str, text: str) -> bool:
    """Does ``pattern``, whose only wildcard is ``*`` (any run of characters, newlines and
    ``/`` included), match the whole of ``text``? The leftmost placement of each part between
    stars is always a valid one, so no placement is ever revisited."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern == text
    first, *middle, last = parts
    if len(text) < len(first) + len(last) or not text.startswith(first):
        return False
    if not text.endswith(last):
        return False
    start, end = len(first), len(text) - len(last)
    for part in middle:
        found = text.find(part, start, end)
        if found < 0:
            return False
        start = found + len(part)
    return True


def fnmatch(name: str, pattern: str) -> bool:
    """``fnmatch.fnmatchcase(name, pattern)`` (``*``, ``?``, ``[...]``, ``[!...]``), in
    ``O(len(pattern) * len(name))`` steps."""
    return _match(_tokens(pattern), name)


def _match(tokens: tuple[Token, ...], text: str) -> bool:
    """Two pointers; on a mismatch, back to just after the last ``*`` with one more
    character given to it (the earlier stars never need more: see ``star_match``)."""
    t = p = 0
    star, mark = -1, 0
    while t < len(text):
        if p < len(tokens) and tokens[p] is _STAR:
            star, mark = p, t
            p += 1
        elif p < len(tokens) and tokens[p](text[t]):  # type: ignore[misc]
            p += 1
            t += 1
        elif star >= 0:
            p, mark = star + 1, mark + 1
            t = mark
        else:
            return False
    while p < len(tokens) and tokens[p] is _STAR:
        p += 1
    return p == len(tokens)


@lru_cache(maxsize=1024)
def _tokens(pattern: str) -> tuple[Token, ...]:
    """The pattern as fnmatch reads it: a ``[`` without its ``]`` is a literal, a ``]`` right
    after ``[`` or ``[!`` belongs to the set."""
    out: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        i += 1
        if char == "*":
            if not out or out[-1] is not _STAR:  # a run of stars is one star
                out.append(_STAR)
        elif char == "?":
            out.append(_any)
        elif char == "[":
            j = i + 1 if i < n and pattern[i] == "!" else i
            j = j + 1 if j < n and pattern[j] == "]" else j
            end = pattern.find("]", j)
            if end < 0:
                out.append(_literal("["))
            else:
                out.append(_char_set(pattern[i - 1 : end + 1]))
                i = end + 1
        else:
            out.append(_literal(char))
    return tuple(out)


def _any(char: str) -> bool:
    return True


def _literal(expected: str) -> Callable[[str], bool]:
    return expected.__eq__


def _char_set(spelled: str) -> Callable[[str], bool]:
    """One ``[...]`` as fnmatch reads it (ranges, ``!``, empty ranges that match nothing).
    fnmatch's own translation of a lone set is a single character class, which cannot
    backtrack, and it is only ever matched against one character."""
    import fnmatch as stdlib
    import re

    regex = re.compile(stdlib.translate(spelled))
    return lambda char: regex.match(char) is not None
