"""The real pi 1.4.0 with its sandbox extension example (srt 0.0.26) on the file twsrt generates
for it (``~/.pi/agent/extensions/sandbox.json``, copied byte for byte into each run's HOME):
each forbidden action through the sandboxed bash tool is refused beside a control that
succeeds, and each loss twsrt reports instead of claiming is shown to be real.

The runs of one module fixture, three at a time, against one fake chat server:

- ``noext``: pi's own bash tool, no extension (the control of every refusal);
- ``twsrt``: the generated file: a denyRead file read by ``cat`` and by ``env cat``, writes
  into a denyWrite directory and outside the write roots (create, append, rename, symlink), a
  write to /tmp (the extension's default write root, which the file must override), a host
  outside allowedDomains, a planted ``.pi/sandbox.json`` and other agents' layers in the launch
  directory; then ``twsrt_next``, a second launch in that workspace, still confined;
- ``naive``: the policy's srt document with ``"enabled": true`` and nothing more (what a
  compile without twsrt's protected names would write): the planted ``.pi/sandbox.json``
  lands, and ``naive_next``, the next launch there, reads the secret (the control of the
  planted-layer refusal);
- ``project``: the project scope's ``.pi/sandbox.json`` alone (no global file), in the project
  root;
- ``raw``: the policy's srt lists as written (a ``P/**`` denyRead, a denyWrite glob), the
  control of how twsrt writes them;
- ``home_root``: a policy that makes ``~`` a write root: pi's own agent directory
  (``~/.pi/agent/extensions/sandbox.json``, ``settings.json``) stays read-only while another
  file in the home is written;
- ``tools_bash``: ``--tools bash``, the mitigation TWS462 names: pi offers the sandboxed bash
  tool alone, so the ``read`` tool cannot return the secret it returns in ``twsrt``;
- ``trust_ask`` / ``trust_always``: a project .pi/extensions/ extension, with pi's default
  project trust and with ``defaultProjectTrust: "always"`` in ~/.pi/agent/settings.json (which
  loads it unasked: TWS656);
- ``nobwrap``: no bwrap on PATH: the extension runs bash unsandboxed (TWS470), and ``twsrt
  check`` on that machine says so (TWS652).

The losses shown: the bash deny rule ``touch`` runs (TWS463) and the ``read`` and ``write``
tools pass the path denies (TWS462). Install with .ci/install-pi.sh.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat

from .gemini_client import path_without
from .pi_client import GLOBAL_FILE, Call, Observed, Setup, pi_bin, read, run_all, run_pi, write
from .qwen_client import scratch_dir

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("pi_generated")]

SECRET = "PI-GENERATED-SECRET"
BASH = {"deny": ["touch"], "ask": ["git push"], "allow": ["ls"]}
PLANT = "mkdir -p .pi && echo '{\"enabled\": false}' > .pi/sandbox.json"
PLANT_SUB = "mkdir -p sub/.pi && echo '{\"enabled\": false}' > sub/.pi/sandbox.json"
LAYER = "mkdir -p .codex && echo 'sandbox_mode = \"danger-full-access\"' > .codex/config.toml"
# the forbidden writes through bash: (name, command, the path it makes, relative to the root)
WRITES = [
    ("deny-create", "echo new > prot/new", "ws/prot/new"),
    ("deny-append", "echo more >> prot/e", None),
    ("deny-rename", "mv movable prot/moved", "ws/prot/moved"),
    ("deny-symlink", "ln -s /etc/hostname prot/link", "ws/prot/link"),
    ("out-create", "echo new > ../out/new", "out/new"),
    ("out-append", "echo more >> ../out/e", None),
    ("out-rename", "mv movable2 ../out/moved", "out/moved"),
    ("out-symlink", "ln -s /etc/hostname ../out/link", "out/link"),
]
RO = "Read-only file system"
# a project extension that leaves a mark in the workspace when pi loads it
MARK_EXTENSION = """import { writeFileSync } from "node:fs";
export default function () {
    writeFileSync(process.cwd() + "/extension-loaded", "x");
}
"""


def _srt(setup: Setup, *roots: str) -> dict[str, Any]:
    return {
        "filesystem": {
            "denyRead": [str(setup.root / "out" / "secret"), str(setup.root / "vault") + "/**"],
            "allowWrite": [".", *roots],
            "denyWrite": [str(setup.workspace / "prot"), "**/*.pem"],
        },
        "network": {"allowedDomains": ["localhost"]},
    }


def generate(setup: Setup, srt: dict[str, Any], env_path: str = "/usr/bin:/bin") -> str:
    """twsrt's pi file for ``srt``, installed as the run's extension file; check's JSON."""
    repo = setup.root / "repo"
    repo.mkdir(parents=True)
    (repo / "srt.json").write_text(json.dumps(srt, indent=2) + "\n")
    (repo / "bash.json").write_text(json.dumps(BASH) + "\n")
    (repo / "twsrt.toml").write_text(
        f'home = "{setup.home}"\ncheckout = "{repo}"\n\n[sources]\nsrt = "srt.json"\n'
        'bash_rules = "bash.json"\n\n[targets]\n'
        'pi_sandbox = "home/.pi/agent/extensions/sandbox.json"\n'
    )
    env = {"PATH": env_path, "HOME": str(setup.home), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "pi", "-w"], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    checked = run_cli(["check", "--agent", "pi", "--format", "json"], cwd=repo, env=env)
    target = repo / "home" / ".pi" / "agent" / "extensions" / "sandbox.json"
    installed = setup.agent_dir / GLOBAL_FILE
    installed.parent.mkdir(parents=True, exist_ok=True)
    installed.write_bytes(target.read_bytes())
    return checked.stdout


@dataclass
class InSub(Setup):
    """A launch in ``ws/sub`` with the same HOME (the files are there already)."""

    @property
    def workspace(self) -> Path:
        return self.root / "ws" / "sub"


def _check(setup: Setup) -> str:
    """check's JSON report on the run's repository as it is now."""
    repo = setup.root / "repo"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(setup.home), "TWSRT_NO_CACHE": "1"}
    return run_cli(["check", "--agent", "pi", "--format", "json"], cwd=repo, env=env).stdout


def _files(setup: Setup) -> None:
    """The run's files. .claude/ and .git/ exist as directories, so srt 0.0.26's stubs for
    their names land inside them (pi row 14)."""
    setup.write()
    ws = setup.workspace
    for directory in (".claude", ".git", "prot"):
        (ws / directory).mkdir()
    (ws / "prot" / "e").write_text("old\n")
    for name in ("movable", "movable2"):
        (ws / name).write_text("m\n")
    (ws / "in").write_text("IN\n")
    (setup.root / "out").mkdir()
    (setup.root / "out" / "e").write_text("old\n")
    (setup.root / "out" / "secret").write_text(SECRET + "\n")
    (setup.root / "vault").mkdir()
    (setup.root / "vault" / "key").write_text(SECRET + "\n")


def _calls(setup: Setup, fake: FakeChat, name: str) -> list[Call]:
    secret = setup.root / "out" / "secret"
    tmp_mark = setup.root / "tmp-mark"  # stands for /tmp: the run's TMPDIR is not a root
    calls = [
        Call(f"cat {secret}"),
        Call(f"env cat {secret}"),
        Call(f"cat {setup.root / 'vault' / 'key'}"),
        Call("cat in"),
        Call("echo x > ok"),
        Call(f"echo x > /tmp/twsrt-pi-generated-{setup.root.parent.name}-{name}"),
        Call(f"echo x > {tmp_mark}"),
        *(Call(command) for _, command, _ in WRITES),
        Call(
            f"curl -sS -m 10 --noproxy '' {fake.url('allowed-' + name)}".replace(
                "127.0.0.1", "localhost"
            )
        ),
        Call(f"curl -sS -m 10 --noproxy '' {fake.url('refused-' + name)}"),
        Call("touch denied-cmd"),
        Call("echo x > .bashrc"),
        Call(LAYER),
        read(secret),
        write(setup.workspace / "prot" / "w"),
        Call(PLANT),
        Call(PLANT_SUB),
    ]
    return calls


def generate_project(setup: Setup, srt: dict[str, Any]) -> str:
    """twsrt's project file for ``srt`` in the workspace (the project root); check's JSON."""
    ws = setup.workspace
    (ws / "srt.json").write_text(json.dumps(srt, indent=2) + "\n")
    (ws / "bash.json").write_text(json.dumps(BASH) + "\n")
    (ws / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n[project]\nagents = ["pi"]\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(setup.home), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "-w"], cwd=ws, env=env)
    assert wrote.returncode == 0, wrote.stderr
    assert (ws / ".pi" / "sandbox.json").is_file()
    return run_cli(["check", "--format", "json"], cwd=ws, env=env).stdout


def _project_calls(setup: Setup) -> list[Call]:
    secret = setup.root / "out" / "secret"
    return [
        Call(f"cat {secret}"),
        Call("echo x > ok"),
        Call(f"echo x > /tmp/twsrt-pi-generated-{setup.root.parent.name}-project"),
        Call("echo '{}' > .pi/sandbox.json"),
        Call("echo x > twsrt.toml"),
    ]


def _home_calls(setup: Setup) -> list[Call]:
    return [
        Call("echo '{}' > ~/.pi/agent/extensions/sandbox.json"),
        Call("echo '{}' > ~/.pi/agent/settings.json"),
        Call("mkdir -p ~/.pi/agent/extensions/evil && echo x > ~/.pi/agent/extensions/evil/i.ts"),
        Call("echo x > ~/fine"),
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Any]]:
    binary = pi_bin()
    with scratch_dir("twsrt-pi-gen-") as root:
        out: dict[str, Any] = {}
        plans: dict[str, tuple[Setup, list[Call], dict[str, Any]]] = {}
        for name in ("noext", "twsrt", "naive", "raw", "tools_bash", "nobwrap"):
            setup = Setup(root / name)
            _files(setup)
            if name in ("naive", "raw"):
                document = {"enabled": True, **_srt(setup)}
                document["network"]["deniedDomains"] = []
                document["filesystem"]["allowWrite"] = ["."]
                if name == "naive":  # without the glob, which breaks every later command
                    document["filesystem"]["denyWrite"] = [str(setup.workspace / "prot")]
                (setup.agent_dir / GLOBAL_FILE).parent.mkdir(parents=True, exist_ok=True)
                (setup.agent_dir / GLOBAL_FILE).write_text(json.dumps(document, indent=2))
            elif name != "noext":
                path = path_without("bwrap", root / "nobwrap-bin") if name == "nobwrap" else None
                out[f"{name}_check"] = generate(setup, _srt(setup), path or "/usr/bin:/bin")
            options: dict[str, Any] = {"extension": name != "noext"}
            calls = _calls(setup, fake, name)
            if name == "raw":  # the policy's lists as written: P/** and a denyWrite glob
                vault = setup.root / "vault" / "key"
                calls = [Call(f"cat {vault}"), Call("echo a > ok"), Call("echo b > ok2")]
            if name == "tools_bash":
                options["flags"] = ["--tools", "bash"]
                calls = [read(setup.root / "out" / "secret"), Call("echo x > ok")]
            if name == "nobwrap":
                options["path"] = path_without("bwrap", root / "nobwrap-bin")
            plans[name] = (setup, calls, options)
        for name in ("trust_ask", "trust_always"):  # a project extension, trusted or not
            setup = Setup(root / name)
            _files(setup)
            out[f"{name}_check"] = generate(setup, _srt(setup))
            if name == "trust_always":
                settings = {"defaultProjectTrust": "always"}
                (setup.agent_dir / "settings.json").write_text(json.dumps(settings))
                repo_settings = setup.root / "repo" / "home" / ".pi" / "agent" / "settings.json"
                repo_settings.write_text(json.dumps(settings, indent=2) + "\n")
                out[f"{name}_check"] = _check(setup)
            (setup.workspace / ".pi" / "extensions").mkdir(parents=True)
            (setup.workspace / ".pi" / "extensions" / "mark.ts").write_text(MARK_EXTENSION)
            plans[name] = (setup, [Call("echo x > ok")], {})
        project = Setup(root / "project")  # no global file: the project's alone
        _files(project)
        out["project_check"] = generate_project(project, _srt(project))
        plans["project"] = (project, _project_calls(project), {})
        home = Setup(root / "home_root")
        _files(home)
        # a home has ~/.config: without it srt 0.0.26 cannot deny both ~/.config/opencode and
        # ~/.config/kilo (its stub for the first missing name is a file, and the second cannot
        # be made below it), and every command fails (docs/agents/pi.md, "Traps")
        (home.home / ".config").mkdir(parents=True, exist_ok=True)
        out["home_root_check"] = generate(home, _srt(home, "~"))
        plans["home_root"] = (home, _home_calls(home), {})
        observed: dict[str, Any] = dict(run_all(binary, fake, plans))
        for name in ("twsrt", "naive", "twsrt_sub"):  # the next launch in that workspace
            setup = observed[name.removesuffix("_sub")].setup
            if name == "twsrt_sub":  # started in the subdirectory the command planted in
                setup = InSub(setup.root)
            calls = [Call(f"cat {setup.root / 'out' / 'secret'}")]
            run = run_pi(binary, fake, f"{name}_next", setup, calls)
            observed[f"{name}_next"] = Observed(setup, calls, run)
        observed.update(out)
        yield observed


def _leaked(observed: Observed, key: str) -> bool:
    return SECRET in observed.result(key)


def _secret(observed: Observed) -> str:
    return f"cat {observed.setup.root / 'out' / 'secret'}"


def test_every_run_exits_0_and_answers_every_call(runs: dict[str, Any]) -> None:
    launches = {n: o for n, o in runs.items() if isinstance(o, Observed)}
    assert {n: o.run.returncode for n, o in launches.items()} == dict.fromkeys(launches, 0)
    missing = {n: o.run.results.count(None) for n, o in launches.items()}
    assert missing == dict.fromkeys(launches, 0)


def test_check_reports_no_error_on_the_generated_file(runs: dict[str, Any]) -> None:
    """The generated file passes check but for what a command can still plant below a write
    root's top (TWS654, TWS655: no setting of the extension stops that); the losses are
    warnings and notes (TWS462, TWS463, TWS470)."""
    for name, allowed in (("twsrt_check", {"TWS654"}), ("home_root_check", {"TWS654", "TWS655"})):
        findings = json.loads(runs[name])["findings"]
        errors = {f["rule_id"] for f in findings if f["level"] == "error" and f["agent"] == "pi"}
        assert errors == allowed, findings
    ids = {f["rule_id"] for f in json.loads(runs["twsrt_check"])["findings"]}
    assert {"TWS462", "TWS463", "TWS470"} <= ids


def test_a_denied_read_is_refused(runs: dict[str, Any]) -> None:
    twsrt, plain = runs["twsrt"], runs["noext"]
    for command in (_secret(twsrt), "env " + _secret(twsrt)):
        assert "Permission denied" in twsrt.result(command), twsrt.result(command)
    assert _leaked(plain, _secret(plain))
    assert twsrt.result("cat in").strip() == "IN"  # the control read inside the sandbox


@pytest.mark.parametrize(("case", "command", "made"), WRITES, ids=[w[0] for w in WRITES])
def test_writes_into_a_denied_tree_and_outside_the_roots_are_refused(
    runs: dict[str, Any], case: str, command: str, made: str | None
) -> None:
    twsrt, plain = runs["twsrt"], runs["noext"]
    assert RO in twsrt.result(command), twsrt.result(command)
    assert RO not in plain.result(command)
    if made is None:  # an append: the file keeps its one line
        target = "ws/prot/e" if "prot" in command else "out/e"
        assert (plain.setup.root / target).read_text() == "old\nmore\n"
        assert (twsrt.setup.root / target).read_text() == "old\n"
    else:
        assert plain.exists(made) and not twsrt.exists(made)
    assert twsrt.exists("ws/ok")  # a write inside allowWrite lands


def test_the_extensions_default_tmp_root_is_overridden(runs: dict[str, Any]) -> None:
    """/tmp is a write root of the extension's defaults: the generated allowWrite replaces it."""
    twsrt, plain = runs["twsrt"], runs["noext"]
    key = "echo x > /tmp/twsrt-pi-generated-"
    assert RO in twsrt.result(key)
    assert RO not in plain.result(key)
    assert RO in twsrt.result(f"echo x > {twsrt.setup.root / 'tmp-mark'}")


def test_a_host_outside_allowed_domains_is_refused(runs: dict[str, Any]) -> None:
    twsrt, plain = runs["twsrt"], runs["noext"]
    assert twsrt.result("curl -sS -m 10 --noproxy '' http://localhost").strip() == "ok"
    refused = twsrt.result("curl -sS -m 10 --noproxy '' http://127.0.0.1")
    assert "blocked by network allowlist" in refused
    assert plain.result("curl -sS -m 10 --noproxy '' http://127.0.0.1").strip() == "ok"


def test_config_layers_in_the_launch_directory_are_read_only(runs: dict[str, Any]) -> None:
    """.pi/sandbox.json (which would switch the next launch's sandbox off), another agent's
    layer and srt's mandatory .bashrc: refused under twsrt's file, written without pi's
    extension."""
    twsrt, plain = runs["twsrt"], runs["noext"]
    for command, made in ((PLANT, "ws/.pi/sandbox.json"), (LAYER, "ws/.codex/config.toml")):
        assert twsrt.result(command).strip(), "the refusal says why"
        assert not twsrt.exists(made) and plain.exists(made)
    assert RO in twsrt.result("echo x > .bashrc")


def test_the_next_launch_stays_confined(runs: dict[str, Any]) -> None:
    """After the planting attempt the next launch in the workspace still refuses the secret;
    the control, the same document without twsrt's protected names, let the command plant
    .pi/sandbox.json and the next launch there read it."""
    assert not _leaked(runs["twsrt_next"], _secret(runs["twsrt_next"]))
    naive = runs["naive"]
    assert not _leaked(naive, _secret(naive))  # the naive file confines the first launch
    assert naive.exists("ws/.pi/sandbox.json")
    assert _leaked(runs["naive_next"], _secret(runs["naive_next"]))


def test_a_layer_planted_below_the_launch_directory_is_obeyed_there(
    runs: dict[str, Any],
) -> None:
    """TWS654 is true: srt 0.0.26 skips glob write denies, so the command planted
    sub/.pi/sandbox.json, and a pi started in sub/ later read the secret with bash."""
    assert runs["twsrt"].exists("ws/sub/.pi/sandbox.json")
    assert _leaked(runs["twsrt_sub_next"], _secret(runs["twsrt_sub_next"]))


def test_pis_own_agent_directory_stays_read_only_under_a_home_write_root(
    runs: dict[str, Any],
) -> None:
    home = runs["home_root"]
    for call in home.calls[:3]:
        assert RO in home.result(call.command), home.result(call.command)
    installed = home.setup.agent_dir / GLOBAL_FILE
    assert json.loads(installed.read_text())["enabled"] is True
    assert not (home.setup.agent_dir / "extensions" / "evil").exists()
    assert home.exists("home/fine")  # the control: the rest of the home root is writable


def test_the_project_file_alone_confines_a_launch_in_the_project_root(
    runs: dict[str, Any],
) -> None:
    """The project scope's .pi/sandbox.json, with no global file: it carries every member, so
    none of the extension's defaults is left (no /tmp writes); the file itself and twsrt's
    config stay read-only; a write inside the root lands."""
    project = runs["project"]
    assert "Permission denied" in project.result(_secret(project))
    assert project.exists("ws/ok")
    assert RO in project.result("echo x > /tmp/twsrt-pi-generated-")
    assert RO in project.result("echo '{}' > .pi/sandbox.json")
    assert json.loads((project.setup.workspace / ".pi" / "sandbox.json").read_text())["enabled"]
    assert RO in project.result("echo x > twsrt.toml")
    pi_errors = {
        f["rule_id"]
        for f in json.loads(runs["project_check"])["findings"]
        if f["level"] == "error" and f["agent"] == "pi"
    }
    assert pi_errors <= {"TWS654"}, runs["project_check"]


def test_globs_are_written_as_srt_0_0_26_can_take_them(runs: dict[str, Any]) -> None:
    """The policy's lists as written fail in pi's srt 0.0.26: a denyRead ``vault/**`` names no
    file, so the key is read, and the denyWrite glob ``**/*.pem`` leaves a stub ``**`` that
    fails the next command. twsrt's file denies the vault and all its commands run."""
    raw = runs["raw"]
    vault = f"cat {raw.setup.root / 'vault' / 'key'}"
    assert SECRET in raw.result(vault)
    assert raw.exists("ws/**")  # the stub of the first command
    assert "Can't mkdir parents" in raw.result("echo a > ok") and not raw.exists("ws/ok")
    twsrt = runs["twsrt"]
    # a denied directory is an empty tmpfs in the sandbox: the key is not there
    assert SECRET not in twsrt.result(f"cat {twsrt.setup.root / 'vault' / 'key'}")
    plain = runs["noext"]
    assert SECRET in plain.result(f"cat {plain.setup.root / 'vault' / 'key'}")
    assert twsrt.run.results[-1] and "Can't mkdir" not in "".join(map(str, twsrt.run.results))


def test_the_bash_deny_rule_is_lost(runs: dict[str, Any]) -> None:
    """TWS463 is true: the policy denies `touch`, and pi runs it."""
    assert runs["twsrt"].exists("ws/denied-cmd")


def test_the_read_and_write_tools_pass_the_path_denies(runs: dict[str, Any]) -> None:
    """TWS462 is true: the read tool returns the secret bash is refused, the write tool lands
    in the denied tree; with --tools bash only the sandboxed bash tool is there."""
    twsrt = runs["twsrt"]
    secret = twsrt.setup.root / "out" / "secret"
    assert SECRET in twsrt.result(f"read {secret}")
    assert twsrt.exists("ws/prot/w")
    only_bash = runs["tools_bash"]
    told = only_bash.result(f"read {only_bash.setup.root / 'out' / 'secret'}")
    assert SECRET not in told
    assert only_bash.exists("ws/ok")  # its bash tool runs, sandboxed


def test_trusting_every_project_loads_its_extensions_and_check_says_so(
    runs: dict[str, Any],
) -> None:
    """defaultProjectTrust "always" in ~/.pi/agent/settings.json: headless pi loads the
    project's .pi/extensions/ extension (its code ran: the mark), and check reports TWS656;
    the control, the default "ask", skips it (pi row 15)."""
    assert runs["trust_always"].exists("ws/extension-loaded")
    assert not runs["trust_ask"].exists("ws/extension-loaded")
    assert runs["trust_ask"].exists("ws/ok")  # the control ran its call
    rules = {f["rule_id"] for f in json.loads(runs["trust_always_check"])["findings"]}
    assert "TWS656" in rules
    assert "TWS656" not in {f["rule_id"] for f in json.loads(runs["trust_ask_check"])["findings"]}


def test_without_bwrap_pi_runs_bash_unsandboxed_and_check_says_so(runs: dict[str, Any]) -> None:
    nobwrap = runs["nobwrap"]
    assert _leaked(nobwrap, _secret(nobwrap))
    assert nobwrap.exists("out/new")
    report = json.loads(runs["nobwrap_check"])
    assert "TWS652" in {f["rule_id"] for f in report["findings"] if f["level"] == "error"}
    assert "TWS652" not in {f["rule_id"] for f in json.loads(runs["twsrt_check"])["findings"]}
