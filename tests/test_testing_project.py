"""``twsrt test`` on a project-scope policy: relative ``**/`` denies probed at several depths of
the project, and the claude engine reading the project file with its paths anchored at the
project root (the real runs are in tests/real/test_twsrt_test_project.py)."""

from __future__ import annotations

from support.policies import make_policy
from support.sandbox import Sandbox

from twsrt.testing.attacks import derive_attacks
from twsrt.testing.derive import derive
from twsrt.testing.engine_claude import ClaudeEngine, claude_srt_settings
from twsrt.testing.model import Outcome

POLICY = {
    "filesystem": {
        "denyRead": ["**/*.pem", "./**/id_*", "secrets/**/*.key"],
        "allowRead": ["**/public.pem"],
        "denyWrite": ["**/*.lock"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}


def test_relative_globs_are_probed_at_the_top_and_deep_in_the_project() -> None:
    policy = make_policy(POLICY)
    plain = derive(policy)
    deep = derive(policy, depths=True)
    extra = {p.name: (p.target, p.expect) for p in deep.probes if p not in plain.probes}
    assert extra == {
        "deny-read **/*.pem [top]": ("work/twsrt-probe.pem", Outcome.DENIED),
        "deny-read **/*.pem [deep]": (
            "work/tw-x/tw-y/twsrt-probe/twsrt-probe.pem",
            Outcome.DENIED,
        ),
        "deny-read ./**/id_* [top]": ("work/id_twsrt-probe", Outcome.DENIED),
        "deny-read ./**/id_* [deep]": ("work/tw-x/tw-y/twsrt-probe/id_twsrt-probe", Outcome.DENIED),
        "deny-write **/*.lock [top]": ("work/twsrt-probe.lock", Outcome.DENIED),
        "deny-write **/*.lock [deep]": (
            "work/tw-x/tw-y/twsrt-probe/twsrt-probe.lock",
            Outcome.DENIED,
        ),
    }  # secrets/**/*.key is anchored below the root already: probed as before
    assert set(plain.probes) <= set(deep.probes)  # a user-scope plan is unchanged
    assert {"work/tw-x/tw-y/twsrt-probe", "work/tw-x"} <= set(deep.fixtures.dirs)


def test_depth_attacks_are_named_apart() -> None:
    policy = make_policy(POLICY)
    plain = derive_attacks(policy)
    deep = derive_attacks(policy, depths=True)
    names = [a.name for a in deep]
    assert len(names) == len(set(names))
    assert [a for a in deep if "top" not in a.form and "deep" not in a.form] == plain
    assert {
        "deny-read **/*.pem [file deep read]",
        "deny-read **/*.pem [file deep symlink-read]",
        "deny-write **/*.lock [file top rename-aside]",
        "deny-write **/*.lock [file deep symlink-replace]",
    } <= set(names)
    subjects = {a.subject for a in deep if a.name == "deny-read **/*.pem [file deep read]"}
    assert subjects == {"work/tw-x/tw-y/twsrt-probe/twsrt-probe.pem"}


def test_a_project_file_anchors_relative_paths_at_the_project_root() -> None:
    settings = {
        "sandbox": {
            "enabled": True,
            "filesystem": {"denyRead": ["**/*.pem", "~/.ssh", "/etc/x"]},
        },
        "permissions": {"deny": ["Read(/secrets)", "Edit(/locked)", "Read(//abs)"]},
    }
    user = claude_srt_settings(settings, "/R/home", "/R/work")
    project = claude_srt_settings(settings, "/R/home", "/R/work", anchor="/R/work")
    assert user is not None and project is not None
    assert user["filesystem"]["denyRead"] == [
        "/R/home/.claude/**/*.pem",
        "/R/home/.ssh",
        "/etc/x",
        "/R/home/.claude/secrets",
        "/abs",
    ]
    assert project["filesystem"]["denyRead"] == [
        "/R/work/**/*.pem",
        "/R/home/.ssh",
        "/etc/x",
        "/R/work/secrets",
        "/abs",
    ]
    assert project["filesystem"]["denyWrite"] == ["/R/work/locked"]


def test_the_claude_engine_reads_the_project_file(sandbox: Sandbox) -> None:
    from twsrt.run import context, find_config
    from twsrt.sources import load_policy

    sandbox.write("twsrt.toml", sandbox.repo.joinpath("twsrt.toml").read_text() + "[project]\n")
    config = find_config(str(sandbox.repo / "twsrt.toml"))
    ctx = context(config, load_policy(config), False, None)
    assert ClaudeEngine("srt").reads(ctx) == [sandbox.repo / ".claude" / "settings.json"]
