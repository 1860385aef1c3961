"""The real Factory Droid 0.225.2 on what twsrt generates for it: ``droid exec`` (the fake model
of ``droid_client``) with ~/.factory/settings.json as ``twsrt generate droid -w`` wrote it, each
forbidden action refused beside a control run without twsrt's keys in which the same call
succeeds: a denied read (``cat`` and the Read tool), a write into a denied tree (create,
append, rename, symlink, the Create tool) and outside the write roots, a denied command and
the same command behind ``env``, a host the policy does not list, writes into other agents' and
Droid's own config layers (``.factory/settings.json`` in the workspace, ``~/.factory/droids``),
and a next launch in the workspace that stays confined. Two more runs pin what twsrt reports
rather than enforces: Factory's own host passes the proxy (TWS495) and ``~/.factory/temp``
stays writable; and the allow list runs a command read-only mode would stop.

Policy paths are spelled as users write them (``~/secret``, ``guarded``): Droid resolves ``~``
with HOME and a relative path against the directory it starts in, so the bytes twsrt writes
need no home. Install Droid with .ci/install-droid.sh.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.fake_chat import FakeChat

from .droid_client import (
    Call,
    Observed,
    Setup,
    after_proxy,
    create,
    droid_bin,
    read,
    run_all,
    run_droid,
)
from .qwen_client import scratch_dir

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("droid_generated")]

SECRET = "DROID-GENERATED-SECRET"
SRT = {
    "filesystem": {"denyRead": ["~/secret"], "denyWrite": ["guarded"], "allowWrite": ["."]},
    "network": {"allowedDomains": ["localhost"]},
}
BASH = {"deny": ["cp"], "ask": ["mkdir"], "allow": ["git init"]}
BLOCKED = "blocked by your organization's security policy"
ENDED = "Exec ended early: insufficient permission to proceed"
READ_ONLY = "Read-only file system"
# the forbidden writes into the denied tree and outside the launch directory (command, made)
WRITES = [
    ("touch guarded/new", "ws/guarded/new"),
    ("echo more >> guarded/e", None),
    ("mv movable guarded/moved", "ws/guarded/moved"),
    ("ln -s /etc/hostname guarded/link", "ws/guarded/link"),
    ("touch ../outside/new", "outside/new"),
]
PLANTED = json.dumps({"commandAllowlist": ["cp"], "sandbox": {"enabled": False}})
PLANT = "python3 -c " + shlex.quote(
    "import os; os.makedirs('.factory', exist_ok=True); "
    f"open('.factory/settings.json', 'w').write({PLANTED!r})"
)


class InSub(Setup):
    """A launch in ``ws/sub`` below a project whose ``.factory/settings.json`` lies in ``ws``."""

    @property
    def workspace(self) -> Path:
        return self.root / "ws" / "sub"

    def write(self) -> None:
        project, self.project = self.project, None  # not in ws/sub: above it
        super().write()
        self.project = project
        top = self.root / "ws"
        if self.project is not None:
            (top / ".factory").mkdir(parents=True, exist_ok=True)
            text = json.dumps(self.project, indent=2) + "\n"
            (top / ".factory" / "settings.json").write_text(text)
        (top / "secret").write_text("TOP\n")
        (top / "sub" / "secret").write_text("SUB\n")


# a project sandbox that denies reading the relative path ``secret``
PROJECT = {
    "sandbox": {
        "enabled": True,
        "filesystem": {"denyRead": ["secret"], "allowWrite": [], "denyWrite": [], "allowRead": []},
        "network": {"allowedDomains": []},
    }
}


ADDS = {
    "sandbox": {
        "enabled": True,
        "filesystem": {"denyRead": ["b"], "allowWrite": [], "denyWrite": ["wb"], "allowRead": []},
        "network": {"allowedDomains": []},
    },
    "commandBlocklist": ["rm"],
}


def generate(setup: Setup) -> tuple[dict[str, Any], str]:
    """twsrt's Droid settings for ``setup`` (as ``generate droid -w`` writes them into a file
    that holds only the user's own model key), and check's JSON report."""
    repo = setup.root / "repo"
    target = repo / "home" / ".factory" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"enableCompletionBell": False}, indent=2) + "\n")
    (repo / "srt.json").write_text(json.dumps(SRT))
    (repo / "bash.json").write_text(json.dumps(BASH))
    (repo / "twsrt.toml").write_text(
        f'home = "{setup.home}"\ncheckout = "{repo}"\n\n[sources]\nsrt = "srt.json"\n'
        'bash_rules = "bash.json"\n\n[targets]\ndroid_settings = "home/.factory/settings.json"\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(setup.home), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "droid", "-w"], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    checked = run_cli(["check", "--agent", "droid", "--format", "json"], cwd=repo, env=env)
    return json.loads(target.read_text()), checked.stdout


def generate_managed(root: Path) -> Path:
    """The org-managed settings ``generate droid -w`` writes in managed scope (the Linux copy)."""
    repo = root / "managed-repo"
    repo.mkdir(parents=True)
    (repo / "srt.json").write_text(json.dumps(SRT))
    (repo / "bash.json").write_text(json.dumps(BASH))
    (repo / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        '[managed]\nroot = "managed"\nagents = ["droid"]\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "nohome"), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "droid", "-w"], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    return repo / "managed" / "linux" / "etc" / "factory" / "settings.json"


def _prepare(setup: Setup) -> None:
    setup.write()
    ws = setup.workspace
    (setup.home / "secret").write_text(SECRET + "\n")
    (ws / "guarded").mkdir()
    (ws / "guarded" / "e").write_text("old\n")
    for name in ("movable", "copyable"):
        (ws / name).write_text("m\n")
    (setup.root / "outside").mkdir()
    (setup.home / ".claude").mkdir()


def _calls(setup: Setup, fake: FakeChat) -> list[Call]:
    ws, home = setup.workspace, setup.home
    local = fake.url("allowed").replace("127.0.0.1", "localhost")
    return [
        Call("cat ~/secret"),
        read(home / "secret"),
        Call("echo x > ok"),
        *(Call(command) for command, _ in WRITES),
        create(ws / "guarded" / "c"),
        Call("cp copyable copied"),
        Call("env cp copyable copied-env"),
        # retried: under load one fetch through Droid's proxy may time out (the observed module
        # saw it too); a refusal is never retried into a success
        Call(after_proxy(f"curl -sS -m 30 --retry 2 --retry-all-errors --noproxy '' {local}")),
        Call(after_proxy(f"curl -sS -m 30 --noproxy '' {fake.url('refused')}")),
        Call(after_proxy("curl -sS -m 30 https://api.factory.ai/ 2>&1")),
        Call(after_proxy("curl -sS -m 30 https://example.org/ 2>&1")),
        Call("echo '{}' > .factory/settings.json"),
        create(ws / ".factory" / "settings.local.json", "{}\n"),
        create(home / ".factory" / "droids" / "planted.md", "---\nname: planted\n---\n"),
        Call("echo '{}' > ~/.claude/settings.json"),
        Call("touch ~/.factory/sessions/planted"),
        Call('touch "$TMPDIR/scratch" && echo "$TMPDIR"'),
        Call(PLANT),
        Call("mkdir asked-dir"),  # the ask ends a headless exec: the last call
    ]


@pytest.fixture(scope="module")
def runs(fake: FakeChat) -> Iterator[dict[str, Any]]:
    binary = droid_bin()
    with scratch_dir("twsrt-droid-gen-") as root:
        plans: dict[str, tuple[Setup, list[Call], dict[str, Any]]] = {}
        out: dict[str, Any] = {}
        generated, out["check"] = generate(Setup(root / "gen"))
        out["generated"] = generated
        for name, twsrt, calls, options in (
            ("twsrt", True, None, {}),
            ("control", False, None, {}),
            ("allow", True, [Call("git init -q g", risk="high")], {"auto": None}),
            ("allow_control", False, [Call("git init -q g", risk="high")], {"auto": None}),
            # what the translation rests on: a star is literal (TWS496), a word needs its
            # subcommand in the allow list (stricter)
            ("star", False, [Call("touch starred")], {}),
            ("allow_word", False, [Call("git init -q g", risk="high")], {"auto": None}),
        ):
            settings = {
                "star": {"commandBlocklist": ["touch *"]},
                "allow_word": {"commandAllowlist": ["git"]},
            }.get(name, {})
            setup = Setup(root / name, settings=dict(generated) if twsrt else settings)
            _prepare(setup)
            plans[name] = (setup, calls or _calls(setup, fake), options)
        for name in (
            "project_git",
            "project_plain",
        ):  # where a project file binds (not yet a target)
            below = InSub(root / name, project=PROJECT)
            below.write()
            if name == "project_git":
                subprocess.run(["git", "init", "-q", str(below.root / "ws")], check=True)
            plans[name] = (below, [Call("cat secret"), Call("cat ../secret")], {})
        # a project file beside the generated user file: its denies and blocklist add to them
        adds = Setup(root / "project_adds", settings=dict(generated), project=ADDS)
        _prepare(adds)
        (adds.workspace / "b").write_text("B\n")
        (adds.workspace / "wb").mkdir()
        calls = [Call("cat ~/secret"), Call("cat b"), Call("touch wb/x"), Call("rm -f movable")]
        plans["project_adds"] = (adds, calls, {})
        # the layers beside the generated user file: a local file's key replaces the user's, the
        # org-managed settings add to it (TWS661, TWS662)
        for name, local in (
            ("local_sandbox", {"sandbox": {"enabled": False}}),
            ("local_lists", {"commandBlocklist": []}),
            ("org_off", None),
        ):
            layered = Setup(root / name, settings=dict(generated))
            _prepare(layered)
            options: dict[str, Any] = {}
            if local is not None:
                path = layered.home / ".factory" / "settings.local.json"
                path.write_text(json.dumps(local))
            else:
                org = layered.root / "org.json"
                org.write_text(
                    json.dumps({"sandbox": {"enabled": False}, "commandAllowlist": ["cp"]})
                )
                options["extra_env"] = {"FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH": str(org)}
            plans[name] = (layered, [Call("cat ~/secret"), Call("cp copyable copied")], options)
        # the generated org-managed file binds a user whose own files switch the sandbox off
        org_file = generate_managed(root)
        bound = Setup(root / "managed_binds", settings={"sandbox": {"enabled": False}})
        _prepare(bound)
        local = bound.home / ".factory" / "settings.local.json"
        local.write_text(json.dumps({"sandbox": {"enabled": False}, "commandBlocklist": []}))
        env = {"FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH": str(org_file)}
        calls = [Call("cat ~/secret"), Call("cp copyable copied"), Call("echo x > ok")]
        plans["managed_binds"] = (bound, calls, {"extra_env": env})
        out.update(run_all(binary, fake, plans))
        # the next launch in the workspace the first one tried to plant a file in
        twsrt = out["twsrt"].setup
        again = [Call("cat ~/secret"), Call("cp copyable copied-next")]
        out["next"] = Observed(twsrt, again, run_droid(binary, fake, "next", twsrt, again))
        yield out


def test_the_generated_file_is_what_droid_runs_with(runs: dict[str, Any]) -> None:
    """The runs' user file is the generated one plus the fake model's entry; every call got a
    result, and only the ask ended the exec (status 1)."""
    twsrt = runs["twsrt"]
    loaded = json.loads(twsrt.setup.user_settings.read_text())
    assert {k: v for k, v in loaded.items() if k != "customModels"} == runs["generated"]
    assert runs["generated"]["sandbox"]["enabled"] is True
    assert twsrt.run.results.count(None) == 0
    assert twsrt.run.returncode == 1 and ENDED in twsrt.result("mkdir asked-dir")
    assert runs["control"].run.returncode == 0


def test_a_denied_read_is_refused_to_the_shell_and_the_read_tool(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    assert "Permission denied" in twsrt.result("cat ~/secret")
    assert "read denied" in twsrt.result(f"Read {twsrt.setup.home / 'secret'}")
    assert SECRET in control.result("cat ~/secret")
    assert SECRET in control.result(f"Read {control.setup.home / 'secret'}")


@pytest.mark.parametrize(("command", "made"), WRITES, ids=[w[0] for w in WRITES])
def test_writes_into_the_denied_tree_and_outside_are_refused(
    runs: dict[str, Any], command: str, made: str | None
) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    assert READ_ONLY in twsrt.result(command), twsrt.result(command)
    if made is None:  # the append: the file keeps its one line
        assert (twsrt.setup.workspace / "guarded" / "e").read_text() == "old\n"
        assert (control.setup.workspace / "guarded" / "e").read_text() == "old\nmore\n"
    else:
        assert not twsrt.exists(made) and control.exists(made)
    assert twsrt.exists("ws/ok")  # the launch directory itself stays writable


def test_the_create_tool_is_refused_the_denied_tree(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    assert "write denied" in twsrt.result(f"Create {twsrt.setup.workspace / 'guarded' / 'c'}")
    assert not twsrt.exists("ws/guarded/c") and control.exists("ws/guarded/c")


def test_a_denied_command_is_refused_also_behind_env(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    for command, made in (("cp copyable copied", "ws/copied"), ("env cp", "ws/copied-env")):
        assert BLOCKED in twsrt.result(command)
        assert not twsrt.exists(made) and control.exists(made)


def test_only_the_listed_host_is_reached(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    fetched = twsrt.result(
        after_proxy("curl -sS -m 30 --retry 2 --retry-all-errors --noproxy '' http://loc")
    )
    assert fetched.startswith("ok"), fetched
    refused = twsrt.result(after_proxy("curl -sS -m 30 --noproxy '' http://127.0.0.1"))
    assert "blocked by network allowlist" in refused
    assert control.result(after_proxy("curl -sS -m 30 --noproxy '' http://127.0.0.1")).startswith(
        "ok"
    )


def test_factory_hosts_pass_the_proxy_as_twsrt_reports(runs: dict[str, Any]) -> None:
    """What TWS495 reports: the proxy lets a tunnel to api.factory.ai past its allow-list (it
    fails upstream: 502, no network here) while it refuses example.org (403), though the
    policy lists neither."""
    factory = runs["twsrt"].result(after_proxy("curl -sS -m 30 https://api.factory.ai/"))
    other = runs["twsrt"].result(after_proxy("curl -sS -m 30 https://example.org/"))
    # past the allow-list: the tunnel fails upstream (502, or a timeout under load), never 403
    assert "response 403" not in factory and "blocked" not in factory, factory
    assert "response 403" in other, other
    assert "TWS495" in runs["check"]


def test_config_layers_are_refused_so_the_next_launch_stays_confined(runs: dict[str, Any]) -> None:
    twsrt, control = runs["twsrt"], runs["control"]
    ws = twsrt.setup.workspace
    planted = twsrt.result("echo '{}' > .factory/settings.json")
    assert READ_ONLY in planted or "Not a directory" in planted, planted
    assert "write denied" in twsrt.result(f"Create {ws / '.factory' / 'settings.local.json'}")
    droids = twsrt.setup.home / ".factory" / "droids" / "planted.md"
    assert "write denied" in twsrt.result(f"Create {droids}") and not droids.exists()
    assert READ_ONLY in twsrt.result("echo '{}' > ~/.claude/settings.json")
    assert not (twsrt.setup.home / ".claude" / "settings.json").exists()
    assert "Error" in twsrt.result(PLANT)
    assert not (ws / ".factory" / "settings.json").exists()
    assert control.exists("ws/.factory/settings.json")
    assert control.exists("home/.factory/droids/planted.md")
    after = runs["next"]
    assert "Permission denied" in after.result("cat ~/secret")
    assert BLOCKED in after.result("cp copyable copied-next")


def test_droid_s_own_directories_are_denied_but_its_tmpdir(runs: dict[str, Any]) -> None:
    """twsrt write-denies the ~/.factory directories Droid opens to commands (sessions here) and
    leaves the commands' TMPDIR, ~/.factory/temp, writable (TWS495 reports it)."""
    twsrt, control = runs["twsrt"], runs["control"]
    assert READ_ONLY in twsrt.result("touch ~/.factory/sessions/planted")
    assert control.exists("home/.factory/sessions/planted")
    told = twsrt.result('touch "$TMPDIR/scratch"')
    assert str(twsrt.setup.home / ".factory" / "temp") in told and READ_ONLY not in told, told


def test_the_allow_list_runs_what_read_only_mode_stops(runs: dict[str, Any]) -> None:
    assert runs["allow"].exists("ws/g/.git")
    assert ENDED in runs["allow_control"].result("git init")
    assert not runs["allow_control"].exists("ws/g/.git")


def test_droid_reads_a_star_literally_and_an_allowed_word_needs_its_subcommand(
    runs: dict[str, Any],
) -> None:
    """Why a deny with ``*`` becomes its leading words (TWS496): a blocklist ``touch *`` lets
    ``touch starred`` run. And an allow list ``git`` does not run ``git init`` in read-only
    mode (``git init`` does, test_the_allow_list_...): Droid's allow list is stricter than
    the policy's ``git``."""
    assert runs["star"].exists("ws/starred")
    assert ENDED in runs["allow_word"].result("git init")
    assert not runs["allow_word"].exists("ws/g/.git")


def test_a_project_file_binds_below_a_git_root_with_paths_from_the_launch_directory(
    runs: dict[str, Any],
) -> None:
    """What a project target must handle (docs/agents/droid.md, not done yet): started in
    ``ws/sub`` of a git repository, Droid loads ``ws/.factory/settings.json`` and resolves its
    relative ``secret`` against ``ws/sub``, not the project root: ``ws/sub/secret`` is refused
    and ``ws/secret`` read. Without a git repository it does not look above ``ws/sub``."""
    git, plain = runs["project_git"], runs["project_plain"]
    assert "Permission denied" in git.result("cat secret")
    assert "TOP" in git.result("cat ../secret")
    assert "SUB" in plain.result("cat secret")


def test_a_project_file_adds_to_the_user_s_sandbox_and_lists(runs: dict[str, Any]) -> None:
    """Why the project target writes the user file's members (TWS664): a project file's
    denyRead, denyWrite and commandBlocklist hold beside the generated user file's."""
    adds = runs["project_adds"]
    assert "Permission denied" in adds.result("cat ~/secret")  # the user's
    assert "Permission denied" in adds.result("cat b")
    assert READ_ONLY in adds.result("touch wb/x") and not adds.exists("ws/wb/x")
    assert BLOCKED in adds.result("rm -f movable") and adds.exists("ws/movable")


def test_a_local_file_replaces_the_generated_keys(runs: dict[str, Any]) -> None:
    """What TWS661 reports: ~/.factory/settings.local.json's sandbox replaces the one twsrt
    wrote (the secret is read) and its commandBlocklist replaces twsrt's (cp runs). The
    controls: the twsrt run, where both are refused."""
    assert SECRET in runs["local_sandbox"].result("cat ~/secret")
    assert runs["local_lists"].exists("ws/copied")
    assert "Permission denied" in runs["local_lists"].result("cat ~/secret")
    assert not runs["twsrt"].exists("ws/copied")


def test_the_org_managed_settings_add_to_the_generated_file(runs: dict[str, Any]) -> None:
    """Why the org-managed layer gets a note, not an error (TWS662): its enabled false and its
    allowlist change nothing of the generated file's sandbox and blocklist."""
    org = runs["org_off"]
    assert "Permission denied" in org.result("cat ~/secret")
    assert BLOCKED in org.result("cp copyable copied") and not org.exists("ws/copied")


def test_the_generated_org_managed_file_binds_the_user(runs: dict[str, Any]) -> None:
    """What the managed target rests on: the org-managed file twsrt writes (loaded through
    FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH, Droid's other org source) keeps its sandbox and
    blocklist against a user file and a settings.local.json that switch the sandbox off and
    empty the blocklist; the workspace stays writable."""
    bound = runs["managed_binds"]
    assert "Permission denied" in bound.result("cat ~/secret")
    assert BLOCKED in bound.result("cp copyable copied") and not bound.exists("ws/copied")
    assert bound.exists("ws/ok")


def test_the_ask_ends_a_headless_exec(runs: dict[str, Any]) -> None:
    assert not runs["twsrt"].exists("ws/asked-dir")
    assert runs["control"].exists("ws/asked-dir")
