"""What the real Qwen Code 0.24.4 does with its execution sandbox (``tools.executionSandbox``,
bwrap on Linux): pinned by headless runs against the fake model of ``qwen_client``, checked on
disk (the file a command would write exists or not) or on the fake server (a request arrived
or not), each confined case beside a control. docs/agents/qwen-observed.md lists the facts.

Five runs start at once in one module fixture (2-3 s of CPU each), all under --yolo:
``sandbox`` (workspace-write, network closed), ``sandbox_open`` (network open),
``sandbox_readonly`` (read-only), ``sandbox_project`` (the same key only in the project's
.qwen/settings.json: ignored, so this run is the unsandboxed control) and ``sandbox_nobwrap``
(bwrap not on PATH). Their files live under /var/tmp: the sandbox makes /tmp read-only.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat

from .gemini_client import path_without
from .qwen_client import (
    Call,
    Observed,
    Setup,
    package_dir,
    qwen_bin,
    read_file,
    run_all,
    scratch_dir,
    write_file,
)

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_sandbox_observed")]

SECRET = "OUTSIDE-SECRET"
SCRATCH = 'touch "$TMPDIR/scratch" && echo "$TMPDIR" > tmpdir-seen'
SANDBOX = {"backend": "auto", "filesystem": "workspace-write", "network": "closed"}
POLICIES: dict[str, dict[str, str] | None] = {
    "sandbox": SANDBOX,
    "sandbox_open": {**SANDBOX, "network": "open"},
    "sandbox_readonly": {**SANDBOX, "filesystem": "read-only"},
    "sandbox_project": None,
    "sandbox_nobwrap": SANDBOX,
}


def _plans(root: Path, out: Path, fake: FakeChat) -> dict[str, tuple[Setup, list[Call], Any]]:
    plans: dict[str, tuple[Setup, list[Call], Any]] = {}
    for name, policy in POLICIES.items():
        user = {"tools": {"executionSandbox": policy or SANDBOX}}
        setup = Setup(root / name, project=user) if policy is None else Setup(root / name, user)
        setup.write()
        calls = [
            Call("touch inside"),
            Call(f"touch {out}/{name}"),
            Call(f"cp {out}/secret copied"),
            Call(f"curl -s -m 5 -o net {fake.url(name)}"),
            Call(f"touch /tmp/{out.name}-{name}"),
            Call("touch $HOME/home-write"),
            write_file(f"{out}/{name}-tool"),
            read_file(f"{out}/secret"),
            Call(SCRATCH),
        ]
        options: dict[str, Any] = {}
        if name == "sandbox_nobwrap":
            options["path"] = path_without("bwrap", root / "nobwrap-bin")
        plans[name] = (setup, calls, options)
    return plans


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    with scratch_dir("twsrt-qwen-sbout-", {"secret": SECRET + "\n"}) as path:
        yield path


@pytest.fixture(scope="module")
def runs(outside: Path, fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = qwen_bin()
    if shutil.which("bwrap") is None:
        pytest.fail("bwrap is not on PATH (.ci/install-srt.sh installs it)")
    with scratch_dir("twsrt-qwen-sb-") as root:
        observed = run_all(binary, fake, _plans(root, outside, fake))
        yield observed
        Path(f"/tmp/{outside.name}-sandbox_project").unlink(missing_ok=True)


def test_every_sandboxed_call_is_answered(runs: dict[str, Observed]) -> None:
    """A confined call fails like any command (no silent end of the run, as Gemini's)."""
    assert {name: o.run.returncode for name, o in runs.items()} == dict.fromkeys(runs, 0)
    assert {name: o.run.finished for name, o in runs.items()} == dict.fromkeys(runs, True)
    unanswered = {n: [r.status for r in o.run.results].count(None) for n, o in runs.items()}
    assert unanswered == dict.fromkeys(runs, 0)


def test_the_sandbox_confines_shell_writes_to_the_workspace(
    runs: dict[str, Observed], outside: Path
) -> None:
    sandbox, control = runs["sandbox"], runs["sandbox_project"]
    assert sandbox.result("touch inside").status == "success"
    assert sandbox.exists("ws/inside")
    assert control.result(f"touch {outside}/sandbox_project").status == "success"
    assert (outside / "sandbox_project").exists()  # control: unsandboxed, it is made
    assert control.exists("home/home-write")
    for command in (f"touch {outside}/sandbox", "touch $HOME/home-write"):
        assert sandbox.result(command).status == "error"  # touch: Read-only file system
    assert not (outside / "sandbox").exists()
    assert not sandbox.exists("home/home-write")


def test_the_sandbox_confines_the_write_tool_too(runs: dict[str, Observed], outside: Path) -> None:
    result = runs["sandbox"].result(f"write_file {outside}/sandbox-tool")
    assert result.status == "error" and "EROFS" in result.output
    assert not (outside / "sandbox-tool").exists()
    control = runs["sandbox_project"].result(f"write_file {outside}/sandbox_project-tool")
    assert control.status == "success"  # control: without the sandbox the tool writes there
    assert (outside / "sandbox_project-tool").exists()


def test_the_sandbox_reads_outside_the_workspace(runs: dict[str, Observed], outside: Path) -> None:
    sandbox = runs["sandbox"]
    assert sandbox.result(f"cp {outside}/secret").status == "success"
    assert (sandbox.setup.workspace / "copied").read_text() == SECRET + "\n"
    assert SECRET in sandbox.result(f"read_file {outside}/secret").output


def test_tmp_is_read_only_and_tmpdir_is_private_scratch(
    runs: dict[str, Observed], outside: Path
) -> None:
    sandbox = runs["sandbox"]
    assert sandbox.result(f"touch /tmp/{outside.name}-sandbox").status == "error"
    assert not Path(f"/tmp/{outside.name}-sandbox").exists()
    control = runs["sandbox_project"].result(f"touch /tmp/{outside.name}-sandbox_project")
    assert control.status == "success"  # control: unsandboxed, /tmp is writable
    assert Path(f"/tmp/{outside.name}-sandbox_project").exists()
    assert sandbox.result(SCRATCH).status == "success"
    seen = (sandbox.setup.workspace / "tmpdir-seen").read_text().strip()
    assert seen.startswith(f"{sandbox.setup.root}/tmp/qwen-sandbox-")
    assert list((sandbox.setup.root / "tmp").iterdir()) == []  # gone after the command


def test_network_closed_blocks_loopback_and_open_reaches_it(
    runs: dict[str, Observed], fake: FakeChat
) -> None:
    closed, opened = runs["sandbox"], runs["sandbox_open"]
    assert closed.result("curl").status == "error"  # curl exit 7: could not connect
    assert "/sandbox" not in fake.hits
    assert not closed.exists("ws/net")
    assert opened.result("curl").status == "success"
    assert "/sandbox_open" in fake.hits
    assert (opened.setup.workspace / "net").read_text() == "ok"


def test_read_only_refuses_workspace_writes(runs: dict[str, Observed]) -> None:
    readonly = runs["sandbox_readonly"]
    assert readonly.result("touch inside").status == "error"
    assert not readonly.exists("ws/inside")
    assert runs["sandbox"].exists("ws/inside")  # control: workspace-write makes it
    assert SECRET in readonly.result("read_file").output  # reads stay broad


def test_a_project_sandbox_setting_is_ignored_with_a_warning(
    runs: dict[str, Observed], outside: Path
) -> None:
    """The key in the project's .qwen/settings.json (``sandbox`` has it in the user file)."""
    project = runs["sandbox_project"]
    assert (outside / "sandbox_project").exists()
    assert project.result("curl").status == "success"
    assert (project.setup.workspace / "net").read_text() == "ok"
    assert "tools.executionSandbox in workspace settings" in project.run.stderr
    assert "is only honored from User, System, or SystemDefaults" in project.run.stderr


def test_the_sandbox_holds_without_bwrap_on_path(runs: dict[str, Observed], outside: Path) -> None:
    """bwrap is taken from /usr/bin/bwrap, not from PATH (bundle: ``policy.bwrapPath ??
    "/usr/bin/bwrap"``): with bwrap gone from PATH the confinement is unchanged."""
    nobwrap = runs["sandbox_nobwrap"]
    assert shutil.which("bwrap", path=str(nobwrap.setup.root.parent / "nobwrap-bin")) is None
    assert nobwrap.result("touch inside").status == "success"
    assert nobwrap.exists("ws/inside")
    assert nobwrap.result(f"touch {outside}/sandbox_nobwrap").status == "error"
    assert not (outside / "sandbox_nobwrap").exists()
    texts = [p.read_text() for p in (package_dir(qwen_bin()) / "chunks").glob("*.js")]
    assert any('policy.bwrapPath ?? "/usr/bin/bwrap"' in text for text in texts)
