"""Copilot's launch flags: compiled from the policy, rendered as a shell snippet, and read
back as drift items."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

from twsrt.agents.base import DriftItem
from twsrt.agents.copilot.declaration import (
    _DOMAIN,
    ALLOW_TOOLS,
    READ_ONLY_DENY_TOOL,
    WRITE_TOOLS,
    _lossy,
)
from twsrt.agents.copilot.rules import LOSSY_ASK_AS_DENY
from twsrt.domains import split_port
from twsrt.findings import Finding, TwsrtError, quoted
from twsrt.locations import Location
from twsrt.policy import Policy
from twsrt.rules import UNEXPRESSIBLE_COMMAND, UNEXPRESSIBLE_DOMAIN


def quote(value: str) -> str:
    """``shlex.quote``, but always quoted, as the seed prints every value ('read')."""
    quoted = shlex.quote(value)
    return quoted if quoted != value else f"'{value}'"


def render_snippet(argv: list[str]) -> str:
    """One flag (with its value) per line, ` \\` on every line but the last."""
    lines: list[str] = []
    index = 0
    while index < len(argv):
        flag = argv[index]
        if flag == "--yolo":
            lines.append(flag)
            index += 1
            continue
        lines.append(f"{flag} {quote(argv[index + 1])}")
        index += 2
    return " \\\n".join(lines) + "\n" if lines else ""


# A POSIX shell word (shlex's, with whitespace_split): unquoted runs, '...', "..." with
# backslash escapes, and backslash-escaped characters, glued together. shlex reads one character
# per Python call, which made reading back a large snippet the slowest part of a Copilot check.
# The two forms twsrt writes (a bare flag, a '...' value) are captured whole; any other word is
# taken apart by _PART.
_BLANK = " \t\r\n"
_END = rf"(?=[{_BLANK}]|\Z)"
_WORD = re.compile(
    rf"""[{_BLANK}]*(?:'([^']*)'{_END}|([^{_BLANK}'"\\]+){_END}"""
    rf"""|((?:[^{_BLANK}'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+))[{_BLANK}]*""",
    re.S,
)
_PART = re.compile(r"""([^'"\\]+)|'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)""", re.S)
_IN_DOUBLE = re.compile(r'\\([\\"])')


def parse_snippet(text: str) -> list[str]:
    """The argv a shell would see: continuation lines joined, then split as ``shlex.split``
    does (text it cannot split, an unclosed quote, goes to shlex for its ValueError)."""
    text = text.replace("\\\n", "")
    words: list[str] = []
    position = 0
    for match in _WORD.finditer(text):
        if match.start() != position:
            return shlex.split(text)
        single, bare, other = match.groups()
        words.append(_unquote(other) if other is not None else bare if single is None else single)
        position = match.end()
    if text[position:].strip(_BLANK):
        return shlex.split(text)
    return words


def _unquote(word: str) -> str:
    out: list[str] = []
    for plain, single, double, escaped in _PART.findall(word):
        # inside "...", a backslash escapes only " and itself (shlex keeps it before others)
        out.append(plain or single or _IN_DOUBLE.sub(r"\1", double) or escaped)
    return "".join(out)


def _domain(entry: Any) -> tuple[str, str | None]:
    """Host and port of a policy domain; anything Copilot could misread is refused."""
    value = entry.value
    match = _DOMAIN.fullmatch(value)
    port = match["port"] if match else None
    if match is None or value.startswith("-") or (port is not None and not 0 < int(port) < 65536):
        raise TwsrtError(
            _lossy(
                UNEXPRESSIBLE_DOMAIN,
                f"'{quoted(value)}' is not a host pattern Copilot can take (a hostname, IP, "
                "*.example.com or *, optionally with :port); fix the entry",
                entry.origin,
            )
        )
    return split_port(value)


def _shell(entry: Any) -> str:
    if ")" in entry.value:
        raise TwsrtError(
            _lossy(
                UNEXPRESSIBLE_COMMAND,
                f"command '{quoted(entry.value)}' contains ')', which Copilot's shell(...) tool "
                "pattern rejects; rewrite the rule without it",
                entry.origin,
            )
        )
    return f"shell({entry.value})"


def compile_flags(
    policy: Policy,
    yolo: bool,
    origins: dict[str, Location],
    sandbox_mode: str = "workspace-write",
) -> tuple[list[str], list[Finding]]:
    """The argv of the launch flags: grants (full mode only), then denies, then URLs."""
    findings: list[Finding] = []
    for entry in [*policy.allowed_domains, *policy.denied_domains]:
        _domain(entry)  # refused in every mode, so full and yolo agree on bad input
    pairs: dict[tuple[str, str], None] = {}
    for flag, value, origin in _flags(policy, yolo, sandbox_mode == "read-only", findings):
        pairs.setdefault((flag, value))
        if origin is not None:
            origins.setdefault(value, origin)
    argv = ["--yolo"] if yolo else []
    for flag, value in pairs:
        argv += [flag, value]
    return argv, findings


def _flags(
    policy: Policy, yolo: bool, read_only: bool, findings: list[Finding]
) -> Iterator[tuple[str, str, Location | None]]:
    """Every flag with its value and the source rule behind it, in order, repeats included."""
    if not yolo and policy.allow_write:
        for tool in ALLOW_TOOLS:
            if not (read_only and tool in WRITE_TOOLS):
                yield "--allow-tool", tool, None
    if read_only:
        yield "--deny-tool", READ_ONLY_DENY_TOOL, None
    for entry in policy.bash_deny:
        yield "--deny-tool", _shell(entry), entry.origin
    if not yolo:  # yolo skips ask rules, as for every agent
        for entry in policy.bash_ask:
            yield "--deny-tool", _shell(entry), entry.origin
            findings.append(
                _lossy(
                    LOSSY_ASK_AS_DENY,
                    f"Copilot has no ask tier; bash ask '{quoted(entry.value)}' is denied outright",
                    entry.origin,
                )
            )
        for entry in policy.allowed_domains:
            yield "--allow-url", entry.value, entry.origin
    for entry in policy.denied_domains:
        # a pattern without a scheme means https:// only; deny http:// too, or --yolo
        # (which allows every URL) would still reach the denied host over plain http
        yield "--deny-url", entry.value, entry.origin
        yield "--deny-url", f"http://{entry.value}", entry.origin


def _flag_items(text: str) -> list[DriftItem]:
    try:
        argv = parse_snippet(text)
    except ValueError:
        return [DriftItem("line", line) for line in text.splitlines() if line.strip()]
    items: list[DriftItem] = []
    words = iter(argv)
    for flag in words:
        # a flag takes the next word as its value; --yolo and a stray word stand alone
        paired = flag.startswith("--") and flag != "--yolo"
        items.append(DriftItem(flag, next(words, "") if paired else ""))
    return items
