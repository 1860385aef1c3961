"""The real Codex CLI (0.171.0) on twsrt's managed files, in a private /etc/codex.

Every run goes through ``private_etc``: bubblewrap binds a temporary directory at /etc/codex
(the real /etc is never written; parallel tests cannot see each other's files), and Codex reads
the generated ``requirements.toml`` and ``managed_config.toml`` there.

(a) every golden pair loads under ``--strict-config``; a misspelt managed_config.toml key and a
bad requirements value stop it (so the load check can fail), while requirements.toml ignores an
unknown key; (b) requirements.toml refuses a lower sandbox: a user ``sandbox_mode =
"danger-full-access"``, ``-s danger-full-access`` and ``-c default_permissions=...`` fall back
to the bound profile (a denied read fails, a write outside the roots fails, the workspace
stays writable), where the same user config without the managed layer reads the secret;
``codex doctor`` names the fallback; a user profile of the managed profile's name (in
config.toml or through ``-c``) stops Codex;
(c) the pinned proxy enforces the domain rules although the user turns it off; (d) in a model
turn against a fake Responses API (``codex_model``), ``codex exec`` refuses a command a
requirements rule forbids (and one a prompt rule guards, as exec never asks), which it runs
without the layer.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support.codex_managed import FILES, managed_texts, plant

from .codex_client import FETCH_SCRIPT, config_loads, doctor_report, sandbox_run
from .codex_model import tool_output
from .private_etc import private_etc

pytestmark = pytest.mark.real

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "codex-managed"
PAIRS = sorted(GOLDEN.glob("*/*requirements.toml"))

SRT = {
    "filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."]},
    "network": {"allowedDomains": ["127.0.0.1", "github.com"], "deniedDomains": []},
}
BASH = {"allow": [], "deny": ["sudo"], "ask": ["git push"]}
PROBE = (
    "cat ~/.aws/credentials; echo made > made.txt && echo WROTE-WORK; "
    "echo no > ~/outside.txt && echo WROTE-HOME"
)


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """A home with a secret, a workspace, and an /etc/codex stand-in holding the managed files
    compiled from SRT/BASH."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("twsrt-secret\n")
    work.mkdir()
    etc = plant(tmp_path / "etc-codex", managed_texts(SRT, BASH, tmp_path / "policy"))
    return {"home": home, "work": work, "etc": etc}


def _in_etc(
    codex: str, etc: Path, config: str, command: str, w: dict[str, Path], extra: Sequence[str] = ()
) -> tuple[int, str]:
    with private_etc(codex, {"codex": etc}, extra) as wrapped:
        return sandbox_run(wrapped, config, command, w["work"], w["home"])


def _doctor(
    codex: str, etc: Path, config: str, tmp: Path, extra: Sequence[str] = ()
) -> dict[str, Any]:
    tmp.mkdir()
    with private_etc(codex, {"codex": etc}, extra) as wrapped:
        return doctor_report(wrapped, config, tmp, tmp)["checks"]


def _warnings(details: dict[str, Any]) -> str:
    """Codex doctor's startup warnings (one is a string, more a list)."""
    assert "startup warning" in details, details
    found = details["startup warning"]
    return found if isinstance(found, str) else "\n".join(found)


@pytest.mark.parametrize("requirements", PAIRS, ids=lambda p: "/".join(p.parts[-2:]))
def test_golden_managed_files_load_strictly(codex: str, requirements: Path, tmp_path: Path) -> None:
    managed = requirements.with_name(requirements.name.replace("requirements", "managed_config"))
    texts = {FILES[0]: requirements.read_text(), FILES[1]: managed.read_text()}
    etc = plant(tmp_path / "etc", texts)
    with private_etc(codex, {"codex": etc}) as wrapped:
        ok, output = config_loads(wrapped, "")
    assert ok, output


def test_a_wrong_managed_key_fails_strict_config(codex: str, world: dict[str, Path]) -> None:
    managed = world["etc"] / "managed_config.toml"
    managed.write_text("allow_login_shel = false\n" + managed.read_text())
    with private_etc(codex, {"codex": world["etc"]}) as wrapped:
        ok, output = config_loads(wrapped, "")
    assert not ok and "unknown configuration field `allow_login_shel`" in output, output


def test_requirements_values_are_checked_but_unknown_keys_ignored(
    codex: str, world: dict[str, Path]
) -> None:
    requirements = world["etc"] / "requirements.toml"
    text = requirements.read_text()
    requirements.write_text(text.replace('decision = "prompt"', 'decision = "allow"'))
    with private_etc(codex, {"codex": world["etc"]}) as wrapped:
        ok, output = config_loads(wrapped, "")
    assert not ok and "not permitted in requirements.toml" in output, output
    requirements.write_text("allowed_sandbox_mode = []\n" + text)  # misspelt: Codex ignores it
    with private_etc(codex, {"codex": world["etc"]}) as wrapped:
        ok, output = config_loads(wrapped, "")
    assert ok, output


# The ways a user lowers the sandbox. `codex sandbox` runs permission profiles only (it ignores
# a legacy sandbox_mode and -s), so ``codex doctor`` reports what an agent session would run.
LOWERINGS = {
    "user-sandbox_mode": ('sandbox_mode = "danger-full-access"\n', ()),
    "flag-s": ("", ("-s", "danger-full-access")),
    "flag-c": ("", ("-c", 'default_permissions=":danger-full-access"')),
}


@pytest.mark.parametrize("way", sorted(LOWERINGS))
def test_requirements_refuse_a_lower_sandbox(codex: str, tmp_path: Path, way: str) -> None:
    config, extra = LOWERINGS[way]
    empty = tmp_path / "no-managed-layer"
    empty.mkdir()
    etc = plant(tmp_path / "etc", managed_texts(SRT, BASH, tmp_path / "policy"))
    control = _doctor(codex, empty, config, tmp_path / "control", extra)
    assert control["sandbox.helpers"]["details"]["filesystem sandbox"] == "unrestricted"
    checks = _doctor(codex, etc, config, tmp_path / "managed", extra)
    details = checks["sandbox.helpers"]["details"]
    assert details["filesystem sandbox"] == "restricted", details
    assert details["denied-read rules"] == "1", details  # the policy's ~/.aws


@pytest.mark.parametrize(
    "config",
    [
        "",
        'default_permissions = "mine"\n[permissions.mine]\nextends = ":workspace"\n'
        '[permissions.mine.filesystem]\n":root" = "write"\n',
    ],
    ids=["flag-c", "user-profile"],
)
def test_the_bound_profile_is_what_commands_run_in(
    codex: str, world: dict[str, Path], tmp_path: Path, config: str
) -> None:
    extra = () if config else ("-c", 'default_permissions=":danger-full-access"')
    empty = tmp_path / "no-managed-layer"
    empty.mkdir()
    rc, out = _in_etc(codex, empty, config, PROBE, world, extra)  # the control: no layer
    assert "twsrt-secret" in out and "WROTE-HOME" in out, out
    (world["home"] / "outside.txt").unlink()
    rc, out = _in_etc(codex, world["etc"], config, PROBE, world, extra)
    assert "twsrt-secret" not in out and "WROTE-HOME" not in out, out
    assert "WROTE-WORK" in out, out
    assert not (world["home"] / "outside.txt").exists()


def test_doctor_names_the_fallback(codex: str, world: dict[str, Path], tmp_path: Path) -> None:
    """requirements.toml refuses the user's values (and says so); with managed_config.toml
    beside it, the profile the user selects is replaced before any check."""
    config = (
        'default_permissions = ":danger-full-access"\n'
        "approval_policy = { granular = { sandbox_approval = true, rules = true, "
        "mcp_elicitations = true } }\n"
    )
    managed = world["etc"] / "managed_config.toml"
    checks = _doctor(codex, world["etc"], config, tmp_path / "both")
    warnings = _warnings(checks["config.load"]["details"])
    assert "permission_profile" not in warnings, warnings  # replaced, not refused
    assert "is not in the allowed set [OnRequest, Never]" in warnings, warnings
    assert checks["sandbox.helpers"]["details"]["approval policy"] == "OnRequest"
    managed.unlink()
    checks = _doctor(codex, world["etc"], config, tmp_path / "requirements")
    details = checks["config.load"]["details"]
    warnings = _warnings(details)
    assert (
        "falling back from `:danger-full-access` to required value `twsrt-managed`" in warnings
    ), warnings
    assert "is not in the allowed set [OnRequest, Never]" in warnings, warnings
    sandbox = checks["sandbox.helpers"]["details"]
    assert sandbox["approval policy"] == "OnRequest", sandbox
    assert sandbox["filesystem sandbox"] == "restricted", sandbox


@pytest.mark.parametrize(
    ("config", "extra"),
    [
        ('[permissions.twsrt-managed]\nextends = ":workspace"\n', ()),
        ("", ("-c", 'permissions.twsrt-managed.filesystem.":root"="write"')),
    ],
    ids=["config.toml", "flag-c"],
)
def test_a_user_profile_of_the_managed_name_stops_codex(
    codex: str, world: dict[str, Path], config: str, extra: tuple[str, ...]
) -> None:
    """Adding to the bound profile fails closed: Codex refuses to start."""
    with private_etc(codex, {"codex": world["etc"]}, extra) as wrapped:
        ok, output = config_loads(wrapped, config)
    assert not ok and "conflicts with a config-defined profile" in output, output


def _fetch(codex: str, etc: Path, config: str, url: str, w: dict[str, Path]) -> dict[str, Any]:
    command = shlex.join([sys.executable, "-c", FETCH_SCRIPT, url, "proxy"])
    rc, out = _in_etc(codex, etc, config, command, w)
    lines = [line for line in out.splitlines() if line.startswith("FETCH ")]
    assert rc == 0 and lines, out
    return json.loads(lines[-1][len("FETCH ") :])


def test_the_pinned_proxy_enforces_domains_the_user_switched_off(
    codex: str, world: dict[str, Path], upstream: int
) -> None:
    config = "[features]\nnetwork_proxy = false\n"
    refused = _fetch(codex, world["etc"], config, "http://example.org/", world)
    assert refused.get("status") == 403 and refused["xpe"] == "blocked-by-allowlist", refused
    allowed = _fetch(codex, world["etc"], config, f"http://127.0.0.1:{upstream}/", world)
    assert allowed.get("status") == 200, allowed
    for name in FILES:  # both pin the proxy (managed_config.toml wins over the user's too)
        path = world["etc"] / name
        path.write_text(path.read_text().replace("[features]\nnetwork_proxy = true\n", ""))
    unpinned = _fetch(codex, world["etc"], config, "http://example.org/", world)
    assert unpinned.get("xpe") != "blocked-by-allowlist", unpinned  # the control: no proxy


@pytest.mark.parametrize(
    ("command", "justification"),
    [
        ("sudo ls", "rejected: denied by twsrt policy: sudo"),
        ("git push origin", "approval required by policy, but AskForApproval is set to Never"),
    ],
    ids=["deny-forbidden", "ask-prompt"],
)
def test_requirements_rules_refuse_the_command(
    codex: str, world: dict[str, Path], tmp_path: Path, command: str, justification: str
) -> None:
    """A model turn (fake Responses API): `codex exec` asks to run the command. Without the
    managed layer Codex runs it; with it, the requirements rule refuses it (`codex exec` never
    asks, so a prompt rule refuses too) and the model is told why."""
    empty = tmp_path / "no-managed-layer"
    empty.mkdir()
    for etc, refused in ((empty, False), (world["etc"], True)):
        root = tmp_path / f"codex-{refused}"
        root.mkdir()
        with private_etc(codex, {"codex": etc}) as wrapped:
            output = tool_output(wrapped, "", command, world["work"], world["home"], root)
        assert (justification in output) is refused, output
