"""The network entries srt refuses, by srt's own rules (``sandbox/domain-pattern.js``, 0.0.83).

srt will not start with such an entry ("Overly broad patterns like "*.com" or "*" are not allowed
for security reasons"), while the agents take ``*`` and ``*.com`` as allow-all, so no agent may
be generated from one. Pure functions, no host lookups: the answer depends on the text only.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

_PORT = re.compile(r"[1-9][0-9]{0,4}")


def _ipv6(text: str) -> ipaddress.IPv6Address | None:
    try:
        return ipaddress.IPv6Address(text)
    except ValueError:
        return None


def _canonical(host: str) -> str:
    """srt's canonicalizeHost, as far as validity depends on it: IPv6 compressed, an
    IPv4-mapped address as IPv4, a name in lower case without one trailing dot."""
    address = _ipv6(host)
    if address is not None:
        return str(address.ipv4_mapped or address)
    return host.lower().removesuffix(".")


def _port(text: str) -> int | None:
    return int(text) if _PORT.fullmatch(text) and int(text) <= 65535 else None


def split_port(entry: str) -> tuple[str, str | None]:
    """A network entry's host and port as written, the split every agent translation uses:
    ``[v6]:443`` -> ``("[v6]", "443")``, ``host:80`` -> ``("host", "80")``; an unbracketed IPv6
    literal (more than one ``:``) has no port."""
    if entry.startswith("["):
        host, _, rest = entry.partition("]")
        return host + "]", rest[1:] if rest.startswith(":") else None
    if entry.count(":") == 1:
        host, _, port = entry.partition(":")
        return host, port
    return entry, None


def srt_split_port(entry: str) -> tuple[str, int | None]:
    """srt's splitDomainPatternPort: the canonical host pattern and the port of an entry, the
    whole entry as host when its port is not a valid one."""
    host, port_text = split_port(entry)
    if entry.startswith("["):
        if "]" not in entry:
            return entry, None
        bracketed, host = host, _canonical(host[1:-1].split("%", 1)[0])
        if bracketed == entry:
            return host, None
    elif port_text is None:
        if ":" not in entry:
            return entry, None
        return _canonical(entry.split("%", 1)[0]), None  # an IPv6 literal (or garbage)
    port = _port(port_text or "")
    return (entry, None) if port is None else (host, port)


def valid_host_pattern(host: str) -> bool:
    """srt's isValidDomainPattern."""
    if _ipv6(host) is not None:
        return True
    if "/" in host or ":" in host:
        return False
    if host == "localhost":
        return True
    if host.startswith("*."):
        parts = host[2:].split(".")
        return len(parts) >= 2 and all(parts)  # *.example.com, never *.com
    if "*" in host:
        return False
    return "." in host and not host.startswith(".") and not host.endswith(".")


def srt_accepts(entry: str, *, denied: bool) -> bool:
    """Whether srt takes ``entry`` in deniedDomains (``denied``) or allowedDomains."""
    if entry.count(":") > 1 and not entry.startswith("["):
        return False  # an IPv6 literal must be bracketed
    host, _ = srt_split_port(entry)
    return (denied and host == "*") or valid_host_pattern(host)


def refusal(entry: str, *, denied: bool) -> str:
    """Why srt refuses ``entry``; call only when :func:`srt_accepts` says it does."""
    host, _ = srt_split_port(entry)
    if host == "*" or (host.startswith("*.") and "." not in host[2:] and host[2:]):
        scope = "every host" if host == "*" else f"every host under .{host[2:]}"
        if not denied:
            return f"it would allow {scope}, and every agent would allow it too"
    return (
        "srt takes a domain (example.com), *.example.com (at least two labels after *.), "
        "localhost, an IP address or a bracketed IPv6 literal, each with an optional "
        ":port (1-65535)" + ('; a bare "*" only in deniedDomains' if denied else "")
    )


def refused_entries(srt: Any) -> list[tuple[str, int, str]]:
    """(list name, index, entry) of every network entry srt refuses in the srt settings."""
    network = srt.get("network") if isinstance(srt, dict) else None
    if not isinstance(network, dict):
        return []
    out = []
    for key, denied in (("allowedDomains", False), ("deniedDomains", True)):
        entries = network.get(key)
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if isinstance(entry, str) and entry and not srt_accepts(entry, denied=denied):
                out.append((key, index, entry))
    return out
