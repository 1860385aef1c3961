"""srt's domain matching, and the network probes of the domain rules.

The matcher follows srt 0.0.83 (``sandbox/domain-pattern.js``, ``parent-proxy.js``): the request's
host is canonicalised first (lower case, one trailing dot dropped), an entry without a port
matches every port and one with a port only that port, ``*.x`` matches strict subdomains of
``x`` (never the apex, never an IP literal), a bare ``*`` (deny lists only) matches every host,
and deniedDomains is checked before allowedDomains.
"""

from __future__ import annotations

import ipaddress

from twsrt.policy import Entry, Policy
from twsrt.records import record
from twsrt.testing.model import CANARY_HOSTS, TAG, Action, Outcome, Probe

# Ports tried beside each entry's own: HTTPS's and one no rule in the examples names.
OTHER_PORTS = (443, 8080)


def split_domain(entry: str) -> tuple[str, int | None]:
    from twsrt.domains import split_port

    host, port = split_port(entry)
    return host.lower(), int(port) if port and port.isdigit() else None


def canonical_host(host: str) -> str:
    """The host as srt compares it: lower case, without one trailing dot."""
    return host.lower().removesuffix(".")


def is_ip(host: str) -> bool:
    """An IP literal (bracketed IPv6 too), which srt's ``*.x`` never matches."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def domain_matches(entry: str, host: str, port: int) -> bool:
    """srt's matcher: exact host, ``*.x`` = subdomains only, bare ``*`` (deny lists), ``:port``."""
    pattern, want_port = split_domain(entry)
    if want_port is not None and want_port != port:
        return False
    host = canonical_host(host)
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return not is_ip(host) and host.endswith(pattern[1:])
    return host == pattern


# Entries compared with entries (a project policy narrowing the user's, narrowing.py)


def entry_key(entry: str) -> tuple[str, int | None]:
    """An entry's host as srt compares it and its port (None: every port); entries indexed
    by this key are looked up with ``domain_holders``."""
    host, port = split_domain(entry)
    return canonical_host(host), port


def _host_within(host: str, pattern: str) -> bool:
    """Every host ``host`` (an entry's pattern) admits, ``pattern`` admits (srt's matcher)."""
    if pattern == "*" or host == pattern:
        return True
    if pattern.startswith("*.") and host != "*":
        return host.endswith(pattern[1:]) and not is_ip(host)
    return False


def domain_within(entry: str, other: str) -> bool:
    """Every (host, port) ``entry`` matches, ``other`` matches."""
    (host, port), (pattern, want) = entry_key(entry), entry_key(other)
    return (want is None or want == port) and _host_within(host, pattern)


def domain_holders(entry: str) -> list[tuple[str, int | None]]:
    """Every (host pattern, port) of an entry that holds ``entry`` (``domain_within``): its
    own host, ``*`` and each ``*.suffix`` of a name, on its port or on every port."""
    host, port = entry_key(entry)
    patterns = {host, "*"}
    if host != "*" and not is_ip(host):
        patterns |= {"*" + host[i:] for i, char in enumerate(host) if char == "."}
    return [(pattern, want) for pattern in patterns for want in {None, port}]


def domains_meet(entry: str, other: str) -> bool:
    """Whether some (host, port) matches both entries."""
    (host, port), (pattern, want) = entry_key(entry), entry_key(other)
    ports = port is None or want is None or port == want
    return ports and (_host_within(host, pattern) or _host_within(pattern, host))


def host_allowed(policy: Policy, host: str, port: int) -> bool:
    if any(domain_matches(e.value, host, port) for e in policy.denied_domains):
        return False  # deniedDomains is checked first and wins
    return any(domain_matches(e.value, host, port) for e in policy.allowed_domains)


def allow_admits(policy: Policy, host: str, port: int) -> bool:
    """An allowedDomains entry admits the host, whatever the deny list says."""
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


@record
class DomainProbe(Probe):
    """One request for one domain rule; ``form`` says which spelling of the host it tries."""

    form: str = ""  # "" (the entry's own host), subdomain, apex, upper, dot, port N

    @property
    def name(self) -> str:
        return f"{self.kind} {self.rule} [{self.form}]" if self.form else super().name


def domain_probes(policy: Policy) -> list[Probe]:
    """Per allowedDomains entry: the host, a subdomain, the apex (``*.x``), upper case, a trailing
    dot and other ports, each expecting what srt's matcher gives; the canary; per deniedDomains
    entry a host an allow entry would otherwise admit, in several spellings, or one probe that
    says it is not discriminating (``moot``) when no allow entry admits any host it denies."""
    probes: list[Probe] = []
    for entry in policy.allowed_domains:
        probes.extend(_allow_probes(policy, entry))
    canary = next((h for h in CANARY_HOSTS if not host_allowed(policy, h, 80)), None)
    if canary is not None:
        origin = policy.list_origin("/network/allowedDomains")
        url = probe_url(canary, 80)
        probes.append(Probe("canary-domain", canary, origin, Action.FETCH, Outcome.DENIED, url))
    for entry in policy.denied_domains:
        probes.extend(_deny_probes(policy, entry))
    return probes


def _probe(
    policy: Policy, kind: str, entry: Entry, form: str, host: str, port: int, moot: str = ""
) -> DomainProbe:
    expect = Outcome.ALLOWED if host_allowed(policy, host, port) else Outcome.DENIED
    has_port = split_domain(entry.value)[1] is not None
    url = probe_url(host, port)
    origin = entry.origin
    fetch = Action.FETCH
    return DomainProbe(
        kind, entry.value, origin, fetch, expect, url, port=has_port, moot=moot, form=form
    )


def _spellings(host: str, port: int) -> list[tuple[str, str, int]]:
    """The same host in the spellings srt canonicalises: upper case and a trailing dot."""
    out = [("upper", host.upper(), port)]
    if not is_ip(host):
        out.append(("dot", host + ".", port))
    return out


def _allow_probes(policy: Policy, entry: Entry) -> list[DomainProbe]:
    pattern, _ = split_domain(entry.value)
    host, port = instance_host(entry.value)
    forms: list[tuple[str, str, int]] = [("", host, port)]
    if not is_ip(host):
        # for *.x a deeper subdomain; for an exact entry, one it must not admit
        forms.append(("subdomain", f"{TAG}.{host}", port))
    if pattern.startswith("*."):
        forms.append(("apex", pattern[2:], port))
    forms += _spellings(host, port)
    forms += [(f"port {p}", host, p) for p in OTHER_PORTS if p != port]
    return [_probe(policy, "allow-domain", entry, f, h, p) for f, h, p in forms]


def _deny_probes(policy: Policy, entry: Entry) -> list[DomainProbe]:
    """A host the entry denies and an allow entry would otherwise admit, or a moot probe."""
    pattern, deny_port = split_domain(entry.value)
    candidates = [instance_host(entry.value)]
    for allowed in policy.allowed_domains:
        host, port = instance_host(allowed.value)
        candidates.append((host, deny_port or port))
        if pattern.startswith("*."):  # a subdomain of the deny below a wider allow
            candidates.append((TAG + pattern[1:], deny_port or port))
    for host, port in candidates:
        if domain_matches(entry.value, host, port) and allow_admits(policy, host, port):
            forms = [("", host, port), *_spellings(host, port)]
            return [_probe(policy, "deny-domain", entry, f, h, p) for f, h, p in forms]
    host, port = candidates[0]
    moot = (
        f"no allowedDomains entry admits {host}"
        + (f" on port {port}" if deny_port else "")
        + ": the allowlist refuses it anyway, so the refusal says nothing about this deny entry"
    )
    return [_probe(policy, "deny-domain", entry, "", host, port, moot)]
