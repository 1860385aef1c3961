"""What the real Qwen Code 0.24.4 does with a project's ``.qwen/settings.json`` (the project
scope of the Qwen target, agents/qwen/project.py): which rule wins between scopes, where the
file's relative rules anchor, whether a start below the project root reads it, and folder
trust. Headless runs against the fake model of ``qwen_client``, each refusal beside a control
that succeeds; docs/agents/qwen-observed.md rows 25-28 name the tests.

Five runs start at once: ``ask_allow`` (no --yolo: a user ask rule and a project allow on
``uname``), ``allow_only`` (its control: the project allow alone), ``root`` (--yolo, started in
the project root: a project deny on ``touch`` and an ``Edit(/prot/**)`` tree), ``subdir`` (the
same project file, started in a subdirectory) and ``untrusted`` (``root`` with folder trust on
in the user settings). Install the CLI with .ci/install-qwen.sh.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat

from .qwen_client import (
    Call,
    Observed,
    Result,
    Setup,
    permissions,
    qwen_bin,
    read_file,
    run_all,
    scratch_dir,
    write_file,
)

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_project_observed")]

UNAME = ["Shell(uname)", "Shell(uname *)"]
PROJECT_DENY = permissions(deny=["Bash(touch *)", "Edit(/prot/**)", "Read(/sec)"])
SECRET = "PROJECT-SECRET"
CALLS = [Call("touch t"), write_file("WS/prot/p"), write_file("WS/q"), read_file("WS/sec")]


class SubdirSetup(Setup):
    """A run started in ``ws/sub``, below the project root ``ws`` that holds the project file."""

    @property
    def workspace(self) -> Path:
        return self.root / "ws" / "sub"

    def write(self) -> None:
        project, self.project = self.project, None
        super().write()
        if project is not None:  # the project root's file, as a plain Setup writes it
            Setup(self.root, {}, project).write()


def _plans(root: Path) -> dict[str, tuple[Setup, list[Call], dict[str, Any]]]:
    trust = {"security": {"folderTrust": {"enabled": True}}}
    return {
        "ask_allow": (
            Setup(
                root / "ask_allow",
                permissions(ask=["Bash(uname)", "Bash(uname *)"]),
                permissions(allow=UNAME),
            ),
            [Call("uname -s")],
            {"yolo": False},
        ),
        "allow_only": (
            Setup(root / "allow_only", project=permissions(allow=UNAME)),
            [Call("uname -s")],
            {"yolo": False},
        ),
        "root": (Setup(root / "root", project=PROJECT_DENY), CALLS, {}),
        "subdir": (SubdirSetup(root / "subdir", project=PROJECT_DENY), CALLS, {}),
        "untrusted": (Setup(root / "untrusted", trust, PROJECT_DENY), CALLS, {}),
    }


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = qwen_bin()
    with scratch_dir("twsrt-qwen-project-") as root:
        plans = {}
        for name, (setup, calls, options) in _plans(root).items():
            setup.write()
            (setup.workspace / "sec").write_text(SECRET + "\n")
            plans[name] = (setup, [setup.resolve(call) for call in calls], options)
        yield run_all(binary, fake, plans)


def _finished(observed: Observed) -> Observed:
    assert observed.run.finished, observed.run.stderr[-2000:]
    return observed


def test_a_user_ask_wins_over_a_project_allow(runs: dict[str, Observed]) -> None:
    """Headless without --yolo: the user's ask rule on ``uname`` is refused (no prompt), though
    the project allows it; the project allow alone runs it (the control)."""
    asked = _finished(runs["ask_allow"]).result("uname")
    assert asked.denied or asked.status == "error"
    assert "Linux" not in asked.output
    allowed = _finished(runs["allow_only"]).result("uname")
    assert allowed.status == "success" and not allowed.denied


def test_project_rules_anchor_at_the_project_root(runs: dict[str, Observed]) -> None:
    """Started in the project root, the project's ``Edit(/prot/**)`` refuses ``write_file``
    of ``<root>/prot/p`` and its ``Bash(touch *)`` deny refuses ``touch``; a write beside them
    is made (the control)."""
    root = _finished(runs["root"])
    assert root.result("touch t").denied and not root.exists("ws/t")
    assert root.result(f"write_file {root.setup.workspace}/prot/p").status == "error"
    assert not root.exists("ws/prot/p")
    assert root.exists("ws/q")
    assert SECRET not in _read(root).output and _read(root).status == "error"


def test_a_start_in_a_subdirectory_skips_the_project_file(runs: dict[str, Observed]) -> None:
    """Started in ``<root>/sub``, Qwen reads ``<root>/sub/.qwen/settings.json`` only: the
    project root's file does not bind (``touch`` runs), as ``root`` shows it does there."""
    sub = _finished(runs["subdir"])
    assert sub.result("touch t").status == "success" and not sub.result("touch t").denied
    assert sub.exists("ws/sub/t")
    assert sub.exists("ws/sub/prot/p")  # /prot anchors at the launch directory, unbound here
    assert SECRET in _read(sub).output
    assert runs["root"].result("touch t").denied  # control: the file binds in the root


def test_folder_trust_on_skips_an_untrusted_project_file(runs: dict[str, Observed]) -> None:
    """With ``security.folderTrust.enabled`` in the user settings and the folder not trusted,
    the headless run ignores the project file: its ``Read(/sec)`` deny does not refuse
    ``read_file`` (``root`` is the control). The untrusted folder also turns --yolo back into
    the default mode, so the shell and the write tools are off (as row 8)."""
    untrusted = _finished(runs["untrusted"])
    assert SECRET in _read(untrusted).output
    assert SECRET not in _read(runs["root"]).output
    assert "because the current folder is not trusted" in untrusted.run.stderr
    assert 'Matching deny rule: "run_shell_command"' in untrusted.result("touch t").output
    assert not untrusted.exists("ws/t")


def _read(observed: Observed) -> Result:
    return observed.result(f"read_file {observed.setup.workspace}/sec")
