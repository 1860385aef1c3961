"""Rule-table cases: what the config's shape, this host's files and the fragments of a profile
do to the policy (each its own small fixture: most stop or change the whole run)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from support.rule_cases import PROFILES, Case, config, make_dir
from support.sandbox import Sandbox

CLAUDE = 'claude_settings = "home/.claude/settings.full.json"\n'
CODEX = 'codex_config = "home/.codex/config.toml"\ncodex_rules = "home/.codex/rules/twsrt.rules"\n'
COPILOT = 'copilot_settings = "home/.copilot/settings.json"\n'

FRAGMENTS = 'home = "/home/user"\ncheckout = "~/dotfiles"\n' + PROFILES


def root_above_home(box: Sandbox) -> None:
    """A write root spelled absolute above this HOME, a deny below it spelled with ~/."""
    roots = [".", str(box.home.parent)]
    box.write(".srt-settings.json", {"filesystem": {"denyRead": ["~/.ssh"], "allowWrite": roots}})


def home_link(box: Sandbox) -> None:
    (box.home / "real").mkdir()
    (box.home / "linked").symlink_to("real")


def generated_codex(box: Sandbox) -> None:
    """The Codex profile written, in this HOME without ~/.config (TWS618)."""
    assert box.run("generate", "-w").returncode in (0, 1)


def home_file(box: Sandbox) -> None:
    (box.home / "afile").write_text("x\n", encoding="utf-8")


DEEP = "~/" + "/".join(f"d{n}" for n in range(19)) + "/locked"  # past Codex's launch depth

MANAGED = """\
home = "/home/user"
checkout = "~/dotfiles"

[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[managed]
root = "managed"
"""

CASES = [
    Case(
        "codex-launch-depth",
        {
            "TWS466": ".srt-settings.json:7:7",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": config(CODEX),
            ".srt-settings.json": {"filesystem": {"allowWrite": ["."], "denyWrite": [DEEP]}},
        },
    ),
    Case(
        "codex-relative-root-meets-a-deny",
        {
            "TWS469": ".srt-settings.json:4:7",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": config(CODEX),
            ".srt-settings.json": {
                "filesystem": {"allowWrite": ["build"], "denyWrite": ["~/p/build"]}
            },
        },
    ),
    Case(
        "managed-sandbox-disabled",
        {
            "TWS201": ".srt-settings.json:2:14",
            "TWS209": ".srt-settings.json:2:14",
            "TWS451": ".srt-settings.json:2:3",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": MANAGED,
            ".srt-settings.json": {"enabled": False, "filesystem": {}},
        },
        setup=make_dir("managed"),
    ),
    Case(
        "no-checkout",
        {
            "TWS228": "twsrt.toml:1:1",
        },
        (("check", "-v"),),
        files={"twsrt.toml": config(CLAUDE).replace('checkout = "~/dotfiles"\n', "")},
    ),
    Case(
        "codex-home-below-a-write-root",
        {
            "TWS418": ".srt-settings.json:4:7",
        },
        (("check", "-v"),),
        files={"twsrt.toml": config(CODEX, head="")},
        setup=root_above_home,
    ),
    Case(
        "copilot-unexpressible-command",
        {
            "TWS406": "bash-rules.json:3:5",
        },
        (("check", "-v"),),
        files={"twsrt.toml": config(COPILOT), "bash-rules.json": {"deny": ["echo (a) b"]}},
    ),
    Case(
        "copilot-unexpressible-domain",
        {
            "TWS423": ".srt-settings.json:4:7",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": config(COPILOT),
            ".srt-settings.json": {"network": {"allowedDomains": ["*.*.example.com"]}},
        },
    ),
    Case(
        "host-symlinked-path",
        {
            "TWS220": ".srt-settings.json:4:7",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": config(CODEX),
            ".srt-settings.json": {"filesystem": {"denyRead": ["~/linked/secret"]}},
        },
        setup=home_link,
    ),
    Case(
        "host-file-write-root",
        {
            "TWS221": ".srt-settings.json:5:7",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": config(CODEX),
            ".srt-settings.json": {"filesystem": {"allowWrite": [".", "~/afile"]}},
        },
        setup=home_file,
    ),
    Case(
        "host-codex-missing-parent",
        {
            "TWS618": "home/.codex/config.toml:16:1",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": config(CODEX),
            ".srt-settings.json": {"filesystem": {"allowWrite": ["."]}},
        },
        setup=generated_codex,
    ),
    Case(
        "fragment-not-hooked",
        {
            "TWS222": "two.json:4:7",
            "TWS223": "twsrt.toml:10:7",
        },
        (("check", "-v"),),
        files={
            "twsrt.toml": FRAGMENTS.format(base="base.srt.json", two="two.json"),
            "base.srt.json": {"filesystem": {"denyRead": ["~/.aws"]}},
            "two.json": {"filesystem": {"allowRead": ["~/.aws/"]}},
        },
    ),
]


def scaffolded(fold: bool, *then: Callable[[Sandbox], None]) -> Callable[[Sandbox], None]:
    """``init --repo`` in the repository, its home/ linked into HOME as GNU stow links it:
    ``fold``, one link per top-level entry; else directories made and each file linked."""

    def setup(box: Sandbox) -> None:
        shutil.rmtree(box.repo)
        (box.repo / ".git").mkdir(parents=True)
        assert box.run("init", "--repo", str(box.repo)).returncode == 0
        package = box.repo / "home"
        if fold:
            for entry in package.iterdir():
                (box.home / entry.name).symlink_to(os.path.relpath(entry, box.home))
        else:
            for directory, _dirs, files in os.walk(package):
                here = box.home / Path(directory).relative_to(package)
                here.mkdir(exist_ok=True)
                for name in files:
                    (here / name).symlink_to(os.path.relpath(Path(directory) / name, here))
        for step in then:
            step(box)

    return setup


def agent_state(box: Sandbox) -> None:
    (box.repo / "home/.claude/.credentials.json").write_text("{}\n", encoding="utf-8")


def srt_unlinked(box: Sandbox) -> None:
    (box.home / ".srt-settings.json").unlink()


CASES += [
    Case(
        "stowed-folded",
        {
            "TWS240": "twsrt.toml:16:19",
            "TWS241": "home/.claude/.credentials.json",
        },
        (("check",),),
        setup=scaffolded(True, agent_state),
    ),
    Case(
        "stowed-srt-elsewhere",
        {
            "TWS242": "twsrt.toml:12:7",
        },
        (("check",),),
        setup=scaffolded(False, srt_unlinked),
    ),
]
