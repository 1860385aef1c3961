"""The Claude and DeepCode settings merges copy only the user's members they keep
(``settingsmerge.copy_for_merge``), and still return exactly what the old merges that
deep-copied the whole user object returned (``tests/support/oracle_deepcode.py``), key order
included, without sharing a list or object with the user's document or the managed content."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support import oracle_deepcode as oracle
from support.strategies import compilable_bash_rules, compilable_srt_settings

from twsrt.agents.claude import agent as claude
from twsrt.agents.claude import declaration as claude_declaration
from twsrt.agents.deepcode import agent as deepcode
from twsrt.agents.deepcode import declaration as deepcode_declaration
from twsrt.findings import TwsrtError
from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy

MODES = ("read-only", "workspace-write", "danger-full-access")
leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from(["a", "Bash(ls)", "WebFetch(domain:a.com)", "Edit(/x)"]),
)
value = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner)
    ),
    max_leaves=6,
)


@st.composite
def user_object(draw: st.DrawFn, members: dict[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    """Some of ``members`` (each drawn from its strategy), in any order."""
    names = draw(st.lists(st.sampled_from(sorted(members)), unique=True))
    return {name: draw(members[name]) for name in names}


def settings_file(sandbox_keys: tuple[str, ...], sections: dict[str, tuple[str, ...]]) -> Any:
    """A user's settings object: managed and foreign members, lists holding objects too."""
    rules = st.lists(st.one_of(leaf, value), max_size=4)
    permissions = user_object(
        {"deny": rules, "ask": rules, "allow": rules, "defaultMode": leaf, "extra": value}
    )
    subs = {
        name: user_object({**dict.fromkeys(keys, value), "mine": value})
        for name, keys in sections.items()
    }
    sandbox = user_object({**dict.fromkeys(sandbox_keys, value), **subs, "mine": value})
    return user_object({"permissions": st.one_of(st.none(), permissions), "sandbox": sandbox})


def _policy(srt: dict[str, Any], bash: dict[str, list[str]]) -> Any:
    srt_doc, bash_doc = parse_json(json.dumps(srt)), parse_json(json.dumps(bash))
    return with_root_names(build_policy(srt_doc, "srt.json", bash_doc, "bash.json"))


def _mutate(node: Any) -> None:
    """Change every list and object of a merge result in place."""
    if isinstance(node, dict):
        for item in list(node.values()):
            _mutate(item)
        node["__mutated"] = True
    elif isinstance(node, list):
        for item in list(node):
            _mutate(item)
        node.append("__mutated")


def assert_same_and_separate(new: Any, old: Any, *sources: Any) -> None:
    """``new`` equals ``old`` byte for byte as JSON, and changing it changes no source."""
    assert json.dumps(new) == json.dumps(old)
    before = [json.dumps(source) for source in sources]
    _mutate(new)
    assert [json.dumps(source) for source in sources] == before


CLAUDE_OVERRIDES = st.dictionaries(
    st.sampled_from(["autoAllowBashIfSandboxed", "allowUnsandboxedCommands", "excludedCommands"]),
    st.one_of(st.booleans(), st.just(["docker"])),
)
CLAUDE_FILE = settings_file(
    (*claude_declaration.TOP_KEYS, *claude_declaration.CLAUDE_ONLY_KEYS),
    {"network": claude_declaration.NETWORK_KEYS, "filesystem": claude_declaration.FILESYSTEM_KEYS},
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    compilable_srt_settings(),
    compilable_bash_rules(),
    st.booleans(),
    CLAUDE_OVERRIDES,
    st.sampled_from(MODES),
    CLAUDE_FILE,
)
def test_claude_merge_equals_the_copying_one(
    srt: dict[str, Any],
    bash: dict[str, list[str]],
    yolo: bool,
    overrides: dict[str, Any],
    mode: str,
    existing: dict[str, Any],
) -> None:
    managed, _ = claude.translate(_policy(srt, bash), yolo, overrides, mode)
    old = oracle.claude_merge(existing, managed)
    new = claude.merge(existing, managed)
    assert_same_and_separate(new, old, existing, managed.fragment())


DEEPCODE_FILE = settings_file(
    ("mode", *deepcode_declaration.LEGACY_KEYS, "excludedCommands"),
    {"filesystem": deepcode_declaration.FS_KEYS, "network": deepcode_declaration.NET_KEYS},
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    compilable_srt_settings(),
    compilable_bash_rules(),
    st.booleans(),
    st.sampled_from(MODES),
    DEEPCODE_FILE,
)
def test_deepcode_merge_equals_the_copying_one(
    srt: dict[str, Any],
    bash: dict[str, list[str]],
    yolo: bool,
    mode: str,
    existing: dict[str, Any],
) -> None:
    try:
        managed, _ = deepcode.translate(_policy(srt, bash), yolo, mode, "/home/u")
    except TwsrtError:
        assume(False)  # a disabled policy outside danger-full-access is refused, not merged
        raise
    old = oracle.deepcode_merge(existing, managed)
    new = deepcode.merge(existing, managed)
    assert_same_and_separate(new, old, existing, managed.fragment())
