"""DeepCode's own sandbox code and the real bubblewrap on what twsrt generates.

The installed ``twsrt`` writes ``~/.deepcode/settings.json`` for each ``--sandbox`` mode from a
small policy (allowWrite ``.`` and an absolute dir W, denyRead ``~/.aws``, no domains). DeepCode's
vendored ``resolveSandboxMode``/``sandboxConfigForMode``/``buildLinuxBwrapArgs`` turn the file's
``sandbox`` object into bubblewrap arguments for a workspace, and commands run under the real
bwrap: each test observes what a command can read, write and reach, and every denial has a
control (the same command outside the sandbox succeeds), so a failure is the sandbox's doing.

The layout lives under pytest's ``tmp_path`` (under /tmp). DeepCode's bwrap mounts a fresh tmpfs
on /tmp and then binds only the workspace and the allow roots into it, so inside the sandbox
every other directory of the tree - $HOME, the "outside" dir, the dotfiles - does not exist, and
the sandbox's own /tmp (and /) is a throwaway tmpfs: a write there can succeed and still never
reach the host. The tests therefore check the host side of every write, not only exit codes.
"""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .deepcode_client import bwrap_bin, deepcode_plan, node_bin, run_sandboxed

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parent.parent.parent
MODES = ("read-only", "workspace-write", "danger-full-access")
SECRET = "twsrt-secret"


@pytest.fixture(scope="session")
def node() -> str:
    return node_bin()


@pytest.fixture(scope="session")
def bwrap() -> str:
    return bwrap_bin()


@dataclass
class Tree:
    home: Path
    work: Path  # the workspace: DeepCode's cwd
    allowed: Path  # W, the absolute allowWrite root
    outside: Path  # exists on the host, granted by nothing
    settings: dict[str, Any]
    stderr: str  # twsrt's findings

    @property
    def env(self) -> dict[str, str]:
        return {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "LANG": "C.UTF-8"}


def _generate(
    tmp: Path, mode: str, *, extra_fs: dict[str, list[str]] | None = None, seed: Any = None
) -> Tree:
    """Lay out HOME, the workspace, W and an outside dir under tmp, and write HOME's
    .deepcode/settings.json with the installed twsrt (--sandbox MODE). ``seed`` is an existing
    settings file to merge into."""
    home, work, allowed, outside = (tmp / n for n in ("home", "work", "allowed", "outside"))
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(f"{SECRET}\n")
    for path in (work, allowed, outside):
        path.mkdir()
    (work / "in.txt").write_text("readable\n")
    settings_path = home / ".deepcode" / "settings.json"
    if seed is not None:
        settings_path.parent.mkdir()
        settings_path.write_text(json.dumps(seed))
    srt = {
        "filesystem": {
            "allowWrite": [".", str(allowed)],
            "denyRead": ["~/.aws"],
            **(extra_fs or {}),
        },
        "network": {"allowedDomains": []},
    }
    config_dir = tmp / "dotfiles"
    config_dir.mkdir()
    (config_dir / "srt.json").write_text(json.dumps(srt))
    (config_dir / "bash.json").write_text("{}")
    (config_dir / "twsrt.toml").write_text(
        f"home = {json.dumps(str(home))}\n"
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        f"[targets]\ndeepcode_settings = {json.dumps(str(settings_path))}\n"
    )
    argv = [sys.executable, "-m", "twsrt", "-c", str(config_dir / "twsrt.toml")]
    proc = subprocess.run(
        [*argv, "generate", "deepcode", "-w", "-v", "--sandbox", mode],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    settings = json.loads(settings_path.read_text())
    return Tree(home, work, allowed, outside, settings, proc.stderr)


def _plain(tree: Tree, cmd: str) -> tuple[int, str]:
    """The control: the same command, same cwd and env, without any sandbox."""
    return run_sandboxed([], cmd, tree.work, tree.env)


# ------------------------------------------------------------------ mode resolution


@pytest.mark.parametrize("mode", MODES)
def test_deepcode_resolves_the_requested_mode(node: str, tmp_path: Path, mode: str) -> None:
    """DeepCode reads ``sandbox.mode``: the file twsrt merges into a user file that still has the
    legacy ``enabled`` switch (which on its own means another mode) resolves to the mode asked
    for, and twsrt has dropped the stale switch."""
    legacy = {"model": "kept", "sandbox": {"enabled": mode == "danger-full-access"}}
    # control: DeepCode resolves the legacy file alone to a different mode
    seed_mode, _ = deepcode_plan(legacy, tmp_path, node=node)
    assert seed_mode != mode
    tree = _generate(tmp_path, mode, seed=legacy)
    assert tree.settings["model"] == "kept"
    assert tree.settings["sandbox"]["mode"] == mode
    assert "enabled" not in tree.settings["sandbox"]
    resolved, _ = deepcode_plan(tree.settings, tree.work, node=node)
    assert resolved == mode


# ------------------------------------------------------------------ read-only


def test_read_only_reads_the_workspace_and_writes_nowhere(
    node: str, bwrap: str, tmp_path: Path
) -> None:
    tree = _generate(tmp_path, "read-only")
    mode, args = deepcode_plan(tree.settings, tree.work, node=node)
    assert mode == "read-only" and args

    rc, out = run_sandboxed(args, "cat in.txt", tree.work, tree.env, bwrap=bwrap)
    assert rc == 0 and "readable" in out, out

    # the workspace is bound read-only (the last bind of cwd is --ro-bind-try: DeepCode #256)
    rc, out = run_sandboxed(args, "echo no > made.txt", tree.work, tree.env, bwrap=bwrap)
    assert rc != 0 and "Read-only file system" in out, out
    assert not (tree.work / "made.txt").exists()
    # W is not even mounted: twsrt writes no allowWrite in read-only, and DeepCode would force
    # it to [] anyway, so inside the sandbox W's path does not exist
    target = shlex.quote(str(tree.allowed / "made.txt"))
    rc, out = run_sandboxed(args, f"echo no > {target}", tree.work, tree.env, bwrap=bwrap)
    assert rc != 0, out
    assert not (tree.allowed / "made.txt").exists()

    # controls: outside the sandbox both writes succeed
    assert _plain(tree, "echo no > made.txt")[0] == 0
    assert _plain(tree, f"echo no > {target}")[0] == 0
    assert (tree.work / "made.txt").exists() and (tree.allowed / "made.txt").exists()


# ------------------------------------------------------------------ workspace-write


def test_workspace_write_writes_the_workspace_and_the_allow_root(
    node: str, bwrap: str, tmp_path: Path
) -> None:
    tree = _generate(tmp_path, "workspace-write")
    mode, args = deepcode_plan(tree.settings, tree.work, node=node)
    assert mode == "workspace-write" and args

    rc, out = run_sandboxed(
        args, "echo ok > made.txt && cat made.txt", tree.work, tree.env, bwrap=bwrap
    )
    assert rc == 0 and "ok" in out, out
    assert (tree.work / "made.txt").read_text() == "ok\n"
    target = shlex.quote(str(tree.allowed / "made.txt"))
    rc, out = run_sandboxed(args, f"echo ok > {target}", tree.work, tree.env, bwrap=bwrap)
    assert rc == 0, out
    assert (tree.allowed / "made.txt").read_text() == "ok\n"


@pytest.mark.parametrize("where", ["outside", "home"])
def test_workspace_write_does_not_reach_other_dirs(
    node: str, bwrap: str, tmp_path: Path, where: str
) -> None:
    """A dir that exists on the host outside the workspace and W - a sibling dir, or $HOME -
    cannot be written: DeepCode does not mount it, so its path does not exist in the sandbox.
    Even a command that creates the path first only writes into the sandbox's throwaway /tmp
    tmpfs; nothing reaches the host."""
    tree = _generate(tmp_path, "workspace-write")
    _, args = deepcode_plan(tree.settings, tree.work, node=node)
    directory = tree.outside if where == "outside" else tree.home
    host_file = directory / "made.txt"
    target = shlex.quote(str(host_file))

    rc, out = run_sandboxed(args, f"echo no > {target}", tree.work, tree.env, bwrap=bwrap)
    assert rc != 0, out
    assert not host_file.exists()
    # the directory is created inside the sandbox's tmpfs /tmp, so this "succeeds" in there...
    mkdir_then_write = f"mkdir -p {shlex.quote(str(directory))} && echo no > {target}"
    rc, out = run_sandboxed(args, mkdir_then_write, tree.work, tree.env, bwrap=bwrap)
    assert rc == 0, out
    # ...and is gone with it
    assert not host_file.exists()

    # control: outside the sandbox the write lands
    assert _plain(tree, f"echo no > {target}")[0] == 0
    assert host_file.read_text() == "no\n"


def test_workspace_write_allow_read_root_is_visible_but_read_only(
    node: str, bwrap: str, tmp_path: Path
) -> None:
    """A dir outside both that DeepCode does mount: an ``allowRead`` root R is bound read-only,
    so it is readable and a write into it fails with EROFS."""
    readable = tmp_path / "readable"
    readable.mkdir()
    (readable / "r.txt").write_text("visible\n")
    tree = _generate(tmp_path, "workspace-write", extra_fs={"allowRead": [str(readable)]})
    assert tree.settings["sandbox"]["filesystem"]["allowRead"] == [str(readable)]
    _, args = deepcode_plan(tree.settings, tree.work, node=node)
    inside = shlex.quote(str(readable / "r.txt"))
    target = shlex.quote(str(readable / "made.txt"))

    rc, out = run_sandboxed(args, f"cat {inside}", tree.work, tree.env, bwrap=bwrap)
    assert rc == 0 and "visible" in out, out
    rc, out = run_sandboxed(args, f"echo no > {target}", tree.work, tree.env, bwrap=bwrap)
    assert rc != 0 and "Read-only file system" in out, out
    assert not (readable / "made.txt").exists()

    assert _plain(tree, f"echo no > {target}")[0] == 0  # control
    assert (readable / "made.txt").exists()


# ------------------------------------------------------------------ danger-full-access


def test_danger_full_access_builds_no_sandbox(node: str, tmp_path: Path) -> None:
    """DeepCode builds no sandbox at all: the command runs as is, the filesystem lists twsrt
    still writes (and warns about, TWS212) are not looked at."""
    tree = _generate(tmp_path, "danger-full-access")
    assert "TWS212" in tree.stderr
    mode, args = deepcode_plan(tree.settings, tree.work, node=node)
    assert (mode, args) == ("danger-full-access", [])
    rc, out = run_sandboxed(args, "cat ~/.aws/credentials", tree.work, tree.env)
    assert rc == 0 and SECRET in out, out


# ------------------------------------------------------------------ network


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP socket listening on the host's 127.0.0.1; the kernel completes connects from its
    backlog, so nothing has to accept."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield sock.getsockname()[1]


def _interfaces(proc_net_dev: str) -> set[str]:
    return {line.split(":", 1)[0].strip() for line in proc_net_dev.splitlines() if ":" in line}


@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
def test_empty_allowed_domains_means_no_network(
    node: str, bwrap: str, tmp_path: Path, listener: int, mode: str
) -> None:
    """``allowedDomains: []`` (what twsrt writes for an srt policy without domains): DeepCode
    unshares the network, the command sees only a loopback of its own, and cannot reach a socket
    listening on the host's loopback."""
    tree = _generate(tmp_path, mode)
    assert tree.settings["sandbox"]["network"] == {"allowedDomains": []}
    _, args = deepcode_plan(tree.settings, tree.work, node=node)
    assert "--unshare-net" in args

    # /sys is not mounted in DeepCode's sandbox; /proc is, and its net/dev is per namespace
    rc, out = run_sandboxed(args, "cat /proc/net/dev", tree.work, tree.env, bwrap=bwrap)
    assert rc == 0 and _interfaces(out) == {"lo"}, out

    connect = f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{listener}' && echo connected"
    rc, out = run_sandboxed(args, connect, tree.work, tree.env, bwrap=bwrap)
    assert rc != 0 and "connected" not in out, out
    rc, out = _plain(tree, connect)  # control: the host socket is reachable without the sandbox
    assert rc == 0 and "connected" in out, out


# ------------------------------------------------------------------ denyRead (TWS432)


def test_deny_read_is_not_applied_on_linux(node: str, bwrap: str, tmp_path: Path) -> None:
    """TWS432, as DeepCode really behaves on Linux (workspace-write).

    twsrt writes ``denyRead: [<home>/.aws]`` and warns that only macOS applies it. On Linux
    ``buildLinuxBwrapArgs`` never reads ``denyRead``; the path is not in the arguments at all.
    Whether ~/.aws is readable depends only on what DeepCode mounts:

    - with the workspace elsewhere, ~/.aws is unreadable - not because of the deny, but because
      DeepCode does not mount $HOME at all (the whole home dir is missing in the sandbox);
    - with the workspace at $HOME (DeepCode started in the home dir) cwd is bound, ~/.aws with
      it, and the credentials are readable in spite of the denyRead. The same holds for a
      workspace or an allowWrite/allowRead root that contains the denied path.
    """
    tree = _generate(tmp_path, "workspace-write")
    aws = tree.home / ".aws"
    assert tree.settings["sandbox"]["filesystem"]["denyRead"] == [str(aws)]
    # no grant holds ~/.aws: a note that names the launch directory as the condition (TWS444)
    assert "note[TWS444]" in tree.stderr and "TWS432" not in tree.stderr
    assert _plain(tree, "cat ~/.aws/credentials")[0] == 0  # control

    _, args = deepcode_plan(tree.settings, tree.work, node=node)
    assert not any(str(aws) in arg for arg in args)
    rc, out = run_sandboxed(args, "cat ~/.aws/credentials", tree.work, tree.env, bwrap=bwrap)
    assert rc != 0 and SECRET not in out, out
    rc, out = run_sandboxed(args, 'test -e "$HOME"', tree.work, tree.env, bwrap=bwrap)
    assert rc != 0, out  # the cause: $HOME itself is not there

    _, args = deepcode_plan(tree.settings, tree.home, node=node)
    rc, out = run_sandboxed(args, "cat ~/.aws/credentials", tree.home, tree.env, bwrap=bwrap)
    assert rc == 0 and SECRET in out, out  # the denyRead is not enforced


def test_deny_read_inside_a_granted_root_is_a_warning(
    node: str, bwrap: str, tmp_path: Path
) -> None:
    """TWS432 is a warning where the loss does not depend on the launch directory: an
    allowRead root that holds ~/.aws is mounted, the deny is not applied, and a command started
    in an ordinary workspace reads the credentials."""
    tree = _generate(tmp_path, "workspace-write", extra_fs={"allowRead": ["~"]})
    # the read deny is TWS432, not TWS444; its write-deny twin (the protected set write-denies
    # every denyRead path) lies in no writable mount, which is TWS444 for denyWrite
    unmounted = [line for line in tree.stderr.splitlines() if "TWS444" in line]
    assert "warning[TWS432]" in tree.stderr
    assert all("sandbox.filesystem.denyWrite" in line for line in unmounted), unmounted
    _, args = deepcode_plan(tree.settings, tree.work, node=node)
    rc, out = run_sandboxed(args, "cat ~/.aws/credentials", tree.work, tree.env, bwrap=bwrap)
    assert rc == 0 and SECRET in out, out
