"""The real Kilo Code CLI 7.7.7 on what twsrt generates for it: the config loads (every
scripted call is reported), its own tools are refused each forbidden action (a denied command,
a denied path read inside and outside the project, a write into a denied tree, a write of
Kilo's own layers and of its project layers, a fetch), and its bubblewrap sandbox, which twsrt
switches on, stops a shell redirect outside the write roots and a request to a host the policy
does not list, while a write root of ``writable_paths`` takes the write; the same calls succeed
in a control run without twsrt's rules. Two more pin what twsrt reports rather than claims: an
allowed ``cat`` reads a denied file (TWS460: the sandbox never restricts reads), and an allowed
``echo`` plants a project ``kilo.jsonc`` in the writable workspace that the next launch obeys
(TWS461).

Two headless runs against the fake model of ``opencode_client`` (Kilo's too), started together,
then the planted file's second launch. The files live under /var/tmp.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat
from support.opencode_eval import file_call, rules_of

from .opencode_client import (
    KILO,
    Call,
    Observed,
    Setup,
    bash,
    read,
    run_agent,
    run_all,
    scratch_dir,
    webfetch,
    write,
)

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("kilo_generated")]

SECRET = "GENERATED-SECRET"
BASH = {"deny": ["touch"], "allow": ["git", "echo", "cat"]}
PLANTED = json.dumps({"permission": {"bash": {"touch *": "allow"}}})


def _srt(setup: Setup) -> dict[str, Any]:
    ws = setup.workspace
    return {
        "filesystem": {
            "denyRead": [str(ws / "private"), "~/secret"],
            "denyWrite": [str(ws / "guarded")],
            "allowWrite": [".", str(setup.root / "writable")],
        },
        # twsrt keeps the sandbox network closed all the same (allowed_hosts cannot run)
        "network": {"allowedDomains": ["example.com"]},
    }


def generate(setup: Setup, base_url: str) -> str:
    setup.write(base_url)
    cfg = setup.root / "cfg"
    cfg.mkdir()
    (cfg / "srt.json").write_text(json.dumps(_srt(setup)))
    (cfg / "bash.json").write_text(json.dumps(BASH))
    (cfg / "config.toml").write_text(
        f'home = "{setup.home}"\n\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        f'[targets]\nkilo_config = "{setup.user_path}"\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(setup.home), "TWSRT_NO_CACHE": "1"}
    config = ["-c", str(cfg / "config.toml")]
    wrote = run_cli(["generate", "kilo", "-w", *config], cwd=cfg, env=env)
    assert wrote.returncode == 0, wrote.stderr
    (setup.root / "generated.json").write_text(setup.user_path.read_text())
    checked = run_cli(["check", *config, "--agent", "kilo", "--format", "json"], cwd=cfg, env=env)
    return checked.stdout


def _prepare(setup: Setup) -> None:
    (setup.workspace / "private").mkdir()
    (setup.workspace / "private" / "key").write_text(SECRET + "\n")
    (setup.workspace / "guarded").mkdir()
    (setup.home / "secret").mkdir()
    (setup.home / "secret" / "key").write_text(SECRET + "\n")
    (setup.root / "outside").mkdir()
    (setup.root / "writable").mkdir()


def _calls(setup: Setup, fake: FakeChat, name: str) -> list[Call]:
    ws, root = setup.workspace, setup.root
    return [
        bash("touch denied-cmd"),
        read(ws / "private" / "key"),
        read(setup.home / "secret" / "key"),
        write(ws / "guarded" / "new"),
        write(ws / "open.txt"),
        write(ws / ".kilo" / "plugins" / "p.js", "// planted\n"),
        write(setup.config_dir / "kilo.jsonc", "{}\n"),
        webfetch(fake.url("web-probe")),
        bash(f"echo x > {root / 'outside' / 'redirect'}"),
        bash(f"echo x > {root / 'writable' / 'w'}"),
        bash(f"git ls-remote {fake.url('net-' + name)}"),
        bash("cat private/key"),
        bash("echo " + shlex.quote(PLANTED) + " > kilo.jsonc"),
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Any]]:
    binary = KILO.binary()
    with scratch_dir("twsrt-kilo-gen-") as root:
        plans: dict[str, Any] = {}
        setup = Setup(root / "twsrt", KILO)
        report = generate(setup, fake.base_url("twsrt"))
        _prepare(setup)
        plans["twsrt"] = (setup, _calls(setup, fake, "twsrt"), {})
        control = Setup(
            root / "control",
            KILO,
            user={"permission": {"external_directory": "allow", "bash": "allow"}},
        )
        control.write(fake.base_url("control"))
        _prepare(control)
        plans["control"] = (control, _calls(control, fake, "control"), {})
        observed: dict[str, Any] = dict(run_all(binary, fake, plans, workers=2))
        calls = [setup.resolve(bash("touch planted-ran"))]
        observed["next"] = Observed(setup, calls, run_agent(binary, fake, "twsrt", setup, calls))
        observed["report"] = report
        observed["hits"] = list(fake.hits)
        yield observed


def test_every_call_is_reported(runs: dict[str, Any]) -> None:
    for name in ("twsrt", "control", "next"):
        run = runs[name].run
        assert all(r.verdict is not None for r in run.results), (name, run.stdout[-2000:])


def test_the_denied_command_is_refused_and_runs_without_twsrt(runs: dict[str, Any]) -> None:
    assert runs["twsrt"].verdict("touch denied-cmd") == "denied"
    assert not runs["twsrt"].exists("ws/denied-cmd")
    assert runs["control"].verdict("touch denied-cmd") == "ran"


def test_denied_paths_are_refused_to_the_read_tool(runs: dict[str, Any]) -> None:
    for key in ("read WS/private/key", "read HOME/secret/key"):
        assert runs["twsrt"].verdict(key) == "denied", key
        assert runs["control"].verdict(key) == "ran", key


def test_writes_into_denied_trees_and_layers_are_refused(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    for relative in ("ws/guarded/new", "ws/.kilo/plugins/p.js"):
        key = "write WS/" + relative.removeprefix("ws/")
        assert twsrt.verdict(key) == "denied", key
        assert not twsrt.exists(relative), relative
    # Kilo itself asks before a write into its own project directory (.kilo)
    assert control.verdict("write WS/guarded/new") == "ran"
    own = f"write {twsrt.setup.config_dir}/kilo.jsonc"
    assert twsrt.verdict(own) == "denied"
    assert "sandbox" in (twsrt.setup.config_dir / "kilo.jsonc").read_text()


def test_a_write_inside_the_project_runs(runs: dict[str, Any]) -> None:
    assert runs["twsrt"].verdict("write WS/open.txt") == "ran"


def test_webfetch_is_not_offered(runs: dict[str, Any]) -> None:
    assert runs["twsrt"].verdict("webfetch") == "unavailable"
    assert runs["control"].verdict("webfetch") != "unavailable"


def test_the_sandbox_stops_a_redirect_outside_and_takes_the_write_root(
    runs: dict[str, Any],
) -> None:
    assert not runs["twsrt"].exists("outside/redirect")
    assert runs["control"].exists("outside/redirect")
    assert runs["twsrt"].exists("writable/w")


def test_the_sandbox_stops_a_request_to_a_host_the_policy_does_not_list(
    runs: dict[str, Any],
) -> None:
    hits = runs["hits"]
    assert not any("net-twsrt" in hit for hit in hits), hits
    assert any("net-control" in hit for hit in hits), hits


def test_an_allowed_cat_reads_a_denied_file(runs: dict[str, Any]) -> None:
    """TWS460: the sandbox never restricts reads, and the read deny stops the read tool only."""
    assert SECRET in runs["twsrt"].result("cat private/key").output


def test_a_planted_kilo_jsonc_lifts_the_deny_at_the_next_launch(runs: dict[str, Any]) -> None:
    """TWS461: the workspace stays writable to every command."""
    assert runs["twsrt"].exists("ws/kilo.jsonc")
    assert runs["next"].verdict("touch planted-ran") == "ran"


def test_check_reports_what_the_runs_show(runs: dict[str, Any]) -> None:
    rules = {item["rule_id"] for item in json.loads(runs["report"])["findings"]}
    assert {"TWS453", "TWS460", "TWS461"} <= rules


def test_the_model_of_the_evaluation_predicts_every_file_tool_call(runs: dict[str, Any]) -> None:
    observed: Observed = runs["twsrt"]
    setup = observed.setup
    document = json.loads((setup.root / "generated.json").read_text())
    rules = rules_of(document["permission"], str(setup.home))
    checked = 0
    for call, result in zip(observed.calls, observed.run.results, strict=True):
        if call.tool in ("read", "write"):
            tool = "read" if call.tool == "read" else "edit"
            expected = file_call(rules, tool, str(call.args["filePath"]), str(setup.workspace))
            assert result.verdict == expected, call.key
            checked += 1
    assert checked == 6
