"""Domain probes of `twsrt test` (issue 13 item 2): the variants per entry with srt's expectation,
deny probes only where they discriminate (else MOOT), and Codex's `not_allowed_local` answer."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from support.policies import fs

from twsrt.agents.codex.engine import route_network
from twsrt.locations import Location
from twsrt.reports.probes import junit_xml, render_json, render_text
from twsrt.testing.commands import observe
from twsrt.testing.derive import derive
from twsrt.testing.domains import domain_matches
from twsrt.testing.model import Action, Observation, Outcome, Probe, ProbeReport, Result, Verdict
from twsrt.testing.verdicts import judge


def net_plan(allowed: list[str], denied: list[str]) -> list[tuple[str, str, str]]:
    plan = derive(fs(allowedDomains=allowed, deniedDomains=denied))
    return [
        (p.name, p.target, "moot" if p.moot else p.expect.value)
        for p in plan.probes
        if p.action is Action.FETCH
    ]


def test_exact_and_wildcard_entries_give_every_variant_with_srt_expectations():
    assert net_plan(["api.example.com", "*.pkg.example:8443"], []) == [
        ("allow-domain api.example.com", "http://api.example.com/", "allowed"),
        # an exact entry does not admit its subdomains
        (
            "allow-domain api.example.com [subdomain]",
            "http://twsrt-probe.api.example.com/",
            "denied",
        ),
        ("allow-domain api.example.com [upper]", "http://API.EXAMPLE.COM/", "allowed"),
        ("allow-domain api.example.com [dot]", "http://api.example.com./", "allowed"),
        # no port in the entry: every port
        ("allow-domain api.example.com [port 443]", "http://api.example.com:443/", "allowed"),
        ("allow-domain api.example.com [port 8080]", "http://api.example.com:8080/", "allowed"),
        ("allow-domain *.pkg.example:8443", "http://twsrt-probe.pkg.example:8443/", "allowed"),
        (
            "allow-domain *.pkg.example:8443 [subdomain]",
            "http://twsrt-probe.twsrt-probe.pkg.example:8443/",
            "allowed",
        ),
        # *.x is subdomains only
        ("allow-domain *.pkg.example:8443 [apex]", "http://pkg.example:8443/", "denied"),
        (
            "allow-domain *.pkg.example:8443 [upper]",
            "http://TWSRT-PROBE.PKG.EXAMPLE:8443/",
            "allowed",
        ),
        (
            "allow-domain *.pkg.example:8443 [dot]",
            "http://twsrt-probe.pkg.example.:8443/",
            "allowed",
        ),
        # a port in the entry: that port only
        (
            "allow-domain *.pkg.example:8443 [port 443]",
            "http://twsrt-probe.pkg.example:443/",
            "denied",
        ),
        (
            "allow-domain *.pkg.example:8443 [port 8080]",
            "http://twsrt-probe.pkg.example:8080/",
            "denied",
        ),
        ("canary-domain twsrt-canary.invalid", "http://twsrt-canary.invalid/", "denied"),
    ]


def test_deny_probes_use_a_host_an_allow_entry_admits_else_moot():
    assert net_plan(["*.example.com", "10.0.0.1"], ["evil.test", "api.example.com", "*:22"])[
        -8:
    ] == [
        ("canary-domain twsrt-canary.invalid", "http://twsrt-canary.invalid/", "denied"),
        # nothing admits evil.test: the allowlist refuses it anyway
        ("deny-domain evil.test", "http://evil.test/", "moot"),
        ("deny-domain api.example.com", "http://api.example.com/", "denied"),
        ("deny-domain api.example.com [upper]", "http://API.EXAMPLE.COM/", "denied"),
        ("deny-domain api.example.com [dot]", "http://api.example.com./", "denied"),
        # *:22 denies a host the allowlist admits on port 22
        ("deny-domain *:22", "http://twsrt-probe.example.com:22/", "denied"),
        ("deny-domain *:22 [upper]", "http://TWSRT-PROBE.EXAMPLE.COM:22/", "denied"),
        ("deny-domain *:22 [dot]", "http://twsrt-probe.example.com.:22/", "denied"),
    ]
    # an IP entry has no subdomain, apex or trailing-dot form
    names = [n for n, _, _ in net_plan(["10.0.0.1"], [])]
    assert names == [
        "allow-domain 10.0.0.1",
        "allow-domain 10.0.0.1 [upper]",
        "allow-domain 10.0.0.1 [port 443]",
        "allow-domain 10.0.0.1 [port 8080]",
        "canary-domain twsrt-canary.invalid",
    ]


def test_deny_port_entry_on_an_allowed_host_is_discriminating_and_a_wider_deny_is_not_moot():
    plan = net_plan(["a.example.com", "*.example.org"], ["a.example.com:22", "*.x.example.org"])
    deny = [item for item in plan if item[0].startswith("deny-domain")]
    assert deny == [
        ("deny-domain a.example.com:22", "http://a.example.com:22/", "denied"),
        ("deny-domain a.example.com:22 [upper]", "http://A.EXAMPLE.COM:22/", "denied"),
        ("deny-domain a.example.com:22 [dot]", "http://a.example.com.:22/", "denied"),
        ("deny-domain *.x.example.org", "http://twsrt-probe.x.example.org/", "denied"),
        ("deny-domain *.x.example.org [upper]", "http://TWSRT-PROBE.X.EXAMPLE.ORG/", "denied"),
        ("deny-domain *.x.example.org [dot]", "http://twsrt-probe.x.example.org./", "denied"),
    ]


@pytest.mark.parametrize(
    ("entry", "host", "port", "matches"),
    [
        ("github.com", "GitHub.COM", 80, True),  # srt lower-cases the request's host
        ("github.com", "github.com.", 80, True),  # and drops one trailing dot
        ("github.com", "github.com..", 80, False),
        ("GitHub.com", "github.com", 443, True),  # entries compare case-insensitively
        ("*.github.com", "api.github.com.", 8080, True),
        ("*.0.0.1", "10.0.0.1", 80, False),  # *.x never matches an IP literal
        ("*:22", "github.com", 22, True),
    ],
)
def test_domain_matches_follows_srt(entry, host, port, matches):
    assert domain_matches(entry, host, port) is matches


DENY = Probe(
    "deny-domain", "evil.test", Location("srt.json", 4, 5), Action.FETCH, Outcome.DENIED, "u"
)
MOOT = Probe(
    "deny-domain",
    "evil.test",
    Location("srt.json", 4, 5),
    Action.FETCH,
    Outcome.DENIED,
    "http://evil.test/",
    moot="no allowedDomains entry admits evil.test",
)
ALLOW = Probe("allow-domain", "a.test", Location("s"), Action.FETCH, Outcome.ALLOWED, "u")
OK = Observation(True, Outcome.ALLOWED, 0, "TWSRT-PROBE-NET {}")
REFUSED = Observation(True, Outcome.DENIED, 0, "TWSRT-PROBE-NET {}")
LOCAL = (
    'TWSRT-PROBE-NET {"status": 403, "xpe": "blocked-by-allowlist", "reason": "not_allowed_local"}'
)


def test_a_moot_deny_is_never_pass_and_never_failing_even_strict():
    verdict, detail = judge(MOOT, OK, REFUSED)
    assert verdict is Verdict.MOOT and "not discriminating" in detail
    # reachable although nothing allows it: that is a real failure
    assert judge(MOOT, OK, OK)[0] is Verdict.FAIL
    result = Result("srt", MOOT, verdict, detail, None, OK, REFUSED)
    for strict in (False, True):
        report = ProbeReport([result], ["srt"], strict=strict)
        assert report.exit_code == 0 and not report.failing(result)
    document = json.loads(render_json(report))
    assert document["results"][0]["verdict"] == "MOOT"
    assert document["results"][0]["failing"] is False
    assert document["summary"]["MOOT"] == 1
    assert "MOOT    deny-domain evil.test  (srt.json:4:5)" in render_text(report)
    case = ET.fromstring(junit_xml(report)).find(".//testcase")
    assert case is not None
    skipped = case.find("skipped")
    assert skipped is not None and "not discriminating" in skipped.get("message", "")
    assert case.find("failure") is None


def test_codex_not_allowed_local_is_inconclusive_never_pass():
    """Codex answers `not_allowed_local` when its DNS lookup of the host fails or the host is
    private, before (IP literals) or whatever (names) its lists say: it was read as "got past
    the lists" and made every allow-domain probe PASS."""
    seen = observe(ALLOW, 0, LOCAL)
    assert seen.ran and seen.outcome is None
    verdict, detail = judge(ALLOW, OK, seen)
    assert verdict is Verdict.INVALID and "proves nothing" in detail
    assert judge(DENY, OK, observe(DENY, 0, LOCAL))[0] is Verdict.INVALID


def test_codex_input_routes_allowed_requests_to_the_stub_and_keeps_the_lists():
    text = (
        'default_permissions = "twsrt"\n[permissions.twsrt.network]\nenabled = true\n'
        '[permissions.twsrt.network.domains]\n"a.test" = "allow"\n"b.test" = "deny"\n'
        '[permissions.other]\nextends = ":read-only"\n'
    )
    import tomllib

    routed = tomllib.loads(route_network(text))
    network = routed["permissions"]["twsrt"]["network"]
    assert network == {
        "enabled": True,
        "domains": {"a.test": "allow", "b.test": "deny"},
        "allow_upstream_proxy": True,
        "allow_local_binding": True,
    }
    assert "network" not in routed["permissions"]["other"]  # no network table is made up
