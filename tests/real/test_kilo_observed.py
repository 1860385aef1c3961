"""What the real Kilo Code CLI 7.7.7 (an OpenCode fork) does with ``permission`` rules, its
config layers and its bubblewrap ``sandbox`` (groundwork for an OpenCode/Kilo target): each fact
pinned by a headless ``kilo run`` against the fake model of ``opencode_client`` and checked on
disk, in what the model is told and in the rule the log says decided, each refused case beside
a control that succeeds. docs/agents/opencode-observed.md lists the facts.

A Kilo run costs about 10 s of CPU, so the module keeps to nineteen runs, three at a time.
``plain`` has no permission keys; ``rules`` (a ``"*"`` allow, then a ``"cat *"`` deny and a
``"touch t-ask*"`` ask) is also the control of the layer runs, which each add one layer that
allows ``cat``; the ``sb_*`` runs allow every command and outside path by rule, so that only
the sandbox can stop a write. Every run except ``migrate`` starts with Kilo's bash-permission
migration marked done (see ``opencode_client.Setup.migrated``). Each sandbox run writes into
its own outside directory. Install the CLI with .ci/install-kilo.sh.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat
from support.tools import require_tool

from .opencode_client import (
    KILO,
    Call,
    Observed,
    Setup,
    bash,
    edit,
    read,
    run_all,
    scratch_dir,
    write,
)
from .private_etc import private_etc

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("kilo_observed")]

SECRET = "OUT-SECRET"
USER_DENY = {"bash": {"*": "allow", "cat *": "deny", "touch t-ask*": "ask"}}
ALLOW_CAT = {"permission": {"bash": {"cat *": "allow"}}}
OPEN = {"bash": {"*": "allow"}, "external_directory": "allow"}
SANDBOX = {"enabled": True, "network": "deny"}
SB_RUNS = (
    "sb_off",
    "sb_on",
    "sb_path",
    "sb_nobwrap",
    "sb_experimental",
    "sb_project_off",
    "sb_plugin",
    "sb_missing",
)
# a project plugin: Kilo imports it at start, in its own process
PLUGIN = (
    "import fs from 'fs';\nfs.writeFileSync({!r}, 'x');\nexport const Mark = async () => ({{}});\n"
)


def _rule_calls(out: Path, url: str) -> list[Call]:
    return [
        bash("touch t-plain"),
        bash(f"echo x > {out}/redirect"),
        bash(f"cat {out}/secret > r-out"),
        read("WS/in"),
        edit("WS/e", "old", "new"),
        write("WS/w"),
        read("WS/.env"),
        bash("cat in > r-cat"),
        bash("env cat in > r-env"),
        bash("touch t-ask"),
        bash("ln -s in l-ask"),
        bash(f"curl -s {url} > r-curl"),
    ]


def _sandbox_calls(out: Path, writable: Path, url: str) -> list[Call]:
    """Writes outside the workspace in four ways, one into ``writable``, a read of a secret,
    a loopback request, a workspace write and the write tool outside."""
    return [
        bash(f"echo x > {out}/created"),
        bash(f"echo y >> {out}/append"),
        bash(f"mv {out}/move-src {out}/moved"),
        bash(f"ln -s /etc/hostname {out}/link"),
        bash(f"echo x > {writable}/w"),
        bash(f"cat {out}/secret > r-secret"),
        bash(f"curl -s -m 5 {url} > r-curl"),
        bash("echo x > r-ws"),
        write(out / "tool"),
    ]


def _path_without_bwrap(root: Path) -> str:
    """A PATH directory holding a link to every /usr/bin program but bwrap."""
    farm = root / "no-bwrap-bin"
    farm.mkdir()
    for name in os.listdir("/usr/bin"):
        if name != "bwrap":
            (farm / name).symlink_to(f"/usr/bin/{name}")
    return str(farm)


def _kilo_without_bwrap(root: Path, binary: str) -> str:
    """A launcher of Kilo with no bwrap anywhere it looks: its executable linked into a
    directory without the bundled bwrap, run in a private mount namespace whose /usr/bin holds
    every program but bwrap."""
    exe = next(w for w in Path(binary).read_text().split() if w.endswith("/.kilo"))
    alone = root / "kilo-alone"
    alone.mkdir()
    try:
        os.link(exe, alone / "kilo")
    except OSError:  # another file system
        shutil.copy2(exe, alone / "kilo")
    argv = [require_tool("bwrap", shutil.which("bwrap")), "--dev-bind", "/", "/"]
    argv += ["--tmpfs", "/usr/bin"]
    for name in sorted(os.listdir("/usr/bin")):
        path = f"/usr/bin/{name}"
        if name == "bwrap":
            continue
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        else:
            argv += ["--ro-bind", path, path]
    grammars = Path(exe).parent / "tree-sitter"
    launcher = root / "kilo-no-bwrap"
    launcher.write_text(
        f"#!/bin/sh\nexport KILO_TREE_SITTER_WASM_DIR={shlex.quote(str(grammars))}\n"
        f'exec {shlex.join([*argv, str(alone / "kilo")])} "$@"\n'
    )
    launcher.chmod(0o755)
    return str(launcher)


def _plans(
    root: Path, fake: FakeChat, managed: str
) -> dict[str, tuple[Setup, list[Call], dict[str, Any]]]:
    plans: dict[str, tuple[Setup, list[Call], dict[str, Any]]] = {}
    outside = root / "out"
    outside.mkdir()
    (outside / "secret").write_text(SECRET + "\n")
    ws_files = {"in": "IN\n", "e": "old\n", ".env": "A=1\n"}
    dotenv = {".env": "KILO_PERMISSION='" + json.dumps(ALLOW_CAT["permission"]) + "'\n"}
    for name, rules, extra in (
        ("plain", {}, {}),
        ("rules", USER_DENY, dotenv),
        ("deny_first", {"bash": {"cat *": "deny", "*": "allow"}}, {}),
    ):
        user = {"permission": rules} if rules else {}
        setup = Setup(root / name, KILO, user=user, project={**ws_files, **extra})
        plans[name] = (setup, _rule_calls(outside, fake.url(f"/curl-{name}")), {})
    migrate = '{\n  // kept\n  "permission": {"edit": {"*e": "deny"}},\n}'
    setup = Setup(root / "migrate", KILO, user_text=migrate, project=ws_files, migrated=False)
    plans["migrate"] = (setup, [edit("WS/e", "old", "new"), bash("ln -s in l")], {})
    allow = json.dumps(ALLOW_CAT)
    layer_calls = [bash("cat in > r-cat"), bash("touch t")]
    permission_env = {"KILO_PERMISSION": json.dumps(ALLOW_CAT["permission"])}
    for name, project, options in (
        ("project", {"kilo.jsonc": allow}, {}),
        ("project_opencode", {"opencode.json": allow}, {}),
        ("dot_dir", {".kilo/kilo.jsonc": allow}, {}),
        ("content", {}, {"extra_env": {"KILO_CONFIG_CONTENT": allow}}),
        ("permission_env", {}, {"extra_env": permission_env}),
        (
            "managed",
            {"kilo.jsonc": allow},
            {"binary": managed, "extra_env": {"KILO_CONFIG_CONTENT": allow}},
        ),
        ("managed_env", {}, {"binary": managed, "extra_env": permission_env}),
    ):
        setup = Setup(
            root / name, KILO, user={"permission": USER_DENY}, project={"in": "IN\n", **project}
        )
        plans[name] = (setup, layer_calls, options)
    for name in SB_RUNS:
        out, writable = root / f"out-{name}", root / f"writable-{name}"
        out.mkdir()
        writable.mkdir()
        (out / "secret").write_text(SECRET + "\n")
        (out / "append").write_text("A\n")
        (out / "move-src").write_text("M\n")
        user: dict[str, Any] = {"permission": OPEN}
        if name != "sb_off":
            user["sandbox"] = {**SANDBOX, "writable_paths": [str(writable)]}
        if name == "sb_experimental":
            user = {"permission": OPEN, "experimental": {"sandbox": True}}
        project: dict[str, str] = {}
        if name == "sb_plugin":
            project = {".kilo/plugins/mark.js": PLUGIN.format(str(out / "plugin-ran"))}
        if name == "sb_project_off":
            off = {"sandbox": {"enabled": False, "network": "allow", "writable_paths": [str(out)]}}
            project = {"kilo.jsonc": json.dumps(off)}
        options: dict[str, Any] = {}
        if name == "sb_path":
            options = {"path": _path_without_bwrap(root)}
        if name == "sb_missing":
            options = {"binary": _kilo_without_bwrap(root, KILO.binary())}
        if name == "sb_nobwrap":
            options = {"extra_env": {"KILO_BWRAP_PATH": str(root / "no-such-bwrap")}}
        setup = Setup(root / name, KILO, user=user, project=project)
        plans[name] = (setup, _sandbox_calls(out, writable, fake.url(f"/sb-{name}")), options)
    return plans


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = KILO.binary()
    with scratch_dir("twsrt-kilo-") as root, ExitStack() as stack:
        etc = root / "etc-kilo"
        etc.mkdir()
        (etc / "kilo.jsonc").write_text(json.dumps({"permission": {"bash": {"cat *": "deny"}}}))
        managed = stack.enter_context(private_etc(binary, {"kilo": etc}))
        yield run_all(binary, fake, _plans(root, fake, managed))


def _out(observed: Observed, name: str) -> Path:
    return observed.setup.root.parent / f"out-{name}"


def test_the_pinned_version_is_installed() -> None:
    got = subprocess.run(
        [KILO.binary(), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert got.stdout.strip() == KILO.version


def test_a_rejected_ask_makes_the_run_exit_1(runs: dict[str, Observed]) -> None:
    """Unlike OpenCode, ``kilo run`` ends with status 1 once it auto-rejected an ask; every
    call is still reported (``continue_loop_on_deny``)."""
    assert runs["plain"].run.returncode == 1
    assert "run ended with an auto-rejected permission" in runs["plain"].run.stdout
    assert runs["project"].run.returncode == 0  # control: nothing asked
    assert all(r.verdict is not None for o in runs.values() for r in o.run.results)


def test_no_network_but_the_fake_model(runs: dict[str, Observed], fake: FakeChat) -> None:
    assert not any((o.setup.home / ".npm").exists() for o in runs.values())
    assert "/sb-sb_on" not in fake.hits and "/sb-sb_off" in fake.hits


# defaults


def test_default_bash_is_an_allow_list_and_asks_for_the_rest(runs: dict[str, Observed]) -> None:
    """With the migration marked done, ``touch``/``cat``/``echo`` run and ``ln``/``curl`` ask
    (rejected headless); ``rules`` (a ``"*"`` allow) is the control."""
    plain, rules = runs["plain"], runs["rules"]
    assert plain.verdict("touch t-plain") == "ran" and plain.exists("ws/t-plain")
    assert plain.verdict("cat in") == "ran" and plain.exists("ws/r-cat")
    for key in ("ln -s", "curl"):
        assert plain.verdict(key) == "asked", key
        assert rules.verdict(key) == "ran", key
    assert not plain.exists("ws/l-ask") and rules.exists("ws/l-ask")


def test_defaults_ask_outside_the_project_but_not_for_a_redirect(
    runs: dict[str, Observed],
) -> None:
    """A path argument outside the project asks (``external_directory``); the target of a
    shell redirect is not checked, so the write lands outside."""
    plain = runs["plain"]
    assert plain.verdict("cat /") == "asked" and not plain.exists("ws/r-out")
    assert plain.verdict("echo x >") == "ran"
    assert (plain.setup.root.parent / "out" / "redirect").exists()


def test_defaults_edit_inside_and_ask_for_dot_env(runs: dict[str, Observed]) -> None:
    plain = runs["plain"]
    assert plain.verdict("edit WS/e") == "ran" and plain.verdict("write WS/w") == "ran"
    assert (plain.setup.workspace / "e").read_text() == "new\n"
    assert plain.verdict("read WS/.env") == "asked"
    assert runs["rules"].verdict("read WS/in") == "ran"


# permission.bash order, ask, wrapper bypass


def test_last_matching_rule_wins(runs: dict[str, Observed]) -> None:
    assert runs["rules"].verdict("cat in") == "denied"
    assert not runs["rules"].exists("ws/r-cat")
    assert runs["deny_first"].verdict("cat in") == "ran"  # the later "*" allow beats the deny
    assert runs["deny_first"].exists("ws/r-cat")


def test_an_ask_rule_is_rejected_headless(runs: dict[str, Observed]) -> None:
    assert runs["rules"].verdict("touch t-ask") == "asked"
    assert not runs["rules"].exists("ws/t-ask")
    assert runs["plain"].exists("ws/t-ask")  # control


def test_env_bypasses_a_cat_deny(runs: dict[str, Observed]) -> None:
    rules = runs["rules"]
    assert rules.verdict("env cat") == "ran"
    assert (rules.setup.workspace / "r-env").read_text() == "IN\n"


# the user file: JSONC and the bash migration


def test_first_start_writes_bash_allow_into_a_user_file_without_bash(
    runs: dict[str, Observed],
) -> None:
    """No migration marker and no ``permission.bash``: Kilo adds ``"bash": "allow"`` to the
    JSONC file (comments kept) and ``ln`` runs, which asks by default (``plain``)."""
    migrate = runs["migrate"]
    text = migrate.setup.user_path.read_text()
    assert '"bash": "allow"' in text and "// kept" in text
    assert (migrate.setup.config_dir / ".bash-permission-migrated").exists()
    assert migrate.verdict("ln -s") == "ran" and migrate.exists("ws/l")
    assert runs["plain"].verdict("ln -s") == "asked"  # control
    assert migrate.verdict("edit WS/e") == "denied"  # the JSONC rule holds
    assert (migrate.setup.workspace / "e").read_text() == "old\n"


def test_kilo_writes_its_schema_into_the_user_file(runs: dict[str, Observed]) -> None:
    text = runs["plain"].setup.user_path.read_text()
    assert text.startswith('{\n  "$schema": "https://app.kilo.ai/config.json"')


# layers


@pytest.mark.parametrize(
    "name", ["project", "project_opencode", "dot_dir", "content", "permission_env"]
)
def test_a_later_layer_lifts_the_user_deny(runs: dict[str, Observed], name: str) -> None:
    """A project ``kilo.jsonc``, a project ``opencode.json`` (Kilo reads OpenCode's file names
    too), ``.kilo/kilo.jsonc``, ``KILO_CONFIG_CONTENT`` and ``KILO_PERMISSION`` each allow
    ``cat`` over the user deny (``rules``)."""
    assert runs["rules"].verdict("cat in") == "denied"
    assert runs[name].verdict("cat in") == "ran"
    assert runs[name].exists("ws/r-cat")


def test_managed_beats_project_and_config_content(runs: dict[str, Observed]) -> None:
    """/etc/kilo/kilo.jsonc denies ``cat`` over a project kilo.jsonc and KILO_CONFIG_CONTENT
    that allow it (``project`` and ``content`` are the controls)."""
    assert runs["managed"].verdict("cat in") == "denied"
    assert not runs["managed"].exists("ws/r-cat")
    assert runs["managed"].verdict("touch t") == "ran"
    assert runs["project"].verdict("cat in") == "ran"
    assert runs["content"].verdict("cat in") == "ran"


def test_kilo_permission_beats_managed(runs: dict[str, Observed]) -> None:
    assert runs["managed_env"].verdict("cat in") == "ran"
    assert runs["managed_env"].exists("ws/r-cat")
    assert runs["managed"].verdict("cat in") == "denied"  # control


def test_a_dot_env_in_the_workspace_is_not_loaded(runs: dict[str, Observed]) -> None:
    """``rules`` has a ``.env`` setting KILO_PERMISSION to allow cat; the deny still holds."""
    assert runs["rules"].verdict("cat in") == "denied"
    assert runs["permission_env"].verdict("cat in") == "ran"  # control: the variable works


# the sandbox


def _blocked(observed: Observed, out: Path) -> dict[str, bool]:
    """Whether each outside write of ``_sandbox_calls`` was kept from the disk."""
    return {
        "create": not (out / "created").exists(),
        "append": (out / "append").read_text() == "A\n",
        "rename": (out / "move-src").exists() and not (out / "moved").exists(),
        "symlink": not (out / "link").is_symlink(),
        "tool": not (out / "tool").exists(),
    }


def test_the_sandbox_blocks_writes_outside_the_workspace(runs: dict[str, Observed]) -> None:
    off, on = runs["sb_off"], runs["sb_on"]
    assert _blocked(off, _out(off, "sb_off")) == dict.fromkeys(
        _blocked(off, _out(off, "sb_off")), False
    )
    assert _blocked(on, _out(on, "sb_on")) == dict.fromkeys(_blocked(on, _out(on, "sb_on")), True)
    assert "Read-only file system" in on.result("echo x > ").output
    assert "Read-only file system" in on.told("echo x > ")  # what the model got
    assert "Sandbox denied write access" in on.result("write ").output


def test_the_sandbox_lets_writable_paths_and_the_workspace_be_written(
    runs: dict[str, Observed],
) -> None:
    on = runs["sb_on"]
    assert (on.setup.root.parent / "writable-sb_on" / "w").exists()
    assert on.exists("ws/r-ws")


def test_the_sandbox_does_not_restrict_reads(runs: dict[str, Observed]) -> None:
    on = runs["sb_on"]
    assert (on.setup.workspace / "r-secret").read_text().strip() == SECRET


def test_network_deny_blocks_loopback(runs: dict[str, Observed], fake: FakeChat) -> None:
    assert "/sb-sb_off" in fake.hits  # control
    assert "/sb-sb_on" not in fake.hits
    assert not (runs["sb_on"].setup.workspace / "r-curl").read_text().strip()


def test_bwrap_is_not_looked_up_on_path(runs: dict[str, Observed]) -> None:
    """PATH without bwrap: Kilo uses /usr/bin/bwrap or the one beside its binary."""
    run = runs["sb_path"]
    out = _out(run, "sb_path")
    assert _blocked(run, out) == dict.fromkeys(_blocked(run, out), True)


def test_an_unusable_bwrap_fails_closed(runs: dict[str, Observed]) -> None:
    """``KILO_BWRAP_PATH`` naming no file: every sandboxed call fails, none runs unconfined."""
    run = runs["sb_nobwrap"]
    for result in run.run.results:
        assert result.verdict == "error"
        assert "No usable Bubblewrap executable is available" in result.output
    assert not run.exists("ws/r-ws")
    assert runs["sb_on"].exists("ws/r-ws")  # control


def test_without_any_bwrap_the_sandbox_fails_closed(runs: dict[str, Observed]) -> None:
    """Neither /usr/bin/bwrap nor a bwrap beside the executable: the same refusal."""
    run = runs["sb_missing"]
    for result in run.run.results:
        assert result.verdict == "error"
        assert "No usable Bubblewrap executable is available" in result.output
    assert not run.exists("ws/r-ws")
    assert not (_out(run, "sb_missing") / "created").exists()
    assert runs["sb_on"].exists("ws/r-ws")  # control


def test_a_misplaced_experimental_sandbox_is_ignored(runs: dict[str, Observed]) -> None:
    run = runs["sb_experimental"]
    out = _out(run, "sb_experimental")
    assert _blocked(run, out) == dict.fromkeys(_blocked(run, out), False)
    assert run.run.returncode == 0


def test_a_project_cannot_switch_the_sandbox_off(runs: dict[str, Observed]) -> None:
    """A project ``sandbox`` with ``enabled: false``, network allow and the outside directory
    writable changes nothing: only ``enabled: true`` and ``network: "deny"`` apply from it."""
    run = runs["sb_project_off"]
    out = _out(run, "sb_project_off")
    assert _blocked(run, out) == dict.fromkeys(_blocked(run, out), True)


def test_a_project_plugin_runs_outside_the_sandbox(runs: dict[str, Observed]) -> None:
    """``.kilo/plugins/mark.js`` in the workspace (which sandboxed commands may write) is
    imported at the next start and writes outside the workspace, where the same run's
    sandboxed shell cannot."""
    run = runs["sb_plugin"]
    out = _out(run, "sb_plugin")
    assert (out / "plugin-ran").exists()
    assert _blocked(run, out)["create"]  # control: the shell in the same run is confined
    assert not (_out(runs["sb_on"], "sb_on") / "plugin-ran").exists()
