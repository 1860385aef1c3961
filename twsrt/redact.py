"""Values under keys that hold credentials are never printed.

Reports quote what twsrt manages (diffs, drift items); the user's own keys are elided before
that (``diffs.py``). As a second line, every value twsrt prints from a target file passes through
``redact``: a value whose key name says it holds a credential (a token, a password, an API key, a
header map, an environment block, a helper that prints a key, ...) becomes ``<redacted>``. A
key below a map of data (paths, hosts, a Codex prefix rule's command words) names nothing, so
``{ token = "gh" }`` stays readable. A file twsrt generates whole (``redact_text``, the diff's
``whole`` view) is redacted line by line: a ``key = value`` or ``key: value`` line under a
credential key, every line of a table whose name holds one, and everywhere the value shapes of
``secret_shapes`` (an Authorization scheme, a URL's user and password, a provider's token
prefix) as the part that is the secret, the command words around it kept.
"""

from __future__ import annotations

import json
import re
from typing import Any

MARK = "<redacted>"

# Substrings of a normalised key name (lower case, letters and digits only).
_SECRET_PARTS = (
    "token",
    "secret",
    "passw",
    "apikey",
    "auth",  # authorization, oauth, awsAuthRefresh
    "bearer",
    "credential",
    "header",  # http_headers, env_http_headers, otelHeadersHelper
    "cookie",
    "privatekey",
    "accesskey",
    "session",
    "signature",
)
# Whole names: environment blocks (Claude ``env``, an MCP server's ``env``).
_SECRET_NAMES = frozenset({"env", "environment"})
# Managed members whose name matches a part above but which carry policy text, never a secret:
# Claude's ``sandbox.credentials`` is the srt ``credentials`` section (file paths, variable names).
POLICY_PATHS = frozenset({("sandbox", "credentials")})
# Below these, keys are data, not names: a Codex permission profile maps paths (``secrets``,
# ``"**/.env"``) and hosts to access modes under ``filesystem`` and ``network.domains``; a prefix
# rule of requirements.toml spells its command words ``{ token = "gh" }``.
DATA_MAPS = frozenset({"filesystem", "domains", "prefix_rules"})
_NORMALISE = re.compile(r"[^a-z0-9]")
# A setting's name; a key with a dot, slash, glob or colon is data (a path or a domain in a
# Codex profile, such as "**/.env" or "~/.aws/credentials"), not a name that says "secret".
_NAME = re.compile(r"^[A-Za-z0-9_ -]+$")


def secret_key(name: str) -> bool:
    """Does a key of this name hold a credential?"""
    if not _NAME.match(name):
        return False
    plain = _NORMALISE.sub("", name.lower())
    return plain in _SECRET_NAMES or any(part in plain for part in _SECRET_PARTS)


def secret_path(path: tuple[str, ...]) -> bool:
    """Does any key on ``path`` (outer first) hold a credential?"""
    for index, name in enumerate(path):
        if secret_key(name) and path[: index + 1] not in POLICY_PATHS:
            return True
        if name in DATA_MAPS:
            return False
    return False


def redact(value: Any, path: tuple[str, ...] = ()) -> Any:
    """``value`` (found at ``path``) with every value under a credential key replaced."""
    if path and secret_path(path):
        return MARK
    if isinstance(value, dict):
        return {key: redact(item, (*path, str(key))) for key, item in value.items()}
    if isinstance(value, list):
        return [redact(item, path) for item in value]
    return secret_shapes(value) if isinstance(value, str) else value


def redact_item(key: str, value: str) -> str:
    """A drift item's value (``key`` dotted, ``value`` JSON or plain text) as it may be quoted;
    a plain line (a whole file's) as ``redact_text`` shows it."""
    path = tuple(key.split("."))
    if secret_path(path):
        return MARK
    try:
        decoded = json.loads(value)
    except ValueError:
        return redact_text(value)
    if not isinstance(decoded, dict | list):
        return secret_shapes(value)
    cleaned = redact(decoded, path)
    return value if cleaned == decoded else json.dumps(cleaned, ensure_ascii=False)


# The part of a value that is a secret, found by its shape wherever it is (a command, a header,
# a URL, a whole file's line). twsrt's own patterns: no nested repetition, so each is linear.
_SHAPES = re.compile(
    r"(?i:\b(?:bearer|basic|digest)[ \t]+)(?P<scheme>[A-Za-z0-9._~+/=-]{8,})"
    r"|(?i:\b(?:proxy-)?authorization[ \t]*[:=][ \t]*(?:(?:bearer|basic|digest|token)[ \t]+)?)"
    r"(?P<header>[^\s\"'\\,;)]+)"  # never a backslash: it may escape the closing quote
    r"|://(?P<userinfo>[^/\s:@\"'\\]+:[^/\s@\"'\\]+)@"
    r"|(?P<token>\b(?:gh[opsur]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|sk-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}))"
    r"|(?P<key>-----BEGIN [A-Z ]*PRIVATE KEY-----)"
)
# Only a text holding one of these can hold a shape: most values skip the search.
_HEADER_HINTS = ("bearer", "basic", "digest", "authorization", "://")
_SHAPE_HINTS = (*_HEADER_HINTS, "gh", "github_pat_", "glpat-", "sk-", "xox", "AKIA", "PRIVATE KEY")


def redact_key(key: str) -> str:
    """A drift item's key as it may be quoted: a Codex rule's command words or a flag's word
    may hold a secret-shaped part."""
    return secret_shapes(key)


def secret_shapes(text: str) -> str:
    """``text`` with each part that is shaped like a secret as ``<redacted>``."""
    folded = text.lower()
    if not any(hint.lower() in folded for hint in _SHAPE_HINTS):
        return text

    def hide(match: re.Match[str]) -> str:
        group = match.lastgroup or ""
        start, end = match.span(group)
        whole, offset = match.group(), match.start()
        return whole[: start - offset] + MARK + whole[end - offset :]

    return _SHAPES.sub(hide, text)


# A line of a settings text: a key (bare, dotted or quoted) and its value after ``=`` or ``:``;
# a table header (TOML ``[a.b]``, ``[[a]]``; INI ``[http "url"]``).
_LINE_KEY = re.compile(
    r'^(?P<lead>[ \t]*(?:"(?P<quoted>[^"\\]{1,200})"|(?P<bare>[A-Za-z0-9_.-]{1,200}))'
    r"[ \t]*[=:][ \t]*)(?P<value>\S.*)$"
)
_HEADER = re.compile(r"^[ \t]*\[\[?(?P<name>[^\]]{1,500})\]\]?[ \t]*(?:[#;].*)?$")
_HEADER_PART = re.compile(r'"([^"]*)"|([A-Za-z0-9_-]+)')


def redact_text(text: str) -> str:
    """A whole file's text as a report may show it: layout kept, line for line, with the
    value of every credential line and every secret-shaped part ``<redacted>``. A key is
    judged by its table's path too (``[mcp_servers.x.env]``; below ``filesystem``, data); a
    value that opens a block on more lines (JSON's ``"env": {``) hides them up to its close."""
    out = []
    table: tuple[str, ...] = ()
    depth = 0  # the brackets still open of a hidden block
    for line in text.split("\n"):
        if depth > 0:
            depth += _brackets(line)
            continue
        header = _HEADER.match(line)
        keyed = None if header else _LINE_KEY.match(line)
        if header is not None:
            table = tuple(a or b for a, b in _HEADER_PART.findall(header.group("name")))
        elif keyed is not None:
            name = keyed.group("quoted") or keyed.group("bare") or ""
            if secret_path((*table, *name.split("."))):
                value = keyed.group("value")
                quote = value[0] if value[0] in "\"'" else ""
                out.append(f"{keyed.group('lead')}{quote}{MARK}{quote}")
                depth = max(_brackets(value), 0)
                continue
        out.append(secret_shapes(line))
    return "\n".join(out)


def _brackets(text: str) -> int:
    """Brackets ``text`` opens minus those it closes (strings not told apart: a report's
    hidden block may end late, never early on a balanced line)."""
    return text.count("{") + text.count("[") - text.count("}") - text.count("]")
