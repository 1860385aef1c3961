"""A property over generated policies: for every agent and sandbox mode, every path of the
protected set (twsrt/protection.py) is in that agent's compiled write denies, or a finding says
it is not: at error level for the policy and the agents' own layers; for a denyRead path (its
write deny restates the read deny) the read deny's own finding at that entry."""

from __future__ import annotations

import json
import posixpath
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from support.strategies import compilable_bash_rules, compilable_srt_settings

from twsrt.agents import AGENTS
from twsrt.config import SANDBOX_MODES, Config
from twsrt.findings import Finding, TwsrtError
from twsrt.jsonpos import parse_json
from twsrt.policy import is_glob, normalize_path
from twsrt.protection import Protected, protected_context, protected_set, with_root_names
from twsrt.rules import DANGER_FULL_ACCESS
from twsrt.sources import build_policy
from twsrt.writes import FileWrite

PROPS = settings(max_examples=40, deadline=None)
ROOT = Path("/nonexistent-twsrt-protect")
HOME = "/home/user"
TARGETS = {
    "claude_settings": ROOT / "home/.claude/settings.full.json",
    "codex_config": ROOT / "home/.codex/config.toml",
    "copilot_settings": ROOT / "home/.copilot/settings.json",
    "deepcode_settings": ROOT / "home/.deepcode/settings.json",
}
CHECKOUTS = st.sampled_from(["~/dotfiles", "~/dev/policy", "/srv/policy", "~/.config/twsrt"])


def _config(checkout: str) -> Config:
    return Config(
        path=ROOT / "twsrt.toml",
        display="twsrt.toml",
        home=Path(HOME),
        srt=ROOT / "srt.json",
        bash_rules=ROOT / "bash.json",
        targets=dict(TARGETS),
        pinned_home=HOME,
        checkout=checkout,
    )


def _expand(path: str) -> str:
    return HOME + path[1:] if path == "~" or path.startswith("~/") else path


def _held(path: str, denied: set[str]) -> bool:
    """``path`` or a directory above it (spelled alike) is denied."""
    if path == "/" or "/" in denied and path.startswith("/"):  # the root holds every path
        return "/" in denied
    parts = path.rstrip("/").split("/")
    return any("/".join(parts[:end]) in denied for end in range(1, len(parts) + 1))


def _denied(agent: str, text: str) -> set[str]:
    """The paths a compiled file denies for writing, spelled as the file spells them."""
    if agent == "codex":
        profile = tomllib.loads(text)["permissions"]["twsrt"]["filesystem"]
        # Codex names the file system's root ":root"
        out = {"/" if k == ":root" else k for k, v in profile.items() if v in ("read", "deny")}
        if profile.get(":workspace_roots") in ("read", "deny"):
            out.add(".")  # the launch directory itself, as a relative "." names it
        for value in profile.values():
            if isinstance(value, dict):
                out |= {k for k, mode in value.items() if mode in ("read", "deny")}
        return out
    data = json.loads(text)
    if agent == "claude":
        edits = {
            rule[len("Edit(") : -1].removesuffix("/**")
            for rule in data["permissions"]["deny"]
            if rule.startswith("Edit(")
        }
        # Claude spells an absolute path //P in a rule; srt keeps a written trailing slash
        edits = {"/" + e[2:] if e.startswith("//") else e for e in edits}
        return _unslashed(edits | set(data["sandbox"]["filesystem"].get("denyWrite", [])))
    if agent == "copilot":
        filesystem = data["sandbox"]["userPolicy"]["filesystem"]
        return {*filesystem.get("readonlyPaths", []), *filesystem.get("deniedPaths", [])}
    return _unslashed(set(data["sandbox"]["filesystem"].get("denyWrite", [])))


def _unslashed(paths: set[str]) -> set[str]:
    """A directory as the policy may write it, ``/0/``, is the path ``/0``."""
    return {p.rstrip("/") or "/" for p in paths}


def _reported(item: Protected, findings: list[Finding]) -> bool:
    if item.kind == "secret":  # the denyRead entry's own finding says what the agent loses
        return any(f.location == item.origin for f in findings)
    return any(f.level.value == "error" and item.path in f.message for f in findings)


@PROPS
@given(
    srt=compilable_srt_settings(),
    bash=compilable_bash_rules(),
    checkout=CHECKOUTS,
    mode=st.sampled_from(SANDBOX_MODES),
    yolo=st.booleans(),
)
@example(  # found by hypothesis: the root and the launch directory denied for reading
    srt={"filesystem": {"denyRead": [".", "/"]}},
    bash={},
    checkout="~/dotfiles",
    mode="read-only",
    yolo=False,
)
@example(  # found by hypothesis: a denyRead directory also denied for writing with a slash
    srt={"filesystem": {"denyRead": ["/0"], "denyWrite": ["~/0", "/0/"]}},
    bash={},
    checkout="~/dotfiles",
    mode="read-only",
    yolo=False,
)
@example(  # found by hypothesis: a relative denyRead spelled with ./
    srt={"filesystem": {"denyRead": ["./x"]}},
    bash={},
    checkout="~/dotfiles",
    mode="read-only",
    yolo=False,
)
def test_every_protected_path_is_denied_for_writing_or_reported(
    srt: dict[str, Any], bash: dict[str, Any], checkout: str, mode: str, yolo: bool
) -> None:
    config = _config(checkout)
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    protected = protected_set(config, policy)
    assert normalize_path(checkout) in {item.path for item in protected}
    for agent in ("claude", "codex", "copilot", "deepcode"):
        try:
            result = AGENTS[agent].compile(protected_context(config, policy, yolo, mode))
        except TwsrtError:
            assume(False)  # refused for the policy itself (a disabled sandbox), not the set
            raise
        if mode == "danger-full-access":
            # no sandbox enforces any path: the run's own finding says so for the whole set
            assert any(f.rule_id == DANGER_FULL_ACCESS.id for f in result.findings), agent
            continue
        files = [c for c in result.changes if isinstance(c, FileWrite)]
        [text] = [c.text for c in files if c.path == _target(agent, yolo)]
        denied = _denied(agent, text)
        absolute = agent in ("copilot", "deepcode")
        for item in protected:
            if is_glob(item.path):
                continue  # a glob denyRead is the read deny's business (TWS407/TWS412/TWS501)
            # the compiled files spell a relative path without its ./ (./x as x)
            spelled = posixpath.normpath(_expand(item.path) if absolute else item.path)
            assert _held(spelled, denied) or _reported(item, result.findings), (agent, item)


def _target(agent: str, yolo: bool) -> Path:
    path = TARGETS[f"{agent}_settings" if agent != "codex" else "codex_config"]
    if yolo and agent in ("claude", "deepcode"):
        return path.with_name(path.name.replace(".full", "").replace(".json", ".yolo.json"))
    return path
