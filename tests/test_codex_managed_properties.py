"""Properties of Codex's managed files over generated policies, in every sandbox mode.

The managed profile is the user translation's profile (whose own properties hold elsewhere), so
the managed layer never grants more than the user file twsrt writes; the allowed sandbox modes
never reach past the policy's mode; every bash deny is a ``forbidden`` requirement and every ask
at least a ``prompt``; the managed config selects the bound profile.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.strategies import compilable_bash_rules, compilable_srt_settings

from twsrt.agents.codex.agent import AGENT
from twsrt.agents.codex.translate import command_tokens
from twsrt.config import SANDBOX_MODES, Config
from twsrt.findings import TwsrtError
from twsrt.jsonpos import parse_json
from twsrt.protection import protected_context, with_root_names
from twsrt.sources import build_policy

PROPS = settings(max_examples=60, deadline=None)
ROOT = Path("/nonexistent-twsrt-managed")
WIDTH = {mode: index for index, mode in enumerate(SANDBOX_MODES)}
# where Codex reads it, so the user run protects no place the managed run cannot know of
USER = {"codex_config": Path("/home/user/.codex/config.toml")}
MANAGED = {
    "codex_requirements_linux": ROOT / "out" / "linux" / "etc" / "codex" / "requirements.toml",
    "codex_managed_config_linux": ROOT / "out" / "linux" / "etc" / "codex" / "managed_config.toml",
}


def _files(srt: dict, bash: dict, mode: str, scope: str) -> dict[str, dict[str, Any]]:
    config = Config(
        path=ROOT / "twsrt.toml",
        display="twsrt.toml",
        home=Path("/home/user"),
        srt=ROOT / "srt.json",
        bash_rules=ROOT / "bash.json",
        targets=dict(MANAGED if scope == "managed" else USER),
        pinned_home="/home/user",
        scope=scope,
        scope_root=ROOT / "out" if scope == "managed" else None,
    )
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    try:
        result = AGENT.compile(protected_context(config, policy, sandbox_mode=mode))
    except TwsrtError:
        assume(False)  # refused for every scope alike (a disabled sandbox, an unsplittable rule)
        raise
    return {change.path.name: tomllib.loads(change.text) for change in result.changes}


@PROPS
@given(
    srt=compilable_srt_settings(),
    bash=compilable_bash_rules(),
    mode=st.sampled_from(SANDBOX_MODES),
)
def test_the_managed_layer_binds_the_user_translation(srt, bash, mode):
    managed = _files(srt, bash, mode, "managed")
    user = _files(srt, bash, mode, "user")["config.toml"]
    requirements, defaults = managed["requirements.toml"], managed["managed_config.toml"]
    allowed = requirements["allowed_sandbox_modes"]
    assert "read-only" in allowed
    assert all(WIDTH[item] <= WIDTH[mode] for item in allowed)
    assert set(requirements["allowed_approval_policies"]) <= {"on-request", "never"}
    assert requirements["allowed_approvals_reviewers"] == ["user"]
    bound = requirements["default_permissions"]
    assert requirements["allowed_permission_profiles"] == {bound: True}
    assert defaults["default_permissions"] == bound
    assert defaults["approvals_reviewer"] == "user" and defaults["allow_login_shell"] is False
    assert "approval_policy" not in defaults and "sandbox_mode" not in defaults
    if mode == "danger-full-access":
        assert bound == ":danger-full-access" and "permissions" not in requirements
    else:
        assert requirements["permissions"] == {bound: user["permissions"]["twsrt"]}
        proxy = user.get("features", {}).get("network_proxy", False)
        assert requirements.get("features", {}).get("network_proxy", False) == proxy


@PROPS
@given(srt=compilable_srt_settings(), bash=compilable_bash_rules())
def test_every_deny_is_forbidden_and_every_ask_at_least_prompted(srt, bash):
    requirements = _files(srt, bash, "workspace-write", "managed")["requirements.toml"]
    decisions: dict[tuple[str, ...], str] = {}
    for rule in requirements.get("rules", {}).get("prefix_rules", []):
        tokens = tuple(token["token"] for token in rule["pattern"])
        assert tokens and tokens not in decisions
        decisions[tokens] = rule["decision"]
    assert set(decisions.values()) <= {"forbidden", "prompt"}
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    denied = {command_tokens(entry) for entry in policy.bash_deny} - {()}
    asked = {command_tokens(entry) for entry in policy.bash_ask} - {()}
    assert {tokens: decisions.get(tokens) for tokens in denied} == dict.fromkeys(
        denied, "forbidden"
    )
    assert all(decisions.get(tokens) in ("forbidden", "prompt") for tokens in asked)
    assert set(decisions) == denied | asked
