"""Which network entries srt refuses (its rules, mirrored in twsrt/domains.py; the real srt agrees
in tests/real/test_srt_refused_domains.py)."""

from __future__ import annotations

import pytest

from twsrt.domains import refusal, srt_accepts


@pytest.mark.parametrize(
    ("entry", "allowed", "denied"),
    [
        ("*", False, True),  # allow-all is refused; deny-all is fine
        ("*.com", False, False),
        ("*.com:443", False, False),
        ("*:22", False, True),
        ("*.co.uk", True, True),  # srt counts labels, it has no public suffix list
        ("*.github.com", True, True),
        ("github.com:443", True, True),
        ("localhost", True, True),
        ("intranet", False, False),
        ("https://github.com", False, False),
        ("a.com:0", False, False),
        ("[::1]:443", True, True),
        ("::1", False, False),  # an IPv6 literal must be bracketed
    ],
)
def test_srt_accepts(entry: str, allowed: bool, denied: bool) -> None:
    assert srt_accepts(entry, denied=False) is allowed
    assert srt_accepts(entry, denied=True) is denied


def test_refusal_names_the_breadth() -> None:
    assert refusal("*", denied=False).startswith("it would allow every host,")
    assert refusal("*.com:443", denied=False).startswith("it would allow every host under .com")
    assert 'a bare "*" only in deniedDomains' in refusal("*.com", denied=True)
