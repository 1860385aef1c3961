"""The real OpenCode 1.18.33 on what twsrt generates for it: the config loads (every scripted
call is reported, the run exits 0), and its own tools are refused each forbidden action (a
denied command, a denied path read inside and outside the project, a write into a denied tree,
a write outside the project, a write of OpenCode's own layers and of its project layers, a
fetch) while the same calls run in a control run without twsrt's rules. Three more runs pin
what twsrt reports rather than claims to enforce: ``env touch`` runs past the ``touch`` deny
(TWS453), an allowed ``cat`` reads a denied file and an allowed ``echo`` redirects into a file
outside the project and plants a project ``opencode.json`` that the next launch obeys
(TWS452, TWS460), and ``--auto`` approves an ask (TWS456).

Three headless runs against the fake model of ``opencode_client``, started together, then the
planted file's second launch. The files live under /var/tmp.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat
from support.opencode_eval import denied_under_auto, file_call, rules_of

from .opencode_client import (
    OPENCODE,
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

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("opencode_generated")]

SECRET = "GENERATED-SECRET"
BASH = {"deny": ["touch"], "ask": ["mkdir"], "allow": ["git", "echo", "cat"]}
PLANTED = json.dumps({"permission": {"bash": {"touch *": "allow"}}})


def _srt(ws: Path) -> dict[str, Any]:
    return {
        "filesystem": {
            "denyRead": [str(ws / "private"), "~/secret"],
            "denyWrite": [str(ws / "guarded")],
            "allowWrite": ["."],
        },
        "network": {"allowedDomains": []},
    }


def generate(setup: Setup, base_url: str) -> str:
    """twsrt's OpenCode config for ``setup``, merged into the user file that names the fake
    model; check's JSON report."""
    setup.write(base_url)  # the workspace, HOME and the user file with the provider keys
    cfg = setup.root / "cfg"
    cfg.mkdir()
    (cfg / "srt.json").write_text(json.dumps(_srt(setup.workspace)))
    (cfg / "bash.json").write_text(json.dumps(BASH))
    (cfg / "config.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        f'[targets]\nopencode_config = "{setup.user_path}"\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(setup.home), "TWSRT_NO_CACHE": "1"}
    config = ["-c", str(cfg / "config.toml")]
    wrote = run_cli(["generate", "opencode", "-w", *config], cwd=cfg, env=env)
    assert wrote.returncode == 0, wrote.stderr
    # the generated file as twsrt wrote it (the run's own writes may change the user file)
    (setup.root / "generated.json").write_text(setup.user_path.read_text())
    checked = run_cli(
        ["check", *config, "--agent", "opencode", "--format", "json"], cwd=cfg, env=env
    )
    return checked.stdout


def _prepare(setup: Setup) -> None:
    (setup.workspace / "private").mkdir()
    (setup.workspace / "private" / "key").write_text(SECRET + "\n")
    (setup.workspace / "guarded").mkdir()
    (setup.home / "secret").mkdir()
    (setup.home / "secret" / "key").write_text(SECRET + "\n")
    (setup.root / "outside").mkdir()


def _calls(setup: Setup, fake: FakeChat) -> list[Call]:
    ws, root = setup.workspace, setup.root
    plant = "echo " + shlex.quote(PLANTED) + " > opencode.json"
    return [
        bash("touch denied-cmd"),
        read(ws / "private" / "key"),
        read(setup.home / "secret" / "key"),
        write(ws / "guarded" / "new"),
        write(ws / "open.txt"),
        write(ws / ".opencode" / "plugins" / "p.js", "// planted\n"),
        write(ws / "sub" / "opencode.jsonc", "{}\n"),
        write(setup.config_dir / "opencode.json", "{}\n"),
        write(root / "outside" / "o"),
        webfetch(fake.url("web-probe")),
        bash("mkdir asked-dir"),
        bash("git --version"),
        bash("env touch wrapped"),
        bash("cat private/key"),
        bash(f"echo x > {root / 'outside' / 'redirect'}"),
        bash(plant),
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = OPENCODE.binary()
    with scratch_dir("twsrt-opencode-gen-") as root:
        plans: dict[str, Any] = {}
        reports: dict[str, str] = {}
        for name, flags in (("twsrt", ()), ("auto", ("--auto",))):
            setup = Setup(root / name, OPENCODE)
            reports[name] = generate(setup, fake.base_url(name))
            _prepare(setup)
            plans[name] = (setup, _calls(setup, fake), {"flags": flags})
        # the control: no rules of twsrt's, paths outside the project allowed as a user may
        control = Setup(
            root / "control", OPENCODE, user={"permission": {"external_directory": "allow"}}
        )
        control.write(fake.base_url("control"))
        _prepare(control)
        plans["control"] = (control, _calls(control, fake), {})
        observed = run_all(binary, fake, plans)
        # the next launch in the workspace where the first one planted opencode.json
        first = observed["twsrt"].setup
        calls = [first.resolve(bash("touch planted-ran"))]
        again = run_agent(binary, fake, "twsrt", first, calls)
        observed["next"] = Observed(first, calls, again)
        observed["report:twsrt"] = reports["twsrt"]  # type: ignore[assignment]
        yield observed


def test_every_run_exits_0_and_reports_every_call(runs: dict[str, Any]) -> None:
    for name in ("twsrt", "auto", "control", "next"):
        run = runs[name].run
        assert run.returncode == 0, (name, run.stderr[-2000:])
        assert all(r.verdict is not None for r in run.results), (name, run.stdout[-2000:])


def test_the_denied_command_is_refused_and_runs_without_twsrt(runs: dict[str, Observed]) -> None:
    assert runs["twsrt"].verdict("touch denied-cmd") == "denied"
    assert not runs["twsrt"].exists("ws/denied-cmd")
    assert runs["control"].verdict("touch denied-cmd") == "ran"
    assert runs["control"].exists("ws/denied-cmd")


def test_denied_paths_are_refused_to_the_read_tool(runs: dict[str, Observed]) -> None:
    for key in ("read WS/private/key", "read HOME/secret/key"):
        assert runs["twsrt"].verdict(key) == "denied", key
        assert SECRET not in runs["twsrt"].told(
            key.replace("HOME/", f"{runs['twsrt'].setup.home}/")
        )
        assert runs["control"].verdict(key) == "ran", key


def test_writes_into_denied_trees_and_layers_are_refused(runs: dict[str, Observed]) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    home = twsrt.setup.home
    for relative, key in (
        ("ws/guarded/new", "write WS/guarded/new"),
        ("ws/.opencode/plugins/p.js", "write WS/.opencode/plugins/p.js"),
        ("ws/sub/opencode.jsonc", "write WS/sub/opencode.jsonc"),
    ):
        assert twsrt.verdict(key) == "denied", key
        assert not twsrt.exists(relative), relative
        control_key = key.replace(str(twsrt.setup.root), str(control.setup.root))
        assert control.verdict(control_key) == "ran", key
        assert control.exists(relative), relative
    own = f"write {home}/.config/opencode/opencode.json"
    assert twsrt.verdict(own) == "denied"
    assert "permission" in (home / ".config" / "opencode" / "opencode.json").read_text()
    assert control.verdict(own.replace(str(twsrt.setup.root), str(control.setup.root))) == "ran"


def test_a_write_outside_the_project_is_refused_also_under_auto(runs: dict[str, Observed]) -> None:
    """external_directory asks first (rejected headless); under --auto the edit rule "../*"
    denies it."""
    for name, verdicts in (("twsrt", ("asked", "denied")), ("auto", ("denied",))):
        run = runs[name]
        assert run.verdict(f"write {run.setup.root}/outside/o") in verdicts, name
        assert not run.exists("outside/o"), name
    control = runs["control"]
    assert control.verdict(f"write {control.setup.root}/outside/o") == "ran"


def test_a_write_inside_the_project_runs(runs: dict[str, Observed]) -> None:
    assert runs["twsrt"].verdict("write WS/open.txt") == "ran"
    assert runs["twsrt"].exists("ws/open.txt")


def test_webfetch_is_not_offered(runs: dict[str, Observed]) -> None:
    assert runs["twsrt"].verdict("webfetch") == "unavailable"
    assert runs["control"].verdict("webfetch") != "unavailable"


def test_an_ask_is_rejected_headless_and_approved_under_auto(runs: dict[str, Observed]) -> None:
    """TWS456: --auto approves what the policy asks about; the deny still holds."""
    assert runs["twsrt"].verdict("mkdir asked-dir") == "asked"
    assert not runs["twsrt"].exists("ws/asked-dir")
    assert runs["auto"].verdict("mkdir asked-dir") == "ran"
    assert runs["auto"].verdict("touch denied-cmd") == "denied"


def test_an_allowed_command_runs(runs: dict[str, Observed]) -> None:
    assert runs["twsrt"].verdict("git --version") == "ran"


def test_env_passes_the_bash_deny(runs: dict[str, Observed]) -> None:
    """TWS453: the wrapper is not unwrapped. Headless, ``env touch`` falls to the catch-all
    ask and is rejected; under --auto, which approves that ask, it runs while ``touch`` alone
    is still denied."""
    assert runs["twsrt"].verdict("env touch wrapped") == "asked"
    assert runs["auto"].verdict("touch denied-cmd") == "denied"
    assert runs["auto"].verdict("env touch wrapped") == "ran"
    assert runs["auto"].exists("ws/wrapped")


def test_an_allowed_cat_reads_a_denied_file(runs: dict[str, Observed]) -> None:
    """TWS460: the read deny stops the read tool only."""
    assert runs["twsrt"].verdict("cat private/key") == "ran"
    assert SECRET in runs["twsrt"].result("cat private/key").output


def test_a_redirect_writes_outside_and_plants_a_layer_the_next_launch_obeys(
    runs: dict[str, Observed],
) -> None:
    """TWS452: no kernel layer; the planted opencode.json lifts the touch deny next time."""
    assert runs["twsrt"].exists("outside/redirect")
    assert runs["twsrt"].exists("ws/opencode.json")
    assert runs["next"].verdict("touch planted-ran") == "ran"
    assert runs["next"].exists("ws/planted-ran")


def test_check_reports_what_the_runs_show(runs: dict[str, Any]) -> None:
    report = json.loads(runs["report:twsrt"])
    rules = {item["rule_id"] for item in report["findings"]}
    assert {"TWS452", "TWS453", "TWS460"} <= rules


def test_the_model_of_the_evaluation_predicts_every_file_tool_call(runs: dict[str, Any]) -> None:
    """support.opencode_eval (the never-widen property's model) against the real CLI: for each
    read and write call of the twsrt and --auto runs, on the generated file, the model's
    verdict is the one the run reported."""
    checked = 0
    for name in ("twsrt", "auto"):
        observed: Observed = runs[name]
        setup = observed.setup
        document = json.loads((setup.root / "generated.json").read_text())
        rules = rules_of(document["permission"], str(setup.home))
        for call, result in zip(observed.calls, observed.run.results, strict=True):
            if call.tool not in ("read", "write"):
                continue
            tool = "read" if call.tool == "read" else "edit"
            path, ws = str(call.args["filePath"]), str(setup.workspace)
            if name == "twsrt":
                expected = file_call(rules, tool, path, ws)
            else:
                expected = "denied" if denied_under_auto(rules, tool, path, ws) else "ran"
            assert result.verdict == expected, (name, call.key)
            checked += 1
    assert checked >= 16
