"""Wildcard matching that stays linear in the pattern times the text.

A pattern in a target, a policy or a config is attacker-controlled in CI, so no backtracking
regex is ever built from one: ``a*a*a*…*b`` against a long text is exponential for
``re`` (``.*`` joined), yet a match only ever needs to move back to the last ``*`` seen,
which bounds the work by ``len(pattern) * len(text)`` steps."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import cast

_STAR = None  # a token that is a ``*``; every other token matches exactly one character

Predicate = Callable[[str], bool]  # one character tested
Token = Predicate | None


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


# ---------------------------------------------------------------- git-style globs (twsrt test)

# A compiled glob is a Thompson automaton: node i is (predicate or None, out, alt). A predicate
# consumes one character and moves to ``out``; None is a choice of ``out`` and ``alt`` (either
# may be None) without consuming. Running it keeps the set of nodes reached, so a match costs
# at most ``len(nodes) * len(text)`` steps whatever the pattern (``**/**/…`` included).
_Node = list  # [predicate | None, out, alt]
_MATCH = -1


def _not_slash(char: str) -> bool:
    return char != "/"


def _slash(char: str) -> bool:
    return char == "/"


class GitGlob:
    """A git-style glob (``**/`` any run of directories, ``**`` anything, ``*``/``?`` within
    one part, ``[...]``/``[!...]``, ``{a,b}``, ``\\x``) matched against a whole path."""

    def __init__(self, pattern: str) -> None:
        self.nodes: list[_Node] = []
        self.start = self._sequence(pattern, _MATCH)

    def match(self, text: str) -> bool:
        current = self._closure([self.start])
        for char in text:
            moved = [
                node[1]
                for i in current
                if i != _MATCH
                for node in [self.nodes[i]]
                if node[0] is not None and node[0](char)
            ]
            if not moved:
                return False
            current = self._closure(moved)
        return _MATCH in current

    def _closure(self, states: list[int]) -> set[int]:
        seen: set[int] = set()
        stack = list(states)
        while stack:
            state = stack.pop()
            if state is None or state in seen:
                continue
            seen.add(state)
            if state != _MATCH and self.nodes[state][0] is None:
                stack += [self.nodes[state][1], self.nodes[state][2]]
        return seen

    def _node(
        self, predicate: Callable[[str], bool] | None, out: int | None, alt: int | None
    ) -> int:
        self.nodes.append([predicate, out, alt])
        return len(self.nodes) - 1

    def _loop(self, predicate: Callable[[str], bool], after: int) -> int:
        """``predicate`` any number of times, then ``after``."""
        choice = self._node(None, None, after)
        self.nodes[choice][1] = self._node(predicate, choice, None)
        return choice

    def _sequence(self, pattern: str, after: int) -> int:
        """The automaton of ``pattern`` followed by ``after``, built from its end."""
        state = after
        for kind, value in reversed(_glob_parts(pattern)):
            if kind == "segments":  # (?:[^/]*/)*
                choice = self._node(None, None, state)
                inner = self._node(None, None, self._node(_slash, choice, None))
                self.nodes[inner][1] = self._node(_not_slash, inner, None)
                self.nodes[choice][1] = inner
                state = choice
            elif kind == "star":
                state = self._loop(cast(Predicate, value), state)
            elif kind == "alternatives":
                starts = [
                    self._sequence(alternative, state) for alternative in cast(list[str], value)
                ]
                state = starts[-1]
                for start in reversed(starts[:-1]):
                    state = self._node(None, start, state)
            else:
                state = self._node(cast(Predicate, value), state, None)
        return state


def _glob_parts(pattern: str) -> list[tuple[str, object]]:
    """``pattern`` as (kind, value) parts: one character (a predicate), a star (the predicate
    it repeats), ``segments`` (``**/``), ``alternatives`` (their patterns); the kind says the
    value's type, which the readers cast to."""
    out: list[tuple[str, object]] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            if out[-1:] != [("segments", None)]:  # a run of them is one: the same paths
                out.append(("segments", None))
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(("star", _any))
            i += 2
            continue
        if char == "*":
            out.append(("star", _not_slash))
        elif char == "?":
            out.append(("char", _not_slash))
        elif char == "[" and pattern.find("]", i + 2) >= 0:
            end = pattern.find("]", i + 2)
            out.append(("char", _git_set(pattern[i + 1 : end])))
            i = end
        elif char == "{" and pattern.find("}", i) >= 0:
            end = pattern.find("}", i)
            out.append(("alternatives", pattern[i + 1 : end].split(",")))
            i = end
        elif char == "\\" and i + 1 < n:
            out.append(("char", _literal(pattern[i + 1])))
            i += 1
        else:
            out.append(("char", _literal(char)))
        i += 1
    return out


def _git_set(body: str) -> Callable[[str], bool]:
    """One ``[...]`` (``!``/``^`` negates), matched against one character: its characters and
    ``a-z`` ranges (a ``-`` first or last is itself; a backslash is itself, as in a path). No
    regex is built from the policy's text, so a ``[`` or ``&&`` in it means only itself and a
    reversed range such as ``z-a`` matches nothing, as git's wildmatch does."""
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            ranges.append((body[i], body[i + 2]))
            i += 3
        else:
            chars.add(body[i])
            i += 1

    def member(char: str) -> bool:
        inside = char in chars or any(low <= char <= high for low, high in ranges)
        return inside is not negate

    return member
