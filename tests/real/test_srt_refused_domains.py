"""srt itself refuses the network entries twsrt refuses (TWS215), and takes the ones twsrt takes:
one srt start validates a settings file holding every sample entry, and srt's error names the
index of each entry it refuses."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from support.tools import locate_tool, require_tool

from twsrt.domains import refused_entries

pytestmark = pytest.mark.real

SAMPLES = [
    *("*", "*.com", "*.org:443", "*.", "*.co.uk", "a*.com", "*:22", "*:443"),
    *("github.com", "*.github.com", "GitHub.COM", "localhost", "intranet", ".x.com", "x.com."),
    *("http://x.com", "x.com/p", "x.com:443", "x.com:0", "x.com:65536", "x.com:099"),
    *("10.0.0.1", "10.0.0.1:22", "[::1]", "[::1]:443", "::1", "2001:db8::1", "[::1]junk"),
    *("[::1", "[2001:db8::1]:8443", "[::ffff:1.2.3.4]", "[example.com]", "*.x.com:8443"),
    "xn--bcher-kva.ch",
]


def test_srt_refuses_exactly_what_twsrt_refuses(tmp_path: Path) -> None:
    srt = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", "/opt/twsrt-tools/srt/bin/srt"))
    settings = {
        "network": {"allowedDomains": SAMPLES, "deniedDomains": SAMPLES},
        "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []},
    }
    path = tmp_path / "srt.json"
    path.write_text(json.dumps(settings))
    proc = subprocess.run(
        [srt, "--settings", str(path), "-c", "true"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert proc.returncode != 0, proc.stderr
    named_by_srt = re.findall(r"network\.(allowedDomains|deniedDomains)\.(\d+):", proc.stderr)
    said = {(key, int(index)) for key, index in named_by_srt}
    ours = {(key, index) for key, index, _ in refused_entries(settings)}
    named = sorted((key, SAMPLES[index]) for key, index in said ^ ours)
    assert said == ours, f"srt and twsrt disagree on {named}\n{proc.stderr}"
    # the two the issue names, in srt's own words
    assert {("allowedDomains", 0), ("allowedDomains", 1)} <= said
    assert ("deniedDomains", 0) not in said  # a bare * denies every host
    assert "not allowed for security reasons" in proc.stderr
