"""What the real OpenCode 1.18.33 does with ``permission`` rules and its config layers
(groundwork for an OpenCode/Kilo target): each fact pinned by a headless ``opencode run``
against the fake model of ``opencode_client`` and checked on disk (the file a command would
write exists or not), in what the model is told, and in the rule the log says decided, each
refused case beside a control that succeeds. docs/agents/opencode-observed.md lists the facts.

All runs start in one module fixture, three at a time (about 3.5-4 s of CPU each), against one
fake chat server. ``plain`` has no permission keys (the controls); ``allow_first``,
``deny_first``, ``flat``, ``ext_object`` and ``webfetch_object`` try rule shapes and orders;
the layer runs (``project``, ``dot_dir``, ``content``, ``permission_env``, ``new_key``,
``managed``, ...) each start from one user deny ``"cat *"`` after a ``"*"`` allow and add one
layer that allows ``cat``. Install the CLI with .ci/install-opencode.sh.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat

from .opencode_client import (
    DENIED_TEXT,
    OPENCODE,
    Call,
    Observed,
    Setup,
    bash,
    edit,
    read,
    run_all,
    scratch_dir,
    webfetch,
    write,
)
from .private_etc import private_etc

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("opencode_observed")]

SECRET = "OUT-SECRET"
USER_DENY = {"permission": {"bash": {"*": "allow", "cat *": "deny"}}}
ALLOW_CAT = {"permission": {"bash": {"cat *": "allow"}}}
LAYER_CALLS = [bash("cat in > r-cat"), bash("touch t")]
WS_FILES = {"in": "IN\n", "e": "old\n", ".env": "A=1\n"}


def _shape_calls(out: Path, name: str, url: str) -> list[Call]:
    """The calls of the rule-shape runs (``plain`` is their control)."""
    return [
        bash("touch t-plain"),
        bash(f"echo x > {out}/redirect-{name}"),
        read(out / "secret"),
        bash(f"cat {out}/secret > r-out"),
        read("WS/in"),
        edit("WS/e", "old", "new"),
        write("WS/w"),
        webfetch(url),
        read("WS/.env"),
        bash("cat in > r-cat"),
        bash("env cat in > r-env"),
        bash("cat -- in > r-dd"),
        bash("touch t-ask"),
    ]


def _plans(
    root: Path, out: Path, fake: FakeChat, managed: str, managed_env: str
) -> dict[str, tuple[Setup, list[Call], dict[str, Any]]]:
    def setup(name: str, user: dict[str, Any] | None = None, **kw: Any) -> Setup:
        return Setup(root / name, OPENCODE, user=user or {}, **kw)

    shape = {
        "plain": {},
        "allow_first": {"bash": {"*": "allow", "cat *": "deny", "touch t-ask*": "ask"}},
        "deny_first": {
            "bash": {"cat *": "deny", "*": "allow"},
            "read": {"*": "allow", "*in": "deny"},
            "edit": {"*e": "deny"},
            "webfetch": "deny",
        },
        "flat": {"read": "deny", "edit": "deny", "external_directory": "allow"},
        "ext_object": {"external_directory": {"*": "allow", f"{out}/*": "deny"}},
        "webfetch_object": {"webfetch": {"*": "deny"}},
    }
    plans: dict[str, tuple[Setup, list[Call], dict[str, Any]]] = {}
    for name, rules in shape.items():
        user = {"permission": rules} if rules else {}
        calls = _shape_calls(out, name, fake.url(f"/fetch-{name}"))
        plans[name] = (setup(name, user, project=WS_FILES), calls, {})
    allow = json.dumps(ALLOW_CAT)
    layers: dict[str, tuple[dict[str, str], dict[str, Any]]] = {
        "user_only": ({}, {}),
        "project": ({"opencode.json": allow}, {}),
        "dot_dir": ({".opencode/opencode.json": allow}, {}),
        "content": ({}, {"extra_env": {"OPENCODE_CONFIG_CONTENT": allow}}),
        "permission_env": (
            {},
            {"extra_env": {"OPENCODE_PERMISSION": json.dumps(ALLOW_CAT["permission"])}},
        ),
        "new_key": (
            {"opencode.json": json.dumps({"permission": {"bash": {"cat i*": "allow"}}})},
            {},
        ),
        "dotenv": ({".env": 'OPENCODE_PERMISSION=\'{"bash":"allow"}\'\n'}, {}),
        "no_project": (
            {"opencode.json": allow},
            {"extra_env": {"OPENCODE_DISABLE_PROJECT_CONFIG": "1"}},
        ),
        "managed": (
            {"opencode.json": allow},
            {"binary": managed, "extra_env": {"OPENCODE_CONFIG_CONTENT": allow}},
        ),
        "managed_env": (
            {},
            {
                "binary": managed_env,
                "extra_env": {"OPENCODE_PERMISSION": json.dumps(ALLOW_CAT["permission"])},
            },
        ),
    }
    for name, (project, options) in layers.items():
        plans[name] = (
            setup(name, USER_DENY, project={"in": "IN\n", **project}),
            LAYER_CALLS,
            options,
        )
    plugin = f"import fs from 'fs';\nfs.writeFileSync({str(out / 'plugin-ran')!r}, 'x');\n"
    plugin += "export const Mark = async () => ({});\n"
    project = {"in": "IN\n", ".opencode/plugins/mark.js": plugin}
    plans["plugin"] = (setup("plugin", USER_DENY, project=project), LAYER_CALLS, {})
    stop = {
        "permission": {"bash": {"*": "allow", "cat *": "deny", "mkdir *": "ask"}},
        "experimental": {"continue_loop_on_deny": False},
    }
    stop_calls = [*LAYER_CALLS, bash("mkdir m"), bash("touch u")]
    plans["stop"] = (setup("stop", stop, project={"in": "IN\n"}), stop_calls, {})
    # a non-git workspace: project files are looked for in every directory up to /
    plans["walk_up"] = (
        setup("walk_up", USER_DENY, project={"in": "IN\n"}, git=False),
        LAYER_CALLS,
        {},
    )
    plans["walk_up_git"] = (
        setup("walk_up_git", USER_DENY, project={"in": "IN\n"}),
        LAYER_CALLS,
        {},
    )
    for name in ("walk_up", "walk_up_git"):
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "opencode.json").write_text(allow)
    jsonc = '{\n  // a comment\n  "permission": {"bash": {"*": "allow", "cat *": "deny",},},\n}'
    plans["jsonc"] = (setup("jsonc", user_text=jsonc, project={"in": "IN\n"}), LAYER_CALLS, {})
    asks = {"permission": {"bash": {"*": "allow", "cat *": "deny", "touch *": "ask"}}}
    for name, flag in (
        ("ask", None),
        ("auto", "--auto"),
        ("skip", "--dangerously-skip-permissions"),
    ):
        flags = [flag] if flag else []
        plans[name] = (setup(name, asks, project={"in": "IN\n"}), LAYER_CALLS, {"flags": flags})
    return plans


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    with scratch_dir("twsrt-opencode-out-", {"secret": SECRET + "\n"}) as path:
        yield path


@pytest.fixture(scope="module")
def runs(outside: Path, fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = OPENCODE.binary()
    managed_rules = json.dumps({"permission": {"bash": {"cat *": "deny"}}})
    with scratch_dir("twsrt-opencode-") as root, ExitStack() as stack:
        etc = root / "etc-opencode"
        etc.mkdir()
        (etc / "opencode.json").write_text(managed_rules)
        managed = stack.enter_context(private_etc(binary, {"opencode": etc}))
        yield run_all(binary, fake, _plans(root, outside, fake, managed, managed))


def test_the_pinned_version_is_installed() -> None:
    got = subprocess.run(
        [OPENCODE.binary(), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert got.stdout.strip() == OPENCODE.version


def test_every_run_exits_0_and_reports_every_call(runs: dict[str, Observed]) -> None:
    """A refused call is not a failed run (``experimental.continue_loop_on_deny`` lets the
    script go on); only the run with an invalid config stops at start."""
    failed = {name for name, o in runs.items() if o.run.returncode != 0}
    assert failed == {"webfetch_object"}
    unreported = {n for n, o in runs.items() if any(r.verdict is None for r in o.run.results)}
    assert unreported == {"webfetch_object", "stop"}


def test_no_network_but_the_fake_model(runs: dict[str, Observed], fake: FakeChat) -> None:
    """No npm cache appears (the plugin install is skipped) and the fake server saw only the
    webfetch probes of the runs that allowed them."""
    assert not any((o.setup.home / ".npm").exists() for o in runs.values())
    assert sorted(set(fake.hits)) == [
        "/fetch-allow_first",
        "/fetch-ext_object",
        "/fetch-flat",
        "/fetch-plain",
    ]


# defaults


def test_defaults_run_bash_edits_and_reads_inside_the_project(runs: dict[str, Observed]) -> None:
    plain = runs["plain"]
    for key in ("touch t-plain", "read WS/in", "edit WS/e", "write WS/w", "webfetch", "cat in"):
        assert plain.verdict(key) == "ran", key
    assert plain.exists("ws/t-plain") and plain.exists("ws/w") and plain.exists("ws/r-cat")
    assert "1: IN" in plain.told("read WS/in")  # the model got the file's text
    assert (plain.setup.workspace / "e").read_text() == "new\n"


def test_defaults_ask_outside_the_project_and_a_headless_run_rejects(
    runs: dict[str, Observed], outside: Path
) -> None:
    """The default ``external_directory`` is ``ask``, for the read tool and for a bash path
    argument alike, and ``opencode run`` answers every ask "reject"; ``flat`` (an
    ``external_directory: "allow"``) is the control."""
    plain, flat = runs["plain"], runs["flat"]
    assert plain.verdict(f"read {outside}/secret") == "asked"
    assert plain.verdict(f"cat {outside}") == "asked"
    assert not plain.exists("ws/r-out")
    assert flat.verdict(f"cat {outside}") == "ran"
    assert (flat.setup.workspace / "r-out").read_text().strip() == SECRET
    assert "auto-rejecting" in plain.run.stdout + plain.run.stderr


def test_a_redirect_outside_the_project_is_not_checked(
    runs: dict[str, Observed], outside: Path
) -> None:
    """Only path arguments count as outside: ``echo x > <out>/file`` runs by default."""
    assert runs["plain"].verdict("echo x > ") == "ran"
    assert (outside / "redirect-plain").exists()


def test_defaults_ask_for_dot_env_files(runs: dict[str, Observed]) -> None:
    """The default ``read`` rules ask for ``*.env``; a user ``read`` object whose ``"*"``
    allow comes later (``deny_first``) drops that ask: the last matching rule wins."""
    assert runs["plain"].verdict("read WS/.env") == "asked"
    assert runs["deny_first"].verdict("read WS/.env") == "ran"


# permission.bash: the last matching rule wins


def test_a_deny_after_the_catch_all_holds(runs: dict[str, Observed]) -> None:
    first = runs["allow_first"]
    assert first.verdict("cat in") == "denied"
    assert DENIED_TEXT in first.told("cat in")
    assert not first.exists("ws/r-cat")
    assert runs["plain"].exists("ws/r-cat")  # control
    assert "touch t-plain" in {c.key for c in first.calls} and first.exists("ws/t-plain")


def test_a_catch_all_after_the_deny_beats_it(runs: dict[str, Observed]) -> None:
    deny_first = runs["deny_first"]
    assert deny_first.verdict("cat in") == "ran"
    assert deny_first.exists("ws/r-cat")
    assert any(
        'pattern="cat in' in ln and "action.pattern=*" in ln
        for ln in deny_first.setup.evaluations()
    )


def test_an_ask_rule_is_rejected_headless(runs: dict[str, Observed]) -> None:
    first = runs["allow_first"]
    assert first.verdict("touch t-ask") == "asked"
    assert not first.exists("ws/t-ask")
    assert runs["plain"].exists("ws/t-ask")  # control


def test_env_bypasses_a_cat_deny_and_double_dash_does_not(runs: dict[str, Observed]) -> None:
    """The bash rules match the command text: ``env cat`` is not ``cat *``."""
    first = runs["allow_first"]
    assert first.verdict("env cat") == "ran"
    assert (first.setup.workspace / "r-env").read_text() == "IN\n"
    assert first.verdict("cat -- in") == "denied"
    assert not first.exists("ws/r-dd")
    assert runs["plain"].exists("ws/r-dd")  # control


# read / edit / webfetch / external_directory shapes


def test_read_and_edit_patterns_are_paths_relative_to_the_project(
    runs: dict[str, Observed],
) -> None:
    """``read: {"*in": "deny"}`` and ``edit: {"*e": "deny"}``: the patterns are matched
    against ``in`` and ``e``; the write tool is governed by ``edit`` (``w`` does not match)."""
    deny_first = runs["deny_first"]
    assert deny_first.verdict("read WS/in") == "denied"
    assert deny_first.verdict("edit WS/e") == "denied"
    assert (deny_first.setup.workspace / "e").read_text() == "old\n"
    assert deny_first.verdict("write WS/w") == "ran"
    lines = deny_first.setup.evaluations()
    assert any("permission=read pattern=in " in ln for ln in lines)
    assert any("permission=edit pattern=e " in ln for ln in lines)


def test_a_flat_deny_removes_the_tool(runs: dict[str, Observed]) -> None:
    """``webfetch: "deny"``, ``read: "deny"``, ``edit: "deny"``: the tool is not offered."""
    assert runs["deny_first"].verdict("webfetch") == "unavailable"
    flat = runs["flat"]
    for key in ("read WS/in", "edit WS/e", "write WS/w"):
        assert flat.verdict(key) == "unavailable", key
    assert not flat.exists("ws/w")
    assert flat.verdict("cat in") == "ran"  # bash reads are not read rules


def test_webfetch_takes_no_pattern_object(runs: dict[str, Observed]) -> None:
    run = runs["webfetch_object"].run
    assert run.returncode == 1
    assert "Configuration is invalid" in run.stdout + run.stderr
    assert "permission.webfetch" in run.stdout + run.stderr


def test_external_directory_patterns_are_absolute_directories(
    runs: dict[str, Observed], outside: Path
) -> None:
    """``{"*": "allow", "<out>/*": "deny"}``: reads in <out> are denied, other outside
    reads run (the rule is matched against ``<dir>/*``)."""
    ext = runs["ext_object"]
    assert ext.verdict(f"read {outside}/secret") == "denied"
    assert ext.verdict(f"cat {outside}") == "denied"
    assert not ext.exists("ws/r-out")
    assert any(f"pattern={outside}/* " in ln for ln in ext.setup.evaluations())


# config layers: who overrides a user deny


@pytest.mark.parametrize(
    "name", ["project", "dot_dir", "content", "permission_env", "new_key", "walk_up"]
)
def test_a_later_layer_lifts_the_user_deny(runs: dict[str, Observed], name: str) -> None:
    assert runs["user_only"].verdict("cat in") == "denied"  # control: the user deny alone
    assert not runs["user_only"].exists("ws/r-cat")
    assert runs[name].verdict("cat in") == "ran"
    assert runs[name].exists("ws/r-cat")


def test_a_git_root_stops_the_walk_up(runs: dict[str, Observed]) -> None:
    assert runs["walk_up_git"].verdict("cat in") == "denied"
    assert runs["walk_up"].verdict("cat in") == "ran"  # control


def test_disable_project_config_drops_the_project_file(runs: dict[str, Observed]) -> None:
    assert runs["no_project"].verdict("cat in") == "denied"
    assert runs["project"].verdict("cat in") == "ran"  # control


def test_managed_beats_project_and_config_content(runs: dict[str, Observed]) -> None:
    managed = runs["managed"]
    assert managed.verdict("cat in") == "denied"
    assert not managed.exists("ws/r-cat")
    assert runs["project"].verdict("cat in") == "ran"  # control
    assert runs["content"].verdict("cat in") == "ran"  # control


def test_opencode_permission_beats_managed(runs: dict[str, Observed]) -> None:
    assert runs["managed_env"].verdict("cat in") == "ran"
    assert runs["managed_env"].exists("ws/r-cat")
    assert runs["managed"].verdict("cat in") == "denied"  # control


def test_a_dot_env_in_the_workspace_is_not_loaded(runs: dict[str, Observed]) -> None:
    assert runs["dotenv"].verdict("cat in") == "denied"
    assert runs["permission_env"].verdict("cat in") == "ran"  # control: the variable works


def test_the_user_file_may_be_jsonc(runs: dict[str, Observed]) -> None:
    jsonc = runs["jsonc"]
    assert jsonc.verdict("cat in") == "denied"
    assert jsonc.verdict("touch t") == "ran"
    assert "// a comment" in jsonc.setup.user_path.read_text()


def test_opencode_writes_a_schema_into_a_config_file_without_one(runs: dict[str, Observed]) -> None:
    for name in ("plain", "jsonc", "project"):
        assert (
            '"$schema": "https://opencode.ai/config.json"' in runs[name].setup.user_path.read_text()
        )
    project = (runs["project"].setup.workspace / "opencode.json").read_text()
    assert project.startswith('{\n  "$schema"')


def test_by_default_a_rejected_ask_ends_the_run(runs: dict[str, Observed]) -> None:
    """Without ``experimental.continue_loop_on_deny`` a denied call lets the run go on, but
    a rejected ask ends it: ``touch u`` after the asked ``mkdir`` is never made. With the key
    (every other run), calls after a rejected ask still run (``plain``)."""
    stop = runs["stop"]
    assert stop.verdict("cat in") == "denied"
    assert stop.verdict("touch t") == "ran" and stop.exists("ws/t")
    assert stop.verdict("mkdir m") == "asked"
    assert stop.verdict("touch u") is None and not stop.exists("ws/u")
    assert runs["plain"].verdict("read WS/.env") == "asked"  # control: the run went on
    assert runs["plain"].verdict("cat in") == "ran"


# flags


@pytest.mark.parametrize("name", ["auto", "skip"])
def test_auto_approves_asks_and_keeps_denies(runs: dict[str, Observed], name: str) -> None:
    """``--auto`` and its hidden alias ``--dangerously-skip-permissions``."""
    assert runs["ask"].verdict("touch t") == "asked"  # control: without the flag
    assert not runs["ask"].exists("ws/t")
    assert runs[name].verdict("touch t") == "ran"
    assert runs[name].exists("ws/t")
    assert runs[name].verdict("cat in") == "denied"
