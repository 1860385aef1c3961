"""`twsrt test` against the real sandboxes: the sandbox runtime 0.0.83 (srt, on bubblewrap) and
Codex 0.171.0's own sandbox. Install them with .ci/install-srt.sh and .ci/install-codex.sh.

These are the tests that observe what the sandboxes do rather than what twsrt builds, so they
must never skip silently in CI: TWSRT_REQUIRE_REAL_TOOLS=1 turns a missing tool into a failure.
No probe leaves this machine: srt forwards allowed requests to a local stub (its parent proxy),
Codex refuses them at its private-address check, and the wide policy names only reserved
`.test` hosts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, twsrt_command

from twsrt.jsonpos import parse_json
from twsrt.sources import build_policy
from twsrt.testing.engines import CodexEngine, SrtEngine
from twsrt.testing.model import ProbeReport, Verdict
from twsrt.testing.run import run_tests

from ._tools import locate_tool, require_tool
from .codex_client import codex_bin as find_codex

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def srt() -> str:
    path = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", "/opt/twsrt-tools/srt/bin/srt"))
    for tool in ("bwrap", "socat", "rg"):
        require_tool(tool, shutil.which(tool))
    return path


@pytest.fixture(scope="module")
def codex() -> str:
    return find_codex()


@pytest.fixture(scope="module")
def factory(srt: str, codex: str) -> Any:
    return lambda name: SrtEngine(srt) if name == "srt" else CodexEngine(codex)


def policy_of(srt_settings: dict[str, Any]) -> Any:
    return build_policy(
        parse_json(json.dumps(srt_settings, indent=2)),
        "srt.json",
        parse_json('{"allow": [], "deny": ["sudo"], "ask": []}'),
        "bash.json",
    )


def verdicts(report: ProbeReport) -> dict[tuple[str, str], str]:
    return {(r.engine, r.probe.name): r.verdict.value for r in report.results}


def gaps(report: ProbeReport) -> dict[tuple[str, str], str]:
    return {(r.engine, r.probe.name): r.gap.rule_id for r in report.results if r.gap}


def explain(report: ProbeReport) -> str:
    from twsrt.testing.report import render_text

    return render_text(report, verbose=True)


# ------------------------------------------------------------------ examples/dotfiles, via the CLI


def test_examples_dotfiles_every_probe_passes_or_is_a_known_gap(tmp_path, srt, codex):
    repo = tmp_path / "dotfiles"
    shutil.copytree(REPO_ROOT / "examples" / "dotfiles", repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    env.update(HOME=str(tmp_path / "home"), NO_COLOR="1", TWSRT_SRT_BIN=srt, TWSRT_CODEX_BIN=codex)
    junit = tmp_path / "probes.xml"
    proc = subprocess.run(
        [*twsrt_command(), "test", "--json", "--junit", str(junit)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = json.loads(proc.stdout)
    results = document["results"]
    policy = json.loads((repo / "policy" / "srt-settings.json").read_text())
    per_engine = (
        len(policy["filesystem"]["denyRead"])
        + len(policy["filesystem"]["denyWrite"])
        + len(policy["filesystem"]["allowWrite"])
        + len(policy["network"]["allowedDomains"])
        + len(policy["network"]["deniedDomains"])
        + 2  # write-outside and the canary host
    )
    assert document["summary"]["probes"] == 2 * per_engine == len(results)
    assert {r["verdict"] for r in results} <= {"PASS", "GAP"}
    assert {(r["engine"], r["name"]): r["gap"]["rule_id"] for r in results if r["gap"]} == {
        ("srt", "deny-write **/.env"): "TWS501",
        ("srt", "deny-write **/*.pem"): "TWS501",
        ("srt", "deny-write **/*.key"): "TWS501",
    }
    # every control really ran and succeeded, and every sandboxed run printed its result
    assert all(r["control"]["outcome"] == "allowed" for r in results)
    assert all(r["sandboxed"]["ran"] for r in results)
    suites = ET.parse(junit).getroot()
    assert len(suites.findall(".//testcase")) == len(results)
    assert not suites.findall(".//failure") and not suites.findall(".//error")

    # --strict makes the known srt gaps fail; -k narrows the run to matching probes
    strict = subprocess.run(
        [*twsrt_command(), "test", "--strict", "--sandbox", "srt", "-k", "deny-write **/.env"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "GAP     deny-write **/.env" in strict.stdout
    assert "srt: 1 probe (1 gap)" in strict.stdout


# ------------------------------------------------------------------ a wide policy

WIDE: dict[str, Any] = {
    "filesystem": {
        "denyRead": [
            "~/.aws",
            "~/.ssh/*.pem",
            "/etc/twsrt-secret",
            "secrets",
            "**/*.secret",
            "~/.config",
            "~/.docker/config.json",
            {"path": "~/plain-literal", "literal": True},
        ],
        "allowRead": ["~/.config/ok"],
        "denyWrite": [
            "./build/protected",
            "~/.gitconfig-local",
            "**/*.lock",
            "/opt/app/ro",
            "~/.ssh/config",
        ],
        "allowWrite": [".", "./build", "/opt/app", "~/.cache", "/srv/*/data"],
    },
    "network": {
        "allowedDomains": [
            "allowed.twsrt.test",
            "*.pkg.twsrt.test",
            "port.twsrt.test:8443",
            "127.0.0.1",
            "localhost",
        ],
        "deniedDomains": ["evil.twsrt.test", "*.tracker.twsrt.test", "allowed.twsrt.test:22"],
        "allowUnixSockets": ["/var/run/twsrt.sock"],
    },
}

# Every engine limitation the wide policy runs into, found by running it (srt 0.0.83, Codex
# 0.171.0 on Linux). A change here means an engine or a translation changed: look before
# updating.
WIDE_GAPS = {
    ("srt", "deny-write **/*.lock"): "TWS501",
    ("srt", "allow-write /srv/*/data"): "TWS501",
    ("srt", "allow-unix-socket /var/run/twsrt.sock"): "TWS502",
    ("codex", "allow-read ~/.config/ok"): "TWS504",
    ("codex", "allow-write /srv/*/data"): "TWS408",
    ("codex", "allow-unix-socket /var/run/twsrt.sock"): "TWS505",
    ("codex", "allow-domain port.twsrt.test:8443"): "TWS403",
    ("codex", "allow-domain allowed.twsrt.test"): "TWS403",
}


def test_wide_policy_every_probe_passes_or_is_a_known_gap(factory):
    report = run_tests(policy_of(WIDE), ["srt", "codex"], factory=factory)
    assert report.exit_code == 0, explain(report)
    assert set(verdicts(report).values()) == {"PASS", "GAP"}, explain(report)
    assert gaps(report) == WIDE_GAPS, explain(report)
    kinds = {r.probe.kind for r in report.results}
    assert kinds == {
        "deny-read",
        "allow-read",
        "deny-write",
        "allow-write",
        "write-outside",
        "write-tmp",
        "allow-unix-socket",
        "allow-domain",
        "canary-domain",
        "deny-domain",
    }
    # 8 deny-read, 1 allow-read, 5 deny-write, 5 allow-write, outside, /tmp, 1 socket,
    # 5 allowed domains, the canary, 3 denied domains
    assert len(report.results) == 2 * 31


# ------------------------------------------------------------------ mutations

EXAMPLE = json.loads((REPO_ROOT / "examples/dotfiles/policy/srt-settings.json").read_text())


def drop_from_srt(key: str, suffix: str) -> Any:
    """A tamper hook: remove the entries of filesystem/network ``key`` ending in ``suffix``
    from the settings file that srt is given (the policy itself is unchanged)."""

    def tamper(engine: str, path: Path) -> None:
        if engine != "srt":
            return
        settings = json.loads(path.read_text())
        section = settings["filesystem"] if key in settings["filesystem"] else settings["network"]
        before = len(section[key])
        section[key] = [e for e in section[key] if not str(e).endswith(suffix)]
        assert len(section[key]) == before - 1
        path.write_text(json.dumps(settings))

    return tamper


def drop_from_codex(line: str) -> Any:
    """A tamper hook: remove one line from the config.toml that Codex is given."""

    def tamper(engine: str, path: Path) -> None:
        if engine != "codex":
            return
        lines = path.read_text().splitlines(keepends=True)
        kept = [item for item in lines if item.strip() != line]
        assert len(kept) == len(lines) - 1, path.read_text()
        path.write_text("".join(kept))

    return tamper


@pytest.mark.parametrize(
    ("engine", "tamper"),
    [
        ("srt", drop_from_srt("denyRead", "/home/.aws")),
        ("codex", drop_from_codex('"~/.aws" = "deny"')),
    ],
)
def test_denyread_removed_from_the_engine_file_fails(factory, engine, tamper):
    policy = policy_of(EXAMPLE)
    honest = run_tests(policy, [engine], keyword="deny-read ~/.aws", factory=factory)
    assert verdicts(honest) == {(engine, "deny-read ~/.aws"): "PASS"}, explain(honest)
    tampered = run_tests(
        policy, [engine], keyword="deny-read ~/.aws", factory=factory, tamper=tamper
    )
    assert verdicts(tampered) == {(engine, "deny-read ~/.aws"): "FAIL"}, explain(tampered)
    assert tampered.exit_code == 1


@pytest.mark.parametrize(
    ("engine", "tamper"),
    [
        ("srt", drop_from_srt("allowedDomains", "pypi.org")),
        ("codex", drop_from_codex('"pypi.org" = "allow"')),
    ],
)
def test_allowed_domain_dropped_from_the_engine_file_fails(factory, engine, tamper):
    policy = policy_of(EXAMPLE)
    keyword = "allow-domain pypi.org"
    honest = run_tests(policy, [engine], keyword=keyword, factory=factory)
    assert verdicts(honest) == {(engine, keyword): "PASS"}, explain(honest)
    tampered = run_tests(policy, [engine], keyword=keyword, factory=factory, tamper=tamper)
    assert verdicts(tampered) == {(engine, keyword): "FAIL"}, explain(tampered)


def test_denyread_whose_control_cannot_run_is_invalid_not_pass(factory):
    # No file can have a 300-byte name: the fixture is never made, so the control cannot
    # read it, and the sandbox's "denied" would prove nothing.
    unreadable = "~/" + "x" * 300
    policy = policy_of(
        {**EXAMPLE, "filesystem": {**EXAMPLE["filesystem"], "denyRead": [unreadable]}}
    )
    report = run_tests(policy, ["srt", "codex"], keyword="deny-read", factory=factory)
    assert set(verdicts(report).values()) == {"INVALID"}, explain(report)
    assert all(r.sandboxed is None for r in report.results)
    assert report.exit_code == 1


# ------------------------------------------------------------------ facts the probes found


def test_literal_path_with_glob_characters_is_protected_under_codex(factory):
    """Found by the probes: Codex 0.171.0 silently ignores a filesystem key such as
    "~/keys/odd[name]". twsrt therefore denies the concrete parent for Codex (TWS407), so the
    literal path is protected by both engines."""
    policy = policy_of(
        {
            "filesystem": {
                "denyRead": [{"path": "~/keys/odd[name]", "literal": True}],
                "allowWrite": ["."],
                "denyWrite": [],
            },
            "network": {"allowedDomains": [], "deniedDomains": []},
        }
    )
    report = run_tests(policy, ["srt", "codex"], keyword="deny-read", factory=factory)
    assert verdicts(report) == {
        ("srt", "deny-read ~/keys/odd[name]"): "PASS",
        ("codex", "deny-read ~/keys/odd[name]"): "PASS",
    }, explain(report)


def test_codex_network_is_cut_by_a_port_wildcard_deny(factory):
    """`*:22` in deniedDomains cannot be a Codex domain rule, so twsrt switches Codex's network
    off (TWS403): every allowed host is refused, a known gap; srt still lets them through."""
    policy = policy_of(
        {
            "filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []},
            "network": {"allowedDomains": ["allowed.twsrt.test"], "deniedDomains": ["*:22"]},
        }
    )
    report = run_tests(policy, ["srt", "codex"], keyword="domain", factory=factory)
    assert verdicts(report) == {
        ("srt", "allow-domain allowed.twsrt.test"): "PASS",
        ("srt", "canary-domain twsrt-canary.invalid"): "PASS",
        ("srt", "deny-domain *:22"): "PASS",
        ("codex", "allow-domain allowed.twsrt.test"): "GAP",
        ("codex", "canary-domain twsrt-canary.invalid"): "PASS",
        ("codex", "deny-domain *:22"): "PASS",
    }, explain(report)
    assert gaps(report) == {("codex", "allow-domain allowed.twsrt.test"): "TWS403"}
    assert report.results[0].verdict is Verdict.PASS
