"""Domain probes of `twsrt test` against real srt 0.0.83 and Codex 0.171.0 (issue 13 item 2).

No request leaves this machine: srt forwards what its lists allow to the local stub (its parent
proxy), and the Codex engine input sets `allow_upstream_proxy` so Codex's proxy forwards there
too (`route_network`); the hosts are reserved `.test` names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from twsrt.testing.run import run_tests

from .probing import both, explain, generated, verdicts

pytestmark = pytest.mark.real

POLICY: dict[str, Any] = {
    "filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []},
    "network": {
        "allowedDomains": ["allowed.twsrt.test", "*.pkg.twsrt.test"],
        "deniedDomains": ["evil.twsrt.test", "bad.pkg.twsrt.test"],
    },
}


def test_domain_variants_pass_on_srt_and_codex_and_an_undiscriminating_deny_is_moot(
    tmp_path: Path, factory: Any
) -> None:
    report = both(run_tests(generated(tmp_path, POLICY), keyword="domain", factory=factory))
    seen = verdicts(report)
    for engine in ("srt", "codex"):
        mine = {name: v for (e, name), v in seen.items() if e == engine}
        assert mine == {
            "allow-domain allowed.twsrt.test": "PASS",
            "allow-domain allowed.twsrt.test [subdomain]": "PASS",
            "allow-domain allowed.twsrt.test [upper]": "PASS",
            "allow-domain allowed.twsrt.test [dot]": "PASS",
            "allow-domain allowed.twsrt.test [port 443]": "PASS",
            "allow-domain allowed.twsrt.test [port 8080]": "PASS",
            "allow-domain *.pkg.twsrt.test": "PASS",
            "allow-domain *.pkg.twsrt.test [subdomain]": "PASS",
            "allow-domain *.pkg.twsrt.test [apex]": "PASS",
            "allow-domain *.pkg.twsrt.test [upper]": "PASS",
            "allow-domain *.pkg.twsrt.test [dot]": "PASS",
            "allow-domain *.pkg.twsrt.test [port 443]": "PASS",
            "allow-domain *.pkg.twsrt.test [port 8080]": "PASS",
            "canary-domain twsrt-canary.invalid": "PASS",
            "deny-domain evil.twsrt.test": "MOOT",
            "deny-domain bad.pkg.twsrt.test": "PASS",
            "deny-domain bad.pkg.twsrt.test [upper]": "PASS",
            "deny-domain bad.pkg.twsrt.test [dot]": "PASS",
        }, explain(report)
    assert report.exit_code == 0
    # an allowed host really reached the local stub through each sandbox's proxy
    for result in report.results:
        if result.probe.expect.value == "allowed":
            assert result.sandboxed is not None
            assert '"upstream": "1"' in result.sandboxed.output, explain(report)


def test_codex_deny_removed_by_hand_fails_in_every_spelling(tmp_path: Path, factory: Any) -> None:
    """A deny entry removed from Codex's config on disk FAILs in every spelling (the probe is
    discriminating: the allow entry *.pkg.twsrt.test admits the host, and the request reaches
    the stub instead of stopping at Codex's DNS check)."""
    from .probing import drop_line

    ctx = generated(tmp_path, POLICY)
    keyword = "deny-domain bad.pkg.twsrt.test"
    drop_line(tmp_path / "home/.codex/config.toml", '"bad.pkg.twsrt.test" = "deny"')
    report = run_tests(ctx, "codex", keyword=keyword, factory=factory)
    assert set(verdicts(report).values()) == {"FAIL"}, explain(report)
    assert len(report.results) == 3
    assert report.exit_code == 1
