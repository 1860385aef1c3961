"""The attacks across launches ``twsrt test`` derives (``twsrt.testing.launches``): planted
config layers, a linked settings directory unlinked or replaced, the protected set written,
srt's mandatory-deny names written, a deny's ancestor renamed aside. Every name comes from the
registry and the protected set; the host-side judging runs with a plain shell standing in for
a sandbox that refuses nothing (every attack takes effect: what today's compile lets through)
and for one that refuses everything."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.policies import make_policy
from support.sandbox import Sandbox

from twsrt.agents import config_layers
from twsrt.agents.claude.engine import ClaudeEngine
from twsrt.agents.codex.engine import CodexEngine
from twsrt.mandatory import GIT_PROTECTED, MANDATORY_DIRS, MANDATORY_FILES
from twsrt.testing.batches import batches, observe_all
from twsrt.testing.engine_srt import SrtEngine
from twsrt.testing.launches import FAMILIES, launch_attacks, runs_attack
from twsrt.testing.model import Outcome

SRT = {
    "filesystem": {
        "denyRead": ["~/.aws", "app/keys/id"],
        "denyWrite": ["~/dev/app/locked"],
        "allowWrite": [".", "~/dev"],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}


def attacks_of(sandbox: Sandbox, srt: dict[str, Any] = SRT, config: str = "") -> list[Any]:
    from twsrt.invocation import context, find_config
    from twsrt.sources import load_policy

    sandbox.write(".srt-settings.json", srt)
    if config:
        sandbox.write("twsrt.toml", config)
    found = find_config(str(sandbox.repo / "twsrt.toml"), repo_names=True)
    ctx = context(found, load_policy(found), False, None)
    return launch_attacks(ctx.config, ctx.written)  # the policy as written, as run_tests


def by_kind(attacks: list[Any], kind: str) -> list[Any]:
    return [a for a in attacks if a.kind == kind]


EVERY_AGENT = """\
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[targets]
claude_settings = "home/.claude/settings.json"
codex_config = "home/.codex/config.toml"
copilot_settings = "home/.copilot/settings.json"
deepcode_settings = "home/.deepcode/settings.json"
gemini_settings = "home/.gemini/settings.json"
qwen_settings = "home/.qwen/settings.json"
opencode_config = "home/.config/opencode/opencode.json"
kilo_config = "home/.config/kilo/kilo.jsonc"
pi_sandbox = "home/.pi/agent/extensions/sandbox.json"
droid_settings = "home/.factory/settings.json"
"""


def test_every_project_layer_of_every_targeted_agent_is_planted_one_and_three_deep(
    sandbox: Sandbox,
) -> None:
    claude_only = {a.rule for a in by_kind(attacks_of(sandbox), "plant-layer")}
    assert claude_only == {p.path for a, p in config_layers("project") if a == "claude"}
    planted = by_kind(attacks_of(sandbox, config=EVERY_AGENT), "plant-layer")
    layers = {layer.path for _, layer in config_layers("project")}
    assert {a.rule for a in planted} == layers  # the registry's names, each of them
    forms = {a.form for a in planted}
    assert forms == {"launch one", "launch three", "~/dev one", "~/dev three"}
    assert len(planted) == len(layers) * len(forms)
    one = next(a for a in planted if a.name == "plant-layer .codex/config.toml [~/dev one create]")
    assert one.subject.startswith("home/dev/tw-sub-") and one.subject.endswith(
        "/.codex/config.toml"
    )
    assert one.subject.count("/") == 4  # home/dev/SUB/.codex/config.toml: one below the root
    three = next(
        a for a in planted if a.name == "plant-layer .claude/commands [launch three create]"
    )
    assert three.subject.split("/")[2:5] == ["tw-b", "tw-c", ".claude"]
    assert three.subject.endswith("/.claude/commands/tw-planted")  # a directory layer
    # the origin is where check reports a write root the agent cannot protect below its top
    assert str(one.origin).startswith(".srt-settings.json:")
    assert one.origin.pointer == "/filesystem/allowWrite/1"
    assert all(a.expect is Outcome.DENIED and a.effect == "exists" for a in planted)
    assert len(batches(planted)) == 1  # no two touch one path: one sandbox start


def test_srt_mandatory_names_are_written_in_the_launch_directory_and_each_root(
    sandbox: Sandbox,
) -> None:
    mandatory = by_kind(attacks_of(sandbox), "mandatory")
    assert {a.rule for a in mandatory} == {*MANDATORY_FILES, *MANDATORY_DIRS, *GIT_PROTECTED}
    bashrc = {a.name: a.subject for a in mandatory if a.rule == ".bashrc"}
    assert bashrc == {
        "mandatory .bashrc [launch top create]": "work/.bashrc",
        "mandatory .bashrc [launch top append]": "work/.bashrc",
        "mandatory .bashrc [launch one append]": "work/tw-sub-m/.bashrc",
        "mandatory .bashrc [~/dev top create]": "home/dev/.bashrc",
        "mandatory .bashrc [~/dev top append]": "home/dev/.bashrc",
    }
    hooks = [a for a in mandatory if a.rule == ".git/hooks" and a.form == "~/dev nested"]
    assert [a.subject for a in hooks] == [hooks[0].subject]
    assert hooks[0].subject.endswith("/.git/hooks/pre-commit")
    assert hooks[0].files[0][0].endswith("/.git/HEAD")  # a repository, as srt's scan finds one


def test_a_deny_below_a_write_root_has_its_ancestor_swapped(sandbox: Sandbox) -> None:
    swapped = by_kind(attacks_of(sandbox), "rename-ancestor")
    assert {a.name: (a.subject, a.touches[0]) for a in swapped} == {
        "rename-ancestor ~/dev/app/locked [app swap-ancestor]": (
            "home/dev/app/locked/tw-anc",
            "home/dev/app",
        ),
        "rename-ancestor app/keys/id [app swap-ancestor]": ("work/app/keys/id/tw-anc", "work/app"),
    }  # ~/.aws lies in no write root: nothing to rename


def test_protected_paths_inside_a_write_root_are_written(sandbox: Sandbox) -> None:
    """With ~ a write root, the protected set lies inside it (the checkout, every agent's user
    config directory, the denyRead ~/.aws): each is attacked as the tree it is; with . and
    ~/dev, only the denyRead app/keys/id in the launch directory (a secret is not overwritten
    or swapped either)."""
    assert {a.name for a in by_kind(attacks_of(sandbox), "protected")} == {
        "protected app/keys/id [tree create]",
        "protected app/keys/id [tree append]",
        "protected app/keys/id [tree rename-aside]",
    }
    wide = json.loads(json.dumps(SRT))
    wide["filesystem"]["allowWrite"] = ["~"]
    protected = by_kind(attacks_of(sandbox, wide), "protected")
    paths = {a.rule for a in protected}
    assert {"~/dotfiles", "~/.claude", "~/.codex", "~/.aws"} <= paths
    assert {a.attack for a in protected if a.rule == "~/.codex"} == {
        "create",
        "append",
        "rename-aside",
    }
    single = {a.rule: a.attack for a in protected if a.form == "file"}
    assert single.get("~/.claude.json") in ("append", "replace")  # a file: appended, replaced


def test_a_linked_settings_directory_is_unlinked_and_replaced(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(sandbox.home))  # the machine's home the links are looked for in
    assert by_kind(attacks_of(sandbox), "relink") == []  # nothing is a link on this "machine"
    (sandbox.home / "dotfiles-home" / ".claude").mkdir(parents=True)
    (sandbox.home / ".claude").symlink_to(sandbox.home / "dotfiles-home" / ".claude")
    relinks = by_kind(attacks_of(sandbox), "relink")
    assert [a.name for a in relinks] == [
        "relink ~/.claude [launch unlink-link]",
        "relink ~/.claude [launch relink]",
        "relink ~/.claude [~ unlink-link]",
        "relink ~/.claude [~ relink]",
    ]
    assert [a.subject for a in relinks] == ["work/.claude"] * 2 + ["home/.claude"] * 2


def test_srt_runs_only_its_own_families_in_the_launch_directory(sandbox: Sandbox) -> None:
    attacks = attacks_of(sandbox)
    srt = {(a.kind, a.form.split()[0]) for a in attacks if runs_attack(SrtEngine(), a)}
    assert srt == {("mandatory", "launch"), ("rename-ancestor", "app")}
    for engine in (ClaudeEngine(), CodexEngine()):
        assert all(runs_attack(engine, a) for a in attacks)
    assert {a.kind for a in attacks} == set(FAMILIES) - {"relink"}


class Shell:
    """``sh -c`` on the host: no sandbox (``elsewhere``: the script's ROOT moved to an empty
    directory, as a sandbox would keep every write from the host tree)."""

    def __init__(self, elsewhere: Path | None = None) -> None:
        self.elsewhere = elsewhere

    def __call__(self, script: str) -> Any:
        if self.elsewhere is not None:
            first, rest = script.split("\n", 1)
            script = f"R={self.elsewhere}\n{rest}"
        proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=False)
        return Ran(proc.returncode, proc.stdout + proc.stderr)


class Ran:
    def __init__(self, exit_code: int, output: str) -> None:
        self.exit_code, self.output, self.seconds = exit_code, output, 0.0


@pytest.mark.parametrize("kind", ["plant-layer", "mandatory", "rename-ancestor", "relink"])
def test_each_family_takes_effect_without_a_sandbox_and_not_in_one_that_refuses(
    sandbox: Sandbox, tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(sandbox.home))
    (sandbox.home / "dots" / ".codex").mkdir(parents=True)
    (sandbox.home / ".codex").symlink_to(sandbox.home / "dots" / ".codex")
    attacks = by_kind(attacks_of(sandbox), kind)
    assert attacks
    root, empty = tmp_path / "root", tmp_path / "empty"
    for part in ("home", "work", "fs", "outside"):
        (root / part).mkdir(parents=True)
    empty.mkdir()
    seen = observe_all(Shell(), Shell(), attacks, root)
    missed = [(a.name, o.output) for a, o, _ in seen if o.outcome is not Outcome.ALLOWED]
    assert missed == []  # every control takes effect on the host
    assert {s.outcome for _, _, s in seen if s} == {Outcome.ALLOWED}  # unsandboxed: all land
    refused = observe_all(Shell(), Shell(empty), attacks, root)
    assert {s.outcome for _, _, s in refused if s} == {Outcome.DENIED}


def test_a_planted_layer_is_a_gap_only_where_check_reports_it(sandbox: Sandbox) -> None:
    """A planted .claude/settings.json that took effect is explained by TWS628 only when check
    reports TWS628 in this run (the finding as check reports it); a planted
    .github/copilot/settings.json by nothing: a FAIL."""
    from twsrt.agents.claude.rules import CLAUDE_PLANTED_LAYERS
    from twsrt.findings import finding
    from twsrt.locations import Location
    from twsrt.rules import SRT_LINUX_WRITE_GLOB
    from twsrt.testing.gaps import Mismatch
    from twsrt.testing.launches import planted_layer_loadable

    attacks = {a.name: a for a in by_kind(attacks_of(sandbox, config=EVERY_AGENT), "plant-layer")}
    claude = attacks["plant-layer .claude/settings.json [launch one create]"]
    copilot = attacks["plant-layer .github/copilot/settings.json [launch one create]"]
    where = Location(".srt-settings.json", 6, 5, "/filesystem/allowWrite")
    reported = (
        finding(SRT_LINUX_WRITE_GLOB, "unrelated", where, agent="srt"),
        finding(CLAUDE_PLANTED_LAYERS, "a command can plant a layer", where, agent="claude"),
    )
    policy = make_policy(SRT)

    def gap(attack: Any, found: tuple[Any, ...], seen: Outcome = Outcome.ALLOWED) -> Any:
        return planted_layer_loadable(Mismatch("codex", attack, seen, policy, True, found))

    explained = gap(claude, reported)
    assert (explained.rule_id, explained.message, explained.location, explained.agent) == (
        "TWS628",
        "a command can plant a layer",
        where,
        "codex",
    )
    assert gap(claude, reported[:1]) is None  # check does not report it: no gap
    assert gap(copilot, reported) is None  # no agent's check says Copilot's can be planted
    assert gap(claude, reported, Outcome.DENIED) is None


def test_the_planted_layer_rules_are_the_declarations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each agent's planted-layer rules come from its declaration (``planted_layer_rules``), so
    an agent that names none (the toy agent: the field's default) has none, with no edit here."""
    from twsrt.agents import REGISTRY
    from twsrt.agents.claude.rules import CLAUDE_PLANTED_LAYERS
    from twsrt.agents.codex.rules import CODEX_NESTED_UNPROTECTED
    from twsrt.agents.copilot.rules import COPILOT_MANDATORY_NAMES_OPEN
    from twsrt.agents.deepcode.rules import DEEPCODE_MANDATORY_NAMES_OPEN
    from twsrt.agents.droid.rules import DROID_NESTED_LAYERS_OPEN
    from twsrt.agents.gemini.rules import GEMINI_MANDATORY_NAMES_OPEN
    from twsrt.agents.kilo.rules import KILO_WORKSPACE_OPEN
    from twsrt.agents.opencode.rules import OPENCODE_NO_SANDBOX
    from twsrt.agents.pi.rules import PI_PLANTED_LAYERS
    from twsrt.agents.qwen.rules import QWEN_PROJECT_LAYER_OPEN
    from twsrt.testing.launches import layer_rules

    monkeypatch.setitem(REGISTRY, "toy", "support.toyagent")
    assert layer_rules() == {
        "claude": (CLAUDE_PLANTED_LAYERS,),
        "codex": (CODEX_NESTED_UNPROTECTED,),
        "copilot": (COPILOT_MANDATORY_NAMES_OPEN,),
        "deepcode": (DEEPCODE_MANDATORY_NAMES_OPEN,),
        "gemini": (GEMINI_MANDATORY_NAMES_OPEN,),
        "qwen": (QWEN_PROJECT_LAYER_OPEN,),
        "opencode": (OPENCODE_NO_SANDBOX,),
        "kilo": (KILO_WORKSPACE_OPEN,),
        "pi": (PI_PLANTED_LAYERS,),
        "droid": (DROID_NESTED_LAYERS_OPEN,),
        "toy": (),
    }


def test_a_planted_deepcode_layer_is_a_gap_only_where_check_reports_tws472(
    sandbox: Sandbox,
) -> None:
    """Whoever plants sub/.deepcode/settings.json, a DeepCode started in sub/ loads it: the
    gap is DeepCode's TWS472 (its mitigation, srt around DeepCode, bounds that launch)."""
    from twsrt.agents.deepcode.rules import DEEPCODE_MANDATORY_NAMES_OPEN
    from twsrt.findings import finding
    from twsrt.locations import Location
    from twsrt.testing.gaps import Mismatch
    from twsrt.testing.launches import planted_layer_loadable

    attacks = {a.name: a for a in by_kind(attacks_of(sandbox, config=EVERY_AGENT), "plant-layer")}
    planted = attacks["plant-layer .deepcode/settings.json [launch one create]"]
    where = Location(".srt-settings.json", 6, 5, "/filesystem/allowWrite")
    reported = (finding(DEEPCODE_MANDATORY_NAMES_OPEN, "open", where, agent="deepcode"),)
    policy = make_policy(SRT)
    seen = Mismatch("claude", planted, Outcome.ALLOWED, policy, True, reported)
    assert planted_layer_loadable(seen).rule_id == "TWS472"
    unexplained = Mismatch("claude", planted, Outcome.ALLOWED, policy, True, ())
    assert planted_layer_loadable(unexplained) is None


def test_the_mandatory_set_below_another_write_root_is_claudes_tws629(
    sandbox: Sandbox,
) -> None:
    """A nested repository's hooks created below /tmp under Claude are explained by TWS629 at
    /tmp's entry only; at the launch directory (srt protects it) or without the finding: FAIL."""
    from twsrt.agents.claude.engine import below_other_roots
    from twsrt.agents.claude.rules import CLAUDE_NESTED_UNPROTECTED
    from twsrt.findings import finding
    from twsrt.testing.gaps import Mismatch

    srt = {"filesystem": {"allowWrite": [".", "/tmp"]}}
    attacks = by_kind(attacks_of(sandbox, srt, EVERY_AGENT), "mandatory")
    at_tmp = next(a for a in attacks if a.rule == ".git/hooks" and "[/tmp nested" in a.name)
    policy = make_policy(srt)
    reported = (finding(CLAUDE_NESTED_UNPROTECTED, "nested", at_tmp.origin, agent="claude"),)

    def gap(attack: Any, found: tuple[Any, ...]) -> Any:
        return below_other_roots(Mismatch("claude", attack, Outcome.ALLOWED, policy, True, found))

    assert gap(at_tmp, reported).rule_id == "TWS629"
    assert gap(at_tmp, ()) is None
    top = next(a for a in attacks if a.rule == ".git/hooks" and "[/tmp top" in a.name)
    assert gap(top, reported) is None  # the top is protected: open there, it FAILs
    in_launch = [a for a in attacks if a.origin != at_tmp.origin]
    assert in_launch
    assert [a.name for a in in_launch if gap(a, reported) is not None] == []
