"""Properties of Claude Code's managed file over generated policies, in every sandbox mode.

The managed file is the user file's full mode (deny and ask rules, WebFetch allows, sandbox)
plus the binding keys; relative sandbox paths are kept there (Claude anchors them at the working
directory, as srt does), where the user file leaves relative grants out. So, for any policy:
every rule and sandbox value of the user file is in the managed file; every grant of the
managed file comes from the policy; the binding keys are always set; and merging into any
administrator's file keeps their other keys and is idempotent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support.strategies import bash_rules, srt_settings

from twsrt.agents.base import Context
from twsrt.agents.claude.agent import merged_text, translate
from twsrt.agents.claude.managed import BINDING, SETTINGS_SHAPES, managed_merge, managed_translation
from twsrt.agents.settingsmerge import splice_settings
from twsrt.config import SANDBOX_MODES, Config
from twsrt.jsonpos import parse_json
from twsrt.protection import protected_context, with_root_names
from twsrt.sources import build_policy

FAST = settings(max_examples=100, deadline=None)
GRANTS = ("allowWrite", "allowRead")


def context(srt: dict[str, Any], bash: dict[str, Any], sandbox_mode: str) -> Context:
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    config = Config(
        path=Path("twsrt.toml"),
        display="twsrt.toml",
        home=Path("/home/user"),
        srt=Path("srt.json"),
        bash_rules=Path("bash.json"),
        scope="managed",
        scope_root=Path("managed"),
    )
    return protected_context(config, policy, False, sandbox_mode)


def managed_file(ctx: Context, base: str | None = None) -> str:
    managed, _findings = managed_translation(ctx)
    return splice_settings(
        base, "managed-settings.json", SETTINGS_SHAPES, lambda doc: managed_merge(doc, managed)
    )


def user_file(ctx: Context) -> dict[str, Any]:
    managed, _findings = translate(ctx.policy, False, {}, ctx.sandbox_mode)
    return json.loads(merged_text(None, "settings.json", managed))


def at(document: dict[str, Any], pointer: str) -> Any:
    node: Any = document
    for part in pointer.strip("/").split("/"):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def srt_entries(srt: dict[str, Any], key: str) -> list[str]:
    items = srt.get("filesystem", {}).get(key, [])
    return [item["path"] if isinstance(item, dict) else item for item in items]


@FAST
@given(srt=srt_settings(), bash=bash_rules(), mode=st.sampled_from(SANDBOX_MODES))
def test_the_managed_file_holds_the_user_files_floor_and_binds_it(srt, bash, mode):
    ctx = context(srt, bash, mode)
    managed = json.loads(managed_file(ctx))
    user = user_file(ctx)
    for pointer, value in BINDING.items():
        assert at(managed, pointer) == value, pointer
    for kind in ("deny", "ask", "allow"):
        assert managed["permissions"].get(kind) == user["permissions"].get(kind), kind
    for key, value in user["sandbox"].items():
        if key in ("network", "filesystem"):
            continue
        if key == "enabled" and value is False:  # left to the users (TWS451)
            assert key not in managed["sandbox"]
            continue
        assert managed["sandbox"][key] == value, key
    for section in ("network", "filesystem"):
        mine = managed["sandbox"].get(section, {})
        for key, value in user["sandbox"].get(section, {}).items():
            if isinstance(value, list) and section == "filesystem":
                assert set(value) <= set(mine[key]), key  # relative entries join them
            else:
                assert mine[key] == value, key


@FAST
@given(srt=srt_settings(), bash=bash_rules(), mode=st.sampled_from(SANDBOX_MODES))
def test_every_grant_of_the_managed_file_comes_from_the_policy(srt, bash, mode):
    ctx = context(srt, bash, mode)
    sandbox = json.loads(managed_file(ctx))["sandbox"]
    filesystem = sandbox.get("filesystem", {})
    for key in GRANTS:
        assert set(filesystem.get(key, [])) <= set(srt_entries(srt, key)), key
    if mode == "read-only":
        assert "allowWrite" not in filesystem
    allowed = sandbox.get("network", {}).get("allowedDomains", [])
    assert set(allowed) <= set(srt.get("network", {}).get("allowedDomains", []))
    if sandbox.get("enabled"):
        assert sandbox["allowUnsandboxedCommands"] is False
        assert sandbox["failIfUnavailable"] is True


admin_value = st.one_of(st.booleans(), st.integers(), st.text(max_size=8))
admin_document = st.dictionaries(
    st.sampled_from(["model", "env", "hooks", "companyAnnouncements", "cleanupPeriodDays"]),
    admin_value,
    max_size=4,
)


@FAST
@given(srt=srt_settings(), bash=bash_rules(), admin=admin_document)
def test_merging_keeps_the_administrators_keys_and_is_idempotent(srt, bash, admin):
    ctx = context(srt, bash, "workspace-write")
    fresh = managed_file(ctx)
    merged = managed_file(ctx, json.dumps(admin, indent=2) + "\n")
    document = json.loads(merged)
    for key, value in admin.items():
        assert document[key] == value, key
    assert {k: v for k, v in document.items() if k not in admin} == json.loads(fresh)
    assert managed_file(ctx, merged) == merged
