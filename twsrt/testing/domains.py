"""srt's domain matching, and the concrete host and URL probed for a domain rule."""

from __future__ import annotations

from twsrt.policy import Policy
from twsrt.testing.model import CANARY_HOSTS, TAG


def split_domain(entry: str) -> tuple[str, int | None]:
    from twsrt.agents.claude import split_port

    host, port = split_port(entry)
    return host.lower(), int(port) if port and port.isdigit() else None


def domain_matches(entry: str, host: str, port: int) -> bool:
    """srt's matcher: exact host, ``*.x`` = subdomains only, bare ``*`` (deny lists), ``:port``."""
    pattern, want_port = split_domain(entry)
    if want_port is not None and want_port != port:
        return False
    host = host.lower()
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def host_allowed(policy: Policy, host: str, port: int) -> bool:
    if any(domain_matches(e.value, host, port) for e in policy.denied_domains):
        return False  # deniedDomains is checked first and wins
    return any(domain_matches(e.value, host, port) for e in policy.allowed_domains)


def instance_host(entry: str) -> tuple[str, int]:
    host, port = split_domain(entry)
    if host == "*":
        host = CANARY_HOSTS[0]
    elif host.startswith("*."):
        host = TAG + host[1:]
    return host, port or 80


def probe_url(host: str, port: int) -> str:
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"
