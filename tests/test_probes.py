"""Unit tests of `twsrt test`: probe derivation, verdicts and reports, with fake engines.

The real sandboxes are driven in tests/real/test_twsrt_test.py; here a fake engine stands in
for them so every verdict path (PASS, FAIL, INVALID, ERROR, GAP) runs in milliseconds.
"""

from __future__ import annotations

import json
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from support.fake_batches import answer_batch
from support.policies import fs, make_policy
from support.sandbox import REPO_ROOT

from twsrt.agents.base import Context
from twsrt.agents.codex.engine import codex_config
from twsrt.config import Config
from twsrt.findings import TwsrtError
from twsrt.locations import Location
from twsrt.protection import protected_context
from twsrt.reports.probes import junit_xml, render_json, render_text
from twsrt.rules import CATALOG
from twsrt.testing.commands import classify_fetch, observe
from twsrt.testing.derive import derive
from twsrt.testing.domains import domain_matches
from twsrt.testing.engine_srt import SrtEngine
from twsrt.testing.engines import SMOKE, EngineUnavailable, Run, run_process
from twsrt.testing.gaps import static_gaps
from twsrt.testing.globs import glob_regex, instantiate, layout_path
from twsrt.testing.inputs import srt_settings
from twsrt.testing.model import (
    Action,
    Attack,
    Observation,
    Outcome,
    Probe,
    ProbeReport,
    Verdict,
)
from twsrt.testing.modes import READ_ONLY_ROOT, plan_for_mode
from twsrt.testing.run import run_tests
from twsrt.testing.verdicts import explain_gap, judge


def ctx_of(policy: Any, sandbox_mode: str = "workspace-write", **targets: Path) -> Context:
    """A run context for a bare policy: no config file, only the targets named."""
    config = Config(
        path=Path("/nonexistent/twsrt.toml"),
        display="twsrt.toml",
        home=Path("/home/u"),
        srt=Path("srt.json"),
        bash_rules=Path("bash.json"),
        targets=dict(targets),
    )
    return protected_context(config, policy, sandbox_mode=sandbox_mode)


def by_name(plan: Any) -> dict[str, Probe]:
    return {probe.name: probe for probe in plan.probes}


EXAMPLE = json.loads((REPO_ROOT / "examples/dotfiles/policy/srt-settings.json").read_text())


# ------------------------------------------------------------------ paths and globs


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("~/.aws", "home/.aws"),
        ("~", "home"),
        ("/etc/secret", "fs/etc/secret"),
        ("/", "fs"),
        (".", "work"),
        ("./build", "work/build"),
        ("build/../out", "work/out"),
        ("../../escape", None),
    ],
)
def test_layout_path(path, expected):
    assert layout_path(path) == expected


@pytest.mark.parametrize(
    ("pattern", "instance"),
    [
        ("work/**/.env", "work/twsrt-probe/.env"),
        ("home/.ssh/*.pem", "home/.ssh/twsrt-probe.pem"),
        ("work/**/*.key", "work/twsrt-probe/twsrt-probe.key"),
        ("home/.config/**", "home/.config/twsrt-probe"),
        ("work/file.[ch]", "work/file.c"),
        ("work/file.[!ch]", "work/file.x"),
        ("work/{a,b}.txt", "work/a.txt"),
        ("work/?.log", "work/x.log"),
    ],
)
def test_instantiate_gives_a_matching_path(pattern, instance):
    assert instantiate(pattern) == instance
    assert glob_regex(pattern).match(instance)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("work/**/.env", "work/.env", True),
        ("work/**/.env", "work/a/b/.env", True),
        ("work/*.pem", "work/a/x.pem", False),
        ("work/**/*.pem", "work/a/x.pem", True),
        ("home/.ssh/id_*", "home/.ssh/id_rsa", True),
    ],
)
def test_glob_regex(pattern, path, matches):
    assert bool(glob_regex(pattern).match(path)) is matches


# ------------------------------------------------------------------ derivation


def test_example_probes_are_derived_from_every_rule():
    plan = derive(make_policy(EXAMPLE))
    kinds = [probe.kind for probe in plan.probes]
    fs_rules = EXAMPLE["filesystem"]
    net = EXAMPLE["network"]
    assert kinds.count("deny-read") == len(fs_rules["denyRead"])
    assert kinds.count("deny-write") == len(fs_rules["denyWrite"])
    assert kinds.count("allow-write") == len(fs_rules["allowWrite"])
    # one probe per domain entry under the entry's own name, its variants named [form]
    own = [probe.kind for probe in plan.probes if not probe.name.endswith("]")]
    assert own.count("allow-domain") == len(net["allowedDomains"])
    assert own.count("deny-domain") == len(net["deniedDomains"])
    assert kinds.count("write-outside") == kinds.count("canary-domain") == 1
    assert "write-tmp" not in kinds  # the example allows /tmp
    probes = by_name(plan)
    assert probes["deny-read ~/.aws"].target == "home/.aws/.twsrt-probe-read"
    assert probes["deny-read ~/.aws"].expect is Outcome.DENIED
    assert probes["deny-write ~/.bashrc"].target == "home/.bashrc"
    glob = by_name(derive(fs(deny_write=["**/.env"], allow_write=["."])))
    assert glob["deny-write **/.env"].target == "work/twsrt-probe/.env"
    assert probes["allow-write /tmp"].target == "fs/tmp/.twsrt-probe-create"
    assert probes["allow-domain *.github.com"].target == "http://twsrt-probe.github.com/"
    assert probes["canary-domain twsrt-canary.invalid"].expect is Outcome.DENIED
    assert "home/.aws/.twsrt-probe-read" in plan.fixtures.files
    assert "home/.bashrc" in plan.fixtures.files
    assert {"home", "work", "fs", "outside"} <= set(plan.fixtures.dirs)


def test_derivation_is_deterministic_and_follows_the_policy():
    policy = make_policy(EXAMPLE)
    assert derive(policy) == derive(policy)
    changed = json.loads(json.dumps(EXAMPLE))
    changed["filesystem"]["denyRead"].append("~/.kube")
    changed["network"]["allowedDomains"].remove("pypi.org")
    names = set(by_name(derive(make_policy(changed))))
    assert "deny-read ~/.kube" in names
    assert "allow-domain pypi.org" not in names


def test_reallowed_deny_read_is_not_probed_and_allow_read_inside_is():
    plan = derive(fs(deny_read=["~/.config", "~/.cache"], allow_read=["~/.config/ok", "~/.cache"]))
    names = by_name(plan)
    assert "deny-read ~/.cache" not in names  # allowRead re-opens all of it
    assert names["allow-read ~/.config/ok"].expect is Outcome.ALLOWED
    assert names["allow-read ~/.cache"].expect is Outcome.ALLOWED
    assert names["deny-read ~/.config"].expect is Outcome.DENIED


def test_overridden_write_roots_are_not_probed():
    plan = derive(
        fs(allow_write=[".", "~/.ssh", "/srv"], deny_read=["~/.ssh"], deny_write=["/srv"])
    )
    names = set(by_name(plan))
    assert "allow-write ." in names
    assert "allow-write ~/.ssh" not in names and "allow-write /srv" not in names
    assert "deny-write /srv" in names


def test_write_tmp_probe_only_when_no_rule_allows_tmp():
    assert "write-tmp" in {p.kind for p in derive(fs(allow_write=["."])).probes}
    for root in ("/tmp", "/tmp/**", "/"):
        assert "write-tmp" not in {p.kind for p in derive(fs(allow_write=[root])).probes}


def test_path_needed_as_file_and_directory_becomes_a_directory():
    plan = derive(fs(deny_read=["~/.netrc"], deny_write=["~/.netrc", "~/.ssh/config"]))
    names = by_name(plan)
    assert names["deny-write ~/.netrc"].target == "home/.netrc/.twsrt-probe-write"
    assert "home/.netrc" in plan.fixtures.dirs
    assert "home/.netrc" not in plan.fixtures.files
    assert names["deny-write ~/.ssh/config"].target == "home/.ssh/config"


def test_literal_entry_is_a_path_not_a_glob():
    plan = derive(fs(deny_read=[{"path": "~/odd[name]", "literal": True}]))
    probe = by_name(plan)["deny-read ~/odd[name]"]
    assert not probe.glob and probe.target == "home/odd[name]/.twsrt-probe-read"


def test_unprobeable_paths_become_error_probes():
    plan = derive(fs(deny_read=["../../../outside-the-tree"]))
    probe = by_name(plan)["deny-read ../../../outside-the-tree"]
    assert probe.problem and judge(probe, None, None)[0] is Verdict.ERROR


@pytest.mark.parametrize(
    ("entry", "host", "port", "matches"),
    [
        ("github.com", "github.com", 80, True),
        ("github.com", "api.github.com", 80, False),
        ("*.github.com", "api.github.com", 80, True),
        ("*.github.com", "github.com", 80, False),  # subdomains only
        ("example.com:8443", "example.com", 8443, True),
        ("example.com:8443", "example.com", 80, False),
        ("*", "anything.example", 80, True),
        ("*:22", "anything.example", 80, False),
    ],
)
def test_domain_matches(entry, host, port, matches):
    assert domain_matches(entry, host, port) is matches


def test_domain_probes_expect_what_the_lists_say():
    policy = fs(
        allowedDomains=["github.com", "*.npmjs.org", "example.com:8443"],
        deniedDomains=["evil.example", "*:22", "github.com"],
    )
    names = by_name(derive(policy))
    assert names["allow-domain github.com"].expect is Outcome.DENIED  # deny wins
    assert names["allow-domain *.npmjs.org"].target == "http://twsrt-probe.npmjs.org/"
    assert names["allow-domain example.com:8443"].target == "http://example.com:8443/"
    assert names["allow-domain example.com:8443"].port
    # a host an allow entry admits on port 22, so the probe tells the deny entry apart
    assert names["deny-domain *:22"].target == "http://github.com:22/"
    assert names["deny-domain *:22"].expect is Outcome.DENIED


def test_canary_avoids_allowed_names():
    names = by_name(derive(fs(allowedDomains=["*.invalid"])))
    assert "canary-domain twsrt-canary.example" in names


# ------------------------------------------------------------------ engine inputs


def test_srt_settings_maps_every_path_into_the_tree():
    policy = make_policy(
        {
            "filesystem": {
                "denyRead": ["~/.aws", {"path": "/etc/x[1]", "literal": True}, "**/*.pem"],
                "allowWrite": [".", "/tmp"],
                "denyWrite": ["./build/ro"],
            },
            "network": {
                "allowedDomains": ["github.com"],
                "deniedDomains": [],
                "allowUnixSockets": ["/run/a.sock"],
            },
        }
    )
    settings = srt_settings(policy, "/R")
    assert settings["filesystem"]["denyRead"] == [
        "/R/home/.aws",
        {"path": "/R/fs/etc/x[1]", "literal": True},
        "/R/work/**/*.pem",
    ]
    assert settings["filesystem"]["allowWrite"] == ["/R/work", "/R/fs/tmp"]
    assert settings["filesystem"]["denyWrite"] == ["/R/work/build/ro"]
    assert settings["network"]["allowUnixSockets"] == ["/R/fs/run/a.sock"]
    assert settings["network"]["allowedDomains"] == ["github.com"]
    assert policy.srt["filesystem"]["denyRead"][0] == "~/.aws"  # the policy is untouched


def test_srt_settings_fills_the_lists_srt_requires():
    policy = make_policy({"filesystem": {"denyRead": ["~/.aws"]}})
    settings = srt_settings(policy, "/R")
    assert settings["network"] == {"allowedDomains": [], "deniedDomains": []}
    assert settings["filesystem"] == {
        "denyRead": ["/R/home/.aws"],
        "allowWrite": [],
        "denyWrite": [],
    }


def test_srt_settings_read_only_grants_no_write_root():
    policy = make_policy({"filesystem": {"allowWrite": [".", "/tmp"], "denyWrite": ["/x"]}})
    settings = srt_settings(policy, "/R", "read-only")
    assert settings["filesystem"]["allowWrite"] == []
    assert settings["filesystem"]["denyWrite"] == ["/R/fs/x"]


CODEX_ON_DISK = """\
model = "m"  # kept
default_permissions = "twsrt"
sandbox_mode = "workspace-write"

[sandbox_workspace_write]
writable_roots = ["/etc", "~/x"]

[permissions.twsrt.filesystem]
glob_scan_max_depth = 64
"/tmp" = "write"
"~/.aws" = "deny"

[permissions.twsrt.filesystem.":workspace_roots"]
"." = "write"
"**/.env" = "deny"

[permissions.twsrt.filesystem."/srv/data"]
"." = "write"
"secret" = "deny"

[permissions.twsrt.network.unix_sockets]
"/run/a.sock" = "allow"

[permissions.mine.filesystem]
"/opt" = "write"
"""


def test_codex_config_reroots_only_absolute_paths_and_keeps_everything_else():
    import tomllib

    mapped = tomllib.loads(codex_config(CODEX_ON_DISK, "/R"))
    original = tomllib.loads(CODEX_ON_DISK)
    assert mapped["permissions"]["twsrt"]["filesystem"] == {
        "glob_scan_max_depth": 64,
        "/R/fs/tmp": "write",
        "~/.aws": "deny",
        ":workspace_roots": {".": "write", "**/.env": "deny"},
        "/R/fs/srv/data": {".": "write", "secret": "deny"},
    }
    assert mapped["permissions"]["twsrt"]["network"] == {
        "unix_sockets": {"/R/fs/run/a.sock": "allow"}
    }
    assert mapped["permissions"]["mine"]["filesystem"] == {"/R/fs/opt": "write"}
    assert mapped["sandbox_workspace_write"] == {"writable_roots": ["/R/fs/etc", "~/x"]}
    # every other key reaches Codex as it is on disk (a user key that undoes the profile too)
    for key in ("model", "default_permissions", "sandbox_mode"):
        assert mapped[key] == original[key]


def test_codex_config_that_is_not_toml_is_refused():
    with pytest.raises(ValueError):
        codex_config("[permissions\n", "/R")


# ------------------------------------------------------------------ observations and verdicts

READ = Probe("deny-read", "~/.aws", Location("srt.json", 3, 5), Action.READ, Outcome.DENIED, "t")
FETCH = Probe("allow-domain", "github.com", Location("s"), Action.FETCH, Outcome.ALLOWED, "u")


@pytest.mark.parametrize(
    ("result", "outcome"),
    [
        ({"status": 403, "xpe": "blocked-by-allowlist", "reason": None}, Outcome.DENIED),
        ({"status": 403, "xpe": "blocked-by-denylist", "reason": "denied"}, Outcome.DENIED),
        # Codex's DNS/private-address check: proves nothing about the lists
        ({"status": 403, "xpe": "blocked-by-allowlist", "reason": "not_allowed_local"}, None),
        ({"status": 502, "xpe": None}, Outcome.ALLOWED),
        ({"status": 200, "upstream": "1"}, Outcome.ALLOWED),
        ({"status": 403, "xpe": None}, Outcome.ALLOWED),  # the upstream's own 403
        ({"error": "URLError: Temporary failure in name resolution"}, Outcome.DENIED),
    ],
)
def test_classify_fetch(result, outcome):
    assert classify_fetch(result) == outcome


def test_observe_needs_the_result_line():
    seen = observe(READ, 0, "noise\nTWSRT-PROBE denied\n")
    assert seen.ran and seen.outcome is Outcome.DENIED
    assert not observe(READ, 1, "bwrap: setting up uid map: Permission denied").ran
    net = observe(FETCH, 0, 'TWSRT-PROBE-NET {"status": 502}')
    assert net.outcome is Outcome.ALLOWED
    assert not observe(FETCH, 0, "TWSRT-PROBE allowed").ran  # a fetch must print its JSON


def seen(outcome: Outcome | None, ran: bool = True) -> Observation:
    return Observation(ran, outcome, 0, "")


def test_judge_every_verdict():
    ok = seen(Outcome.ALLOWED)
    assert judge(READ, ok, seen(Outcome.DENIED))[0] is Verdict.PASS
    assert judge(READ, ok, seen(Outcome.ALLOWED))[0] is Verdict.FAIL
    assert judge(READ, seen(Outcome.DENIED), seen(Outcome.DENIED))[0] is Verdict.INVALID
    assert judge(READ, seen(None, ran=False), None)[0] is Verdict.INVALID
    assert judge(READ, ok, seen(None, ran=False))[0] is Verdict.ERROR
    gap = explain_gap(
        "srt",
        Probe("deny-write", "**/.env", Location("s"), Action.APPEND, Outcome.DENIED, glob=True),
        Outcome.ALLOWED,
        fs(),
        "linux",
    )
    assert gap is not None and gap.rule_id == "TWS501"
    verdict, detail = judge(READ, ok, seen(Outcome.ALLOWED), gap)
    assert verdict is Verdict.GAP and "TWS501" in detail


def test_gaps_are_narrow():
    glob_write = Probe(
        "deny-write", "**/.env", Location("s"), Action.APPEND, Outcome.DENIED, glob=True
    )
    plain_write = Probe("deny-write", "~/.bashrc", Location("s"), Action.APPEND, Outcome.DENIED)
    assert explain_gap("srt", plain_write, Outcome.ALLOWED, fs(), "linux") is None
    assert explain_gap("srt", glob_write, Outcome.ALLOWED, fs(), "darwin") is None
    assert explain_gap("codex", glob_write, Outcome.ALLOWED, fs(), "linux") is None
    tmp = Probe("write-tmp", "/tmp", Location("s"), Action.CREATE, Outcome.DENIED)
    assert explain_gap("codex", tmp, Outcome.ALLOWED, fs(), "linux").rule_id == "TWS503"
    assert explain_gap("srt", tmp, Outcome.ALLOWED, fs(), "linux") is None
    cut = fs(allowedDomains=["github.com"], deniedDomains=["*:22"])
    gap = explain_gap("codex", FETCH, Outcome.DENIED, cut, "linux")
    assert gap is not None and gap.rule.name == "lossy-port-domain"


def test_every_gap_rule_is_catalogued():
    for rule_id in ("TWS501", "TWS502", "TWS503", "TWS504", "TWS505"):
        rule = CATALOG[rule_id]
        assert rule.short and rule.help


def test_static_gaps_for_check():
    policy = fs(deny_write=["**/.env", "~/.bashrc"], allowUnixSockets=["/run/x.sock"])
    found = static_gaps(policy)
    assert [(f.rule_id, f.location.pointer) for f in found] == [
        ("TWS501", "/filesystem/denyWrite/0"),
        ("TWS502", "/network/allowUnixSockets/0"),
    ]
    assert static_gaps(policy, platform="darwin") == []


def test_a_trailing_double_star_is_no_srt_gap():
    """srt 0.0.83 strips a trailing /** and enforces the directory (a real run refuses append,
    create, mkdir and rename in it), so TWS501 named a gap that is not there."""
    policy = fs(
        deny_write=["~/proj/secrets/**", "**/*.key", "/srv/*/ro/**"],
        allow_write=[".", "~/proj/**", "~/cache/*/tmp"],
    )
    found = static_gaps(policy)
    assert [(f.rule_id, f.location.pointer) for f in found] == [
        ("TWS501", "/filesystem/denyWrite/1"),
        ("TWS501", "/filesystem/denyWrite/2"),
        ("TWS501", "/filesystem/allowWrite/2"),
    ]
    tree = Probe("deny-write", "~/p/**", Location("s"), Action.APPEND, Outcome.DENIED, glob=True)
    assert explain_gap("srt", tree, Outcome.ALLOWED, policy, "linux") is None
    root = Probe("allow-write", "~/p/**", Location("s"), Action.CREATE, Outcome.ALLOWED, glob=True)
    assert explain_gap("srt", root, Outcome.DENIED, policy, "linux") is None


# ------------------------------------------------------------------ the runner, with fake engines


class FakeEngine:
    """Runs probe commands for real, without a sandbox, except that any command mentioning one
    of ``deny`` is answered as if the sandbox refused it."""

    hint = "install it"

    def __init__(
        self,
        name: str,
        deny: tuple[str, ...] = (),
        broken: bool = False,
        agent: str | None = None,
        available: bool = True,
    ) -> None:
        self.name, self.deny, self.broken = name, deny, broken
        self.agent, self.available = agent, available

    def reads(self, ctx: Context) -> list[Path]:
        if self.agent is None:
            return [ctx.config.srt]
        return [ctx.config.targets[k] for k in ("codex_config",) if k in ctx.config.targets]

    def check_available(self, ctx: Context) -> None:
        if not self.available:
            raise EngineUnavailable(self.name, "missing " + self.name, self.hint)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        self.root, self.upstream = root, upstream
        self.input = root / "engine.json"
        self.input.write_text(json.dumps(srt_settings(ctx.policy, str(root), ctx.sandbox_mode)))
        return self.input

    def run(self, shell: str, timeout: float) -> Run:
        if shell == SMOKE:
            return Run(0, "TWSRT-PROBE allowed\n", 0.0)
        # a batch: each of its probe commands answered as if it ran alone
        return answer_batch(shell, self.run_one) or self.run_one(shell)

    def run_one(self, shell: str) -> Run:
        if self.broken:
            return Run(1, "bwrap: Creating new namespace failed\n", 0.0)
        if any(fragment in shell for fragment in self.deny):
            if "TWSRT-PROBE-NET" in shell:
                return Run(0, 'TWSRT-PROBE-NET {"status": 403, "xpe": "blocked-by-allowlist"}', 0)
            return Run(1, "TWSRT-PROBE denied\n", 0.0)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.root / "home")}
        env["HTTP_PROXY"] = self.upstream
        proc = subprocess.run(
            ["sh", "-c", shell], cwd=self.root / "work", env=env, capture_output=True, text=True
        )
        return Run(proc.returncode, proc.stdout + proc.stderr, 0.0)


SMALL = {
    "filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."], "denyWrite": ["**/.env"]},
    "network": {"allowedDomains": ["github.com"], "deniedDomains": ["evil.example"]},
}
# What a perfect sandbox refuses for SMALL (the glob denyWrite is left to the GAP test).
PERFECT = (
    "/home/.aws/",
    "/outside/",
    "/tmp/.twsrt",
    "twsrt-canary",
    "evil.example",
    "/.env",
    "twsrt-probe.github.com",  # the subdomain an exact entry must not admit
)


def fake(deny: tuple[str, ...] = PERFECT, broken: bool = False, name: str = "srt") -> Any:
    return lambda _name: FakeEngine(name, deny, broken)


def test_perfect_fake_sandbox_passes_everything():
    report = run_tests(ctx_of(make_policy(SMALL)), "srt", factory=fake(), attacks=False, jobs=2)
    assert {r.probe.name: r.verdict for r in report.results} == {
        "deny-read ~/.aws": Verdict.PASS,
        "deny-write **/.env": Verdict.PASS,
        "allow-write .": Verdict.PASS,
        "write-outside a directory outside every allowWrite root": Verdict.PASS,
        "write-tmp /tmp (no allowWrite rule covers it)": Verdict.PASS,
        "allow-domain github.com": Verdict.PASS,
        "canary-domain twsrt-canary.invalid": Verdict.PASS,
        "allow-domain github.com [subdomain]": Verdict.PASS,
        "allow-domain github.com [upper]": Verdict.PASS,
        "allow-domain github.com [dot]": Verdict.PASS,
        "allow-domain github.com [port 443]": Verdict.PASS,
        "allow-domain github.com [port 8080]": Verdict.PASS,
        # no allow entry admits evil.example: refused, but that proves nothing about the entry
        "deny-domain evil.example": Verdict.MOOT,
    }
    assert report.exit_code == 0
    control = report.results[0].control
    assert control is not None and control.outcome is Outcome.ALLOWED


def test_open_sandbox_fails_every_denial():
    report = run_tests(ctx_of(make_policy(SMALL)), "srt", factory=fake(deny=()), attacks=False)
    verdicts = {r.probe.name: r.verdict for r in report.results}
    assert verdicts["deny-read ~/.aws"] is Verdict.FAIL
    assert verdicts["deny-domain evil.example"] is Verdict.FAIL
    assert verdicts["allow-write ."] is Verdict.PASS
    assert report.exit_code == 1


def test_known_limitation_is_a_gap_and_strict_fails_it():
    deny = tuple(d for d in PERFECT if d != "/.env")
    report = run_tests(ctx_of(make_policy(SMALL)), "srt", factory=fake(deny=deny), attacks=False)
    result = next(r for r in report.results if r.probe.name == "deny-write **/.env")
    assert result.verdict is Verdict.GAP and result.gap and result.gap.rule_id == "TWS501"
    assert report.exit_code == 0
    strict = run_tests(
        ctx_of(make_policy(SMALL)), "srt", factory=fake(deny=deny), attacks=False, strict=True
    )
    assert strict.exit_code == 1
    codex = run_tests(
        ctx_of(make_policy(SMALL)), "codex", factory=fake(deny=deny, name="codex"), attacks=False
    )
    assert {r.verdict for r in codex.results if "**/.env" in r.probe.name} == {Verdict.FAIL}


def test_control_that_cannot_run_is_invalid_not_pass():
    # a name longer than any filesystem allows: the fixture cannot exist, the control fails
    long_name = "~/" + "x" * 300
    policy = make_policy({**SMALL, "filesystem": {**SMALL["filesystem"], "denyRead": [long_name]}})
    report = run_tests(
        ctx_of(policy), "srt", factory=fake(deny=("x" * 300,)), attacks=False, keyword="deny-read"
    )
    (result,) = report.results
    assert result.verdict is Verdict.INVALID
    assert result.sandboxed is None  # the sandboxed run is not even attempted
    assert report.exit_code == 1


def test_sandbox_that_breaks_mid_run_is_error():
    report = run_tests(
        ctx_of(make_policy(SMALL)), "srt", factory=fake(broken=True), attacks=False, keyword="aws"
    )
    (result,) = report.results
    assert result.verdict is Verdict.ERROR and "no result" in result.detail
    assert report.exit_code == 1


def test_keyword_selects_probes_and_unknown_keyword_is_an_error():
    report = run_tests(
        ctx_of(make_policy(SMALL)), "srt", factory=fake(), attacks=False, keyword="DOMAIN"
    )
    assert {r.probe.kind for r in report.results} == {
        "allow-domain",
        "deny-domain",
        "canary-domain",
    }
    with pytest.raises(TwsrtError):
        run_tests(
            ctx_of(make_policy(SMALL)),
            "srt",
            factory=fake(),
            attacks=False,
            keyword="no-such-probe",
        )


def test_disabled_policy_is_refused():
    with pytest.raises(TwsrtError) as info:
        run_tests(
            ctx_of(make_policy({**SMALL, "enabled": False})), "srt", factory=fake(), attacks=False
        )
    assert info.value.findings[0].rule_id == "TWS201"


def test_missing_engine_tools_are_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("TWSRT_SRT_BIN", str(tmp_path / "no-srt"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EngineUnavailable) as info:
        SrtEngine().check_available(ctx_of(make_policy(SMALL)))
    assert "srt" in info.value.problem and "bwrap" in info.value.problem
    assert "apt-get install -y bubblewrap socat ripgrep" in info.value.hint


# ------------------------------------------------------------------ selection, modes, drift


def registry(unavailable: tuple[str, ...] = ()) -> Any:
    """The real engine names, each a fake; codex reads the codex_config target."""
    return lambda name: FakeEngine(
        name, PERFECT, agent=None if name == "srt" else name, available=name not in unavailable
    )


def codex_target(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text('model = "m"\n')  # a file without the twsrt profile: drifted
    return path


def test_default_runs_every_engine_that_can_and_names_the_ones_skipped(tmp_path):
    ctx = ctx_of(make_policy(SMALL), codex_config=codex_target(tmp_path))
    report = run_tests(
        ctx, None, factory=registry(unavailable=("codex",)), attacks=False, keyword="aws"
    )
    assert report.engines == ["srt"]
    assert [(s.engine, s.reason) for s in report.skipped] == [
        ("codex", "missing codex (install it)")
    ]
    assert "twsrt test: skipped codex: missing codex (install it)" in render_text(report)


def test_an_engine_without_its_agents_file_is_skipped_or_refused_when_named():
    ctx = ctx_of(make_policy(SMALL), copilot_output=Path("/x/flags.txt"))
    report = run_tests(ctx, None, factory=registry(), attacks=False, keyword="aws")
    assert report.engines == ["srt"]
    # codex is not a target: not even considered; copilot is, and has no runnable sandbox
    assert [s.engine for s in report.skipped] == ["copilot"]
    assert "logged-in" in report.skipped[0].reason
    with pytest.raises(EngineUnavailable) as info:
        run_tests(ctx, "codex", factory=registry(), attacks=False, keyword="aws")
    assert "[targets] codex_config" in info.value.problem
    with pytest.raises(EngineUnavailable):
        run_tests(ctx, "all", factory=registry(), attacks=False, keyword="aws")


def test_no_engine_that_can_run_is_exit_2_not_an_empty_pass(tmp_path):
    ctx = ctx_of(make_policy(SMALL), codex_config=codex_target(tmp_path))
    with pytest.raises(EngineUnavailable):
        run_tests(ctx, None, factory=registry(unavailable=("srt", "codex")))
    with pytest.raises(EngineUnavailable):  # named: must run even when another could
        run_tests(ctx, "codex", factory=registry(unavailable=("codex",)))


def test_drift_of_the_files_read_is_reported_beside_the_verdicts(tmp_path):
    ctx = ctx_of(make_policy(SMALL), codex_config=codex_target(tmp_path))
    report = run_tests(ctx, None, factory=registry(), attacks=False, keyword="aws")
    assert report.engines == ["srt", "codex"]
    assert {f.rule_id for f in report.drift} == {"TWS302"}
    assert report.inputs["codex"] == [str(tmp_path / "config.toml")]
    assert report.exit_code == 0  # drift is reported; the probes decide the verdict
    assert "drift (probed as on disk)" in render_text(report)
    assert json.loads(render_json(report))["drift"][0]["rule_id"] == "TWS302"


def test_read_only_probes_every_write_root_as_refusing_a_write():
    policy = fs(deny_read=["~/.aws"], allow_write=[".", "~/.cache"])
    plan = plan_for_mode(policy, "read-only")
    assert [p.expect for p in plan.probes if p.kind == "allow-write"] == []
    roots = [(p.rule, p.expect) for p in plan.probes if p.kind == READ_ONLY_ROOT]
    assert roots == [(".", Outcome.DENIED), ("~/.cache", Outcome.DENIED)]
    outside = next(p for p in plan.probes if p.kind == "write-outside")
    assert outside.expect is Outcome.DENIED
    assert "home/.cache" in plan.fixtures.dirs
    # a sandbox that lets the launch directory be written fails under read-only
    deny = tuple(d for d in PERFECT) + ("/home/.cache/",)
    report = run_tests(ctx_of(policy, "read-only"), "srt", factory=fake(deny=deny), attacks=False)
    verdicts = {r.probe.name: r.verdict for r in report.results}
    assert verdicts[f"{READ_ONLY_ROOT} ~/.cache"] is Verdict.PASS
    assert verdicts[f"{READ_ONLY_ROOT} ."] is Verdict.FAIL


def test_danger_full_access_is_unenforced_never_pass():
    ctx = ctx_of(make_policy(SMALL), "danger-full-access")
    # nothing runs, so an engine that could not run here is no reason to stop
    report = run_tests(ctx, "srt", factory=fake(broken=True), attacks=False)
    assert {r.verdict for r in report.results} == {Verdict.UNENFORCED}
    assert all(r.sandboxed is None and r.control is None for r in report.results)
    assert "nothing to enforce" in report.results[0].detail
    assert report.exit_code == 0
    assert run_tests(ctx, "srt", factory=fake(), attacks=False, strict=True).exit_code == 1
    text = render_text(report)
    assert "UNENFORCED 13 probes not run" in text
    assert "(13 unenforced)" in text
    root = ET.fromstring(junit_xml(report))
    assert len(root.findall(".//skipped")) == 13 and not root.findall(".//failure")


def test_attacks_run_beside_the_probes_and_an_open_sandbox_fails_them():
    report = run_tests(ctx_of(make_policy(SMALL)), "srt", factory=fake(deny=()), keyword="aws")
    attacks = [r for r in report.results if isinstance(r.probe, Attack)]
    assert attacks and {r.probe.attack for r in attacks} >= {"read", "proc-read"}
    assert {r.verdict for r in attacks} == {Verdict.FAIL}
    assert all(r.control is not None and r.control.outcome is Outcome.ALLOWED for r in attacks)
    document = json.loads(render_json(report))
    assert {r["attack"] for r in document["results"]} >= {None, "read", "proc-read"}


def test_a_timeout_kills_the_whole_process_group(tmp_path):
    """The launcher (sh) starts a child that outlives it unless the group is killed."""
    pidfile = tmp_path / "pid"
    script = f"sleep 300 & echo $! > {pidfile}; wait"
    ran = run_process(["sh", "-c", script], {"PATH": "/usr/bin:/bin"}, tmp_path, timeout=1)
    assert ran.exit_code is None and "timed out after 1s" in ran.output
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid), "the sandboxed child survived the probe's timeout"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")  # a zombie is dead, only not yet reaped


# ------------------------------------------------------------------ reports


def report_with_every_verdict() -> ProbeReport:
    deny = tuple(d for d in PERFECT if d not in ("/.env", "evil.example"))
    return run_tests(ctx_of(make_policy(SMALL)), "srt", factory=fake(deny=deny), attacks=False)


def test_reports_json_text_junit():
    report = report_with_every_verdict()
    document = json.loads(render_json(report))
    assert document["version"] == 1
    assert document["summary"]["GAP"] == 1 and document["summary"]["FAIL"] == 1
    assert document["summary"]["exit_code"] == 1 == report.exit_code
    gap = next(r for r in document["results"] if r["verdict"] == "GAP")
    assert gap["gap"]["rule_id"] == "TWS501" and gap["location"]["pointer"].startswith("/filesys")
    text = render_text(report)
    assert "FAIL    deny-domain evil.example  (srt.json:" in text
    assert "TWS501 srt-linux-write-glob" in text
    assert "twsrt test: srt: 13 probes (11 pass, 1 fail, 1 gap)" in text
    root = ET.fromstring(junit_xml(report))
    cases = root.findall(".//testcase")
    assert len(cases) == len(report.results)
    assert len(root.findall(".//failure")) == 1
    assert len({(c.get("classname"), c.get("name")) for c in cases}) == len(cases)


def test_cli_exit_2_with_hint_when_sandbox_missing(sandbox):
    missing = {"TWSRT_SRT_BIN": str(sandbox.home / "nope")}
    run = sandbox.run("test", "--engine", "srt", **missing)
    assert run.returncode == 2, run.stderr
    assert "srt cannot run here" in run.stderr
    # the hint speaks to a user who installed twsrt with pip, not to this repository's CI
    assert "npm install -g @anthropic-ai/sandbox-runtime@0.0.83" in run.stderr
    assert ".ci/" not in run.stderr
    run = sandbox.run("test", "--engine", "codex", TWSRT_CODEX_BIN=str(sandbox.home / "nope"))
    assert run.returncode == 2 and "codex cannot run here" in run.stderr
    # by default every engine that can run runs; here none can (srt missing, no codex target)
    run = sandbox.run("test", **missing)
    assert run.returncode == 2 and "srt cannot run here" in run.stderr


def test_cli_help_lists_the_options(sandbox):
    run = sandbox.run("test", "--help")
    assert run.returncode == 0
    for option in ("--engine", "--sandbox", "--yolo", "-k", "--json", "--junit", "--timeout"):
        assert option in run.stdout
    assert "read-only|workspace-write|danger-full-access" in run.stdout
    assert "[srt|codex|" in run.stdout and "|all]" in run.stdout
