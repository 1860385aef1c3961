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
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from support.sandbox import REPO_ROOT, twsrt_command

from twsrt.testing.model import Attack, ProbeReport, Verdict
from twsrt.testing.run import run_tests

from .probing import across_launches, both, drop_line, explain, generated, verdicts

pytestmark = pytest.mark.real


def gaps(report: ProbeReport) -> dict[tuple[str, str], str]:
    return {(r.engine, r.probe.name): r.gap.rule_id for r in report.results if r.gap}


# ------------------------------------------------------------------ examples/dotfiles, via the CLI


def test_examples_dotfiles_every_probe_passes_or_is_a_known_gap(tmp_path, srt, codex):
    repo = tmp_path / "dotfiles"
    # symlinks kept: settings.json -> settings.full.json is how the claude engine finds its file
    shutil.copytree(REPO_ROOT / "examples" / "dotfiles", repo, symlinks=True)
    (repo / ".git").mkdir()  # a repository, as the example is one (its files are compiled so)
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
    document = json.loads(proc.stdout)
    results = document["results"]
    launches = [r for r in results if across_launches(r)]
    open_launches = [r for r in launches if r["failing"]]  # pinned in test_twsrt_test_launches
    assert proc.returncode == (1 if open_launches else 0), proc.stdout + proc.stderr
    policy = json.loads((repo / "policy" / "srt-settings.json").read_text())
    per_engine = (
        len(policy["filesystem"]["denyRead"])
        + len(policy["filesystem"]["denyWrite"])
        + len(policy["filesystem"]["allowWrite"])
        + len(policy["network"]["allowedDomains"])
        + len(policy["network"]["deniedDomains"])
        + 2  # write-outside and the canary host
    )
    assert {"srt", "codex"} <= set(document["summary"]["engines"])
    suites = ET.parse(junit).getroot()
    assert len(suites.findall(".//testcase")) == len(results)
    assert len(suites.findall(".//failure")) == len(open_launches)
    results = [r for r in results if r["engine"] in ("srt", "codex") and not across_launches(r)]
    plain = [r for r in results if r["attack"] is None]
    for engine in ("srt", "codex"):
        # one probe per rule under its own name; domain variants are named "... [form]"
        own = [r for r in plain if r["engine"] == engine and not r["name"].endswith("]")]
        assert len(own) == per_engine
    # the attacks ran too, and like the probes each one passes or is a documented gap
    assert len(results) > len(plain)
    # MOOT: deny-domain pastebin.com, which no allow entry admits (not discriminating)
    assert {r["verdict"] for r in results} <= {"PASS", "GAP", "MOOT"}
    assert all(r["gap"]["rule_id"] for r in results if r["verdict"] == "GAP")
    # the example names directories, not globs, in denyWrite: srt on Linux has no gap left
    # (TWS501 is shown on the lossy example below)
    assert {(r["engine"], r["name"]): r["gap"]["rule_id"] for r in plain if r["gap"]} == {}
    # every control really ran and succeeded, and every sandboxed run printed its result
    assert all(r["control"]["outcome"] == "allowed" for r in results)
    assert all(r["sandboxed"]["ran"] for r in results)
    assert not suites.findall(".//error")

    # --strict makes the known srt gaps fail; -k narrows the run to matching probes. The
    # lossy example keeps a `**/.env` glob in denyWrite, which srt on Linux skips (TWS501).
    lossy = tmp_path / "lossy-policy"
    shutil.copytree(REPO_ROOT / "examples" / "broken" / "lossy-policy", lossy, symlinks=True)
    (lossy / ".git").mkdir()
    strict = subprocess.run(
        [*twsrt_command(), "test", "--strict", "--engine", "srt", "-k", "deny-write **/.env"],
        cwd=lossy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "GAP     deny-write **/.env" in strict.stdout
    # the probe and the attacks on that rule, every one a gap
    assert re.search(r"srt: (\d+) probes? \(\1 gap\)", strict.stdout), strict.stdout


@pytest.mark.parametrize("mode", ["read-only", "workspace-write", "danger-full-access"])
def test_examples_dotfiles_in_each_sandbox_mode_has_no_fail(tmp_path, srt, codex, mode):
    """The example's files generated for each mode, probed for that mode: nothing FAILs;
    read-only probes the write roots as refusing writes; danger-full-access runs nothing and
    says so (UNENFORCED), never PASS."""
    repo = tmp_path / "dotfiles"
    shutil.copytree(REPO_ROOT / "examples" / "dotfiles", repo, symlinks=True)
    (repo / ".git").mkdir()  # a repository, as the example is one (its files are compiled so)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    env.update(HOME=str(tmp_path / "home"), NO_COLOR="1", TWSRT_SRT_BIN=srt, TWSRT_CODEX_BIN=codex)
    config = repo / "twsrt.toml"
    config.write_text(config.read_text() + f'\n[sandbox]\nmode = "{mode}"\n')

    def twsrt(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [*twsrt_command(), *args]
        return subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=600)

    for yolo in ((), ("--yolo",)):
        generate = twsrt("generate", "-w", *yolo)
        assert generate.returncode in (0, 1), generate.stderr
    proc = twsrt("test", "--json")
    document = json.loads(proc.stdout)
    failing = any(r["failing"] for r in document["results"] if across_launches(r))
    assert proc.returncode == (1 if failing else 0), proc.stdout + proc.stderr
    assert document["summary"]["sandbox_mode"] == mode
    assert document["drift"] == []  # the files probed are the ones the policy generates
    # every registered engine ran, and the run names the agent it could not probe
    assert document["summary"]["engines"] == ["srt", "codex", "claude", "deepcode"]
    skipped = {s["engine"]: s["reason"] for s in document["skipped"]}
    assert set(skipped) == {"copilot"} and "logged-in" in skipped["copilot"]
    results = [r for r in document["results"] if not across_launches(r)]
    verdicts_seen = {r["verdict"] for r in results}
    kinds = {r["kind"] for r in results}
    if mode == "danger-full-access":
        assert verdicts_seen == {"UNENFORCED"}
        return
    # UNMODELLED: DeepCode's domain allow-list (its DNS proxy is not run here)
    assert verdicts_seen <= {"PASS", "GAP", "MOOT", "UNMODELLED"}
    unmodelled = {r["engine"] for r in results if r["verdict"] == "UNMODELLED"}
    assert unmodelled == {"deepcode"}
    assert all(r["gap"]["rule_id"] for r in results if r["verdict"] == "GAP")
    if mode == "read-only":
        assert "allow-write" not in kinds and "read-only-root" in kinds


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
    ("codex", "allow-domain port.twsrt.test:8443 [upper]"): "TWS403",
    ("codex", "allow-domain port.twsrt.test:8443 [dot]"): "TWS403",
    ("codex", "allow-domain allowed.twsrt.test"): "TWS403",
    ("codex", "allow-domain allowed.twsrt.test [upper]"): "TWS403",
    ("codex", "allow-domain allowed.twsrt.test [dot]"): "TWS403",
    ("codex", "allow-domain allowed.twsrt.test [port 443]"): "TWS403",
    ("codex", "allow-domain allowed.twsrt.test [port 8080]"): "TWS403",
}


def test_wide_policy_every_probe_passes_or_is_a_known_gap(tmp_path, factory):
    report = both(run_tests(generated(tmp_path, WIDE), factory=factory))
    report.results = [r for r in report.results if not across_launches(r)]
    attacks = [r for r in report.results if isinstance(r.probe, Attack)]
    shown = explain(ProbeReport([r for r in attacks if r.verdict.value != "PASS"], report.engines))
    assert {r.verdict.value for r in attacks} <= {"PASS", "GAP"}, shown
    report.results = [r for r in report.results if not isinstance(r.probe, Attack)]
    assert report.exit_code == 0, explain(report)
    assert set(verdicts(report).values()) == {"PASS", "GAP", "MOOT"}, explain(report)
    assert gaps(report) == WIDE_GAPS, explain(report)
    # no allow entry admits these hosts: their refusal says nothing about the deny entries
    moot = {name for (_, name), v in verdicts(report).items() if v == "MOOT"}
    assert moot == {"deny-domain evil.twsrt.test", "deny-domain *.tracker.twsrt.test"}
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
    # 29 allow-domain (5 entries and their forms; an IP has no subdomain or dot form), the
    # canary, 5 deny-domain (2 moot, allowed.twsrt.test:22 in 3 spellings)
    assert len(report.results) == 2 * 57


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


def test_denyread_removed_from_the_srt_input_fails(tmp_path, factory):
    ctx = generated(tmp_path, EXAMPLE)
    keyword = "deny-read ~/.aws"
    honest = run_tests(ctx, "srt", keyword=keyword, factory=factory, attacks=False)
    assert verdicts(honest) == {("srt", keyword): "PASS"}, explain(honest)
    tamper = drop_from_srt("denyRead", "/home/.aws")
    tampered = run_tests(ctx, "srt", keyword=keyword, factory=factory, attacks=False, tamper=tamper)
    assert verdicts(tampered) == {("srt", keyword): "FAIL"}, explain(tampered)
    assert tampered.exit_code == 1


def test_deny_removed_by_hand_from_the_codex_config_on_disk_fails(tmp_path, factory):
    """The false PASS of issue 13: the prober compiled the policy in memory, so a deny removed
    from ~/.codex/config.toml still passed while real Codex read the file."""
    ctx = generated(tmp_path, EXAMPLE)
    keyword = "deny-read ~/.aws"
    honest = run_tests(ctx, "codex", keyword=keyword, factory=factory, attacks=False)
    assert verdicts(honest) == {("codex", keyword): "PASS"}, explain(honest)
    assert honest.drift == []
    drop_line(tmp_path / "home/.codex/config.toml", '"~/.aws" = "deny"')
    tampered = run_tests(ctx, "codex", keyword=keyword, factory=factory, attacks=False)
    assert verdicts(tampered) == {("codex", keyword): "FAIL"}, explain(tampered)
    (result,) = tampered.results
    policy_lines = (tmp_path / "srt.json").read_text().splitlines()
    # the FAIL is at the rule's line in the policy
    assert policy_lines[result.probe.origin.line - 1].strip() == '"~/.aws",'
    assert tampered.exit_code == 1
    assert [f.rule_id for f in tampered.drift] == ["TWS302"]  # reported beside the verdict


@pytest.mark.parametrize(
    ("engine", "keyword"),
    [("srt", "allow-domain pypi.org"), ("codex", "allow-domain pypi.org")],
)
def test_allowed_domain_dropped_from_the_engine_input_fails(tmp_path, factory, engine, keyword):
    ctx = generated(tmp_path, EXAMPLE)
    honest = run_tests(ctx, engine, keyword=keyword, factory=factory, attacks=False)
    assert verdicts(honest)[(engine, keyword)] == "PASS", explain(honest)
    if engine == "srt":
        tampered = run_tests(
            ctx,
            engine,
            keyword=keyword,
            factory=factory,
            attacks=False,
            tamper=drop_from_srt("allowedDomains", "pypi.org"),
        )
    else:
        drop_line(tmp_path / "home/.codex/config.toml", '"pypi.org" = "allow"')
        tampered = run_tests(ctx, engine, keyword=keyword, factory=factory, attacks=False)
    assert verdicts(tampered)[(engine, keyword)] == "FAIL", explain(tampered)


def test_read_only_files_with_a_write_grant_added_by_hand_fail(tmp_path, factory):
    """`[sandbox] mode` was ignored: read-only reported allow-write PASS for grants the
    read-only files do not contain. Now the policy's roots must refuse writes in read-only,
    and a grant added to the file on disk is a FAIL."""
    ctx = generated(tmp_path, EXAMPLE, "read-only")
    keyword = "read-only-root"
    honest = both(run_tests(ctx, keyword=keyword, factory=factory, attacks=False))
    assert set(verdicts(honest).values()) == {"PASS"}, explain(honest)
    assert {r.probe.rule for r in honest.results} == {".", "/tmp", "~/.cache/uv"}
    config = tmp_path / "home/.codex/config.toml"
    text = config.read_text()
    assert '"~/.cache/uv" = "write"' not in text
    anchor = '"~/.aws" = "deny"\n'
    config.write_text(text.replace(anchor, anchor + '"~/.cache/uv" = "write"\n'))
    tampered = run_tests(ctx, "codex", keyword=keyword, factory=factory, attacks=False)
    assert verdicts(tampered) == {
        ("codex", "read-only-root ."): "PASS",
        ("codex", "read-only-root /tmp"): "PASS",
        ("codex", "read-only-root ~/.cache/uv"): "FAIL",
    }, explain(tampered)


def test_denyread_whose_control_cannot_run_is_invalid_not_pass(tmp_path, factory):
    # No file can have a 300-byte name: the fixture is never made, so the control cannot
    # read it, and the sandbox's "denied" would prove nothing.
    unreadable = "~/" + "x" * 300
    policy = {**EXAMPLE, "filesystem": {**EXAMPLE["filesystem"], "denyRead": [unreadable]}}
    report = both(
        run_tests(generated(tmp_path, policy), keyword="deny-read", factory=factory, attacks=False)
    )
    assert set(verdicts(report).values()) == {"INVALID"}, explain(report)
    assert all(r.sandboxed is None for r in report.results)
    assert report.exit_code == 1


# ------------------------------------------------------------------ facts the probes found


def test_srt_enforces_a_trailing_double_star_as_the_directory(tmp_path, factory):
    """TWS501 said srt skips `~/proj/secrets/**`; srt 0.0.83 strips the `/**` and enforces the
    directory. Only a pattern that stays a glob (`**/*.key`) is the gap, and check agrees."""
    from twsrt.testing.gaps import static_gaps

    ctx = generated(
        tmp_path,
        {
            "filesystem": {
                "denyRead": [],
                "allowWrite": [".", "~/proj/**"],
                "denyWrite": ["~/proj/secrets/**", "**/*.key"],
            },
            "network": {"allowedDomains": [], "deniedDomains": []},
        },
    )
    report = run_tests(ctx, "srt", keyword="write", factory=factory, attacks=False)
    seen = verdicts(report)
    assert seen[("srt", "deny-write ~/proj/secrets/**")] == "PASS", explain(report)
    assert seen[("srt", "allow-write ~/proj/**")] == "PASS", explain(report)
    assert gaps(report) == {("srt", "deny-write **/*.key"): "TWS501"}, explain(report)
    assert [f.location.pointer for f in static_gaps(ctx.policy)] == ["/filesystem/denyWrite/1"]


def test_literal_path_with_glob_characters_is_protected_under_codex(tmp_path, factory):
    """Found by the probes: Codex 0.171.0 silently ignores a filesystem key such as
    "~/keys/odd[name]". twsrt therefore denies the concrete parent for Codex (TWS407), so the
    literal path is protected by both engines."""
    policy = generated(
        tmp_path,
        {
            "filesystem": {
                "denyRead": [{"path": "~/keys/odd[name]", "literal": True}],
                "allowWrite": ["."],
                "denyWrite": [],
            },
            "network": {"allowedDomains": [], "deniedDomains": []},
        },
    )
    report = both(run_tests(policy, keyword="deny-read", factory=factory, attacks=False))
    assert verdicts(report) == {
        ("srt", "deny-read ~/keys/odd[name]"): "PASS",
        ("codex", "deny-read ~/keys/odd[name]"): "PASS",
    }, explain(report)


# the spellings of one host the domain probes try (twsrt.testing.domains)
FORMS = ("", " [upper]", " [dot]", " [port 443]", " [port 8080]")


def test_codex_network_is_cut_by_a_port_wildcard_deny(tmp_path, factory):
    """`*:22` in deniedDomains cannot be a Codex domain rule, so twsrt switches Codex's network
    off (TWS403): every allowed host is refused, a known gap; srt still lets them through."""
    policy = generated(
        tmp_path,
        {
            "filesystem": {"denyRead": [], "allowWrite": ["."], "denyWrite": []},
            "network": {"allowedDomains": ["allowed.twsrt.test"], "deniedDomains": ["*:22"]},
        },
    )
    report = both(run_tests(policy, keyword="domain", factory=factory, attacks=False))
    allowed = [f"allow-domain allowed.twsrt.test{f}" for f in FORMS]
    assert verdicts(report) == {
        **{("srt", name): "PASS" for name in allowed},
        ("srt", "allow-domain allowed.twsrt.test [subdomain]"): "PASS",
        ("srt", "canary-domain twsrt-canary.invalid"): "PASS",
        **{("srt", f"deny-domain *:22{f}"): "PASS" for f in FORMS[:3]},
        **{("codex", name): "GAP" for name in allowed},
        ("codex", "allow-domain allowed.twsrt.test [subdomain]"): "PASS",
        ("codex", "canary-domain twsrt-canary.invalid"): "PASS",
        **{("codex", f"deny-domain *:22{f}"): "PASS" for f in FORMS[:3]},
    }, explain(report)
    assert gaps(report) == {("codex", name): "TWS403" for name in allowed}
    assert report.results[0].verdict is Verdict.PASS
