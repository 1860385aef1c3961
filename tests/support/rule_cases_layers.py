"""Rule-table cases: what the agents' other configuration layers and the files on disk do to
the policy (the effective-configuration checks, drift, the bundled examples' scopes)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from support.rule_cases import Case
from support.sandbox import REPO_ROOT, Sandbox

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def tree(source: Path, *first: tuple[str, ...]) -> Callable[[Sandbox], None]:
    """The repository replaced by ``source``'s files, then the commands ``first`` run in it."""

    def setup(box: Sandbox) -> None:
        shutil.rmtree(box.repo)
        shutil.copytree(source, box.repo, symlinks=True)
        (box.repo / ".git").mkdir(exist_ok=True)
        for args in first:
            assert box.run(*args).returncode in (0, 1), args

    return setup


CASES = [
    Case(
        "effective-planted-layers",
        {
            "TWS202": "home/.codex/legacy.config.toml:1:1",
            "TWS601": "home/.claude/settings.full.json:211:7",
            "TWS602": "home/.claude/settings.local.json:18:21",
            "TWS603": "home/.claude/settings.full.json:13:5",
            "TWS604": "home/.claude/settings.full.json:16:7",
            "TWS605": "home/.claude/settings.local.json:13:40",
            "TWS606": "home/.claude/settings.local.json:14:7",
            "TWS607": "home/.codex/wide.config.toml:3:1",
            "TWS609": "home/.claude/settings.full.json:6:7",
        },
        setup=tree(FIXTURES / "effective", ("generate", "-w")),
    ),
    Case(
        "example-project",
        {
            "TWS447": "twsrt.toml:10:2",
            "TWS449": "twsrt.toml:10:2",
            "TWS458": "policy/srt-settings.json:13:19",
        },
        setup=tree(REPO_ROOT / "examples" / "project"),
    ),
    Case(
        "example-managed",
        {
            "TWS450": "policy/srt-settings.json:6:5",
        },
        setup=tree(REPO_ROOT / "examples" / "managed"),
    ),
    Case("example-drift", {}, setup=tree(REPO_ROOT / "examples" / "broken" / "drift")),
]


FULL = "home/.claude/settings.full.json"


def generated_then(change: Callable[[Sandbox, dict], None]) -> Callable[[Sandbox], None]:
    """``generate -w`` with the default sandbox, then ``change`` (box, settings) to the
    generated Claude settings, written back."""

    def setup(box: Sandbox) -> None:
        assert box.run("generate", "-w").returncode == 0
        settings = json.loads((box.repo / FULL).read_text(encoding="utf-8"))
        change(box, settings)
        box.write(FULL, settings)

    return setup


def added_by_hand(box: Sandbox, settings: dict) -> None:
    settings["permissions"]["deny"].append("Bash(x)")


def reordered(box: Sandbox, settings: dict) -> None:
    settings["permissions"]["deny"].reverse()


def policy_grew(box: Sandbox, settings: dict) -> None:
    box.write("bash-rules.json", {"deny": ["rm", "sudo", "curl"]})


def link_broken(box: Sandbox, settings: dict) -> None:
    link = box.repo / "home/.claude/settings.json"
    link.unlink()
    link.symlink_to("settings.gone.json")


DRIFT_CASES = [
    Case(
        "drift-out-of-band",
        {
            "TWS303": "home/.claude/settings.full.json:191:1",
        },
        (("check",),),
        setup=generated_then(added_by_hand),
    ),
    Case(
        "drift-changed",
        {
            "TWS304": "home/.claude/settings.full.json:4:1",
        },
        (("check",),),
        setup=generated_then(reordered),
    ),
    Case(
        "drift-unapplied",
        {
            "TWS302": "home/.claude/settings.full.json:45:1",
        },
        (("check",),),
        setup=generated_then(policy_grew),
    ),
    Case(
        "drift-broken-symlink",
        {
            "TWS305": "home/.claude/settings.json",
        },
        (("check",),),
        setup=generated_then(link_broken),
    ),
]
CASES += DRIFT_CASES


def host_file(relative: str, text: str) -> Callable[[Sandbox], None]:
    """A file of this host's managed layer (``TWSRT_MANAGED_ROOT`` stands in for ``/``)."""

    def setup(box: Sandbox) -> None:
        path = box.home.parent / "host-root" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    return setup


def generate(box: Sandbox) -> None:
    assert box.run("generate", "-w").returncode == 0


def steps(*each: Callable[[Sandbox], None]) -> Callable[[Sandbox], None]:
    def setup(box: Sandbox) -> None:
        for step in each:
            step(box)

    return setup


CLAUDE_MANAGED = {
    "allowManagedPermissionRulesOnly": True,
    "permissions": {"deny": ["Bash(rm)"]},
    "sandbox": {
        "enabled": True,
        "filesystem": {"allowWrite": ["/srv"]},
        "network": {"allowedDomains": ["evil.example.org"]},
    },
}
CODEX_TARGET = (
    'checkout = "~/dotfiles"\n[sources]\nsrt = ".srt-settings.json"\n'
    'bash_rules = "bash-rules.json"\n\n[targets]\ncodex_config = "home/.codex/config.toml"\n'
)
CODEX_WIDE = 'sandbox_mode = "danger-full-access"\ndefault_permissions = "other"\n'

CASES += [
    Case(
        "claude-managed-layer",
        {
            "TWS610": "home/.claude/settings.full.json:3:5",
            "TWS611": "host-root/etc/claude-code/managed-settings.json:1:141",
            "TWS612": "host-root/etc/claude-code/managed-settings.json:1:2",
        },
        setup=steps(
            tree(FIXTURES / "effective", ("generate", "-w")),
            host_file("etc/claude-code/managed-settings.json", json.dumps(CLAUDE_MANAGED)),
        ),
    ),
    Case(
        "codex-managed-config",
        {
            "TWS613": "home/.codex/config.toml:1:1",
            "TWS614": "host-root/etc/codex/managed_config.toml:1:1",
            "TWS615": "host-root/etc/codex/managed_config.toml:2:1",
        },
        files={"twsrt.toml": CODEX_TARGET},
        setup=steps(
            generate,
            host_file("etc/codex/managed_config.toml", CODEX_WIDE),
        ),
    ),
]
