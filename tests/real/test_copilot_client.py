"""The real GitHub Copilot CLI 1.0.102 on what twsrt generates for it.

(a) every golden flag snippet (full and yolo) and the example's are accepted: with no token
set, `copilot <flags> -p x` ends with "No authentication information found", never with an
"Invalid ... value" (which Copilot checks first, as the rejected controls prove);
(b) every golden settings.json and the example's loads unchanged: `copilot config --list
--json` prints exactly the file (a file Copilot cannot load comes back as {}, as the control
proves); (c) every generated `sandbox` object validates against the SandboxConfig schema that
Copilot unpacks on its first run. Install the CLI with .ci/install-copilot.sh.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from twsrt.agents.copilot.agent import parse_snippet

from .copilot_client import Copilot, copilot_bin

# one worker computes the verdicts of every flags file at once (the session fixture below)
pytestmark = [pytest.mark.real, pytest.mark.xdist_group("copilot_client")]

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "copilot"
EXAMPLE = ROOT / "examples" / "dotfiles" / "home"
REDACTED = "******"  # what `config --list` prints for a proxy password


def _files(pattern: str, example: list[str]) -> list[Path]:
    return sorted(GOLDEN.glob(f"*/{pattern}")) + [EXAMPLE / name for name in example]


# every sandbox mode's goldens (read-only.expected.flags.txt, ...) are checked too
FLAG_FILES = _files(
    "*expected.flags*.txt",
    [".config/twsrt/copilot-flags.txt", ".config/twsrt/copilot-flags.yolo.txt"],
)
SETTINGS_FILES = _files("*expected.settings.json", [".copilot/settings.json"])

# Values Copilot must refuse: they show that the flag check runs before the auth check.
REJECTED = {
    "paren-in-command": ["--deny-tool", "shell(a ) b)"],
    "empty-command": ["--allow-tool", "shell()"],
    "port-out-of-range": ["--allow-url", "a.com:99999"],
    "leading-dash": ["--deny-url", "-evil.com"],
}


def _id(path: Path) -> str:
    return "/".join(path.parts[-2:]) if GOLDEN in path.parents else f"example/{path.name}"


@pytest.fixture(scope="session")
def copilot(tmp_path_factory: pytest.TempPathFactory) -> Copilot:
    return Copilot(copilot_bin(), tmp_path_factory.mktemp("copilot-cache"))


@pytest.fixture(scope="session")
def verdicts(copilot: Copilot) -> dict[str, tuple[bool, str] | BaseException]:
    """Every flags verdict, keyed by test id. Copilot validates each value on its own, so one
    run with all generated snippets together accepting them accepts each (a run costs ~4 s of
    CPU); only when it fails is every file run alone, to name the culprit."""
    copilot.api_schema()  # unpack the package once, before the parallel runs
    generated = {_id(p): parse_snippet(p.read_text(encoding="utf-8")) for p in FLAG_FILES}

    def run(argv: list[str]) -> tuple[bool, str] | BaseException:
        try:
            return copilot.flags_verdict(argv)
        except Exception as exc:  # noqa: BLE001 - reported by the test that needs it
            return exc

    together = run([value for argv in generated.values() for value in argv])
    if isinstance(together, tuple) and together[0]:
        results: dict[str, tuple[bool, str] | BaseException] = dict.fromkeys(generated, together)
        jobs = {}
    else:
        results, jobs = {}, dict(generated)
    jobs.update({f"rejected/{name}": argv for name, argv in REJECTED.items()})
    with ThreadPoolExecutor(max_workers=4) as pool:
        results.update(zip(jobs, pool.map(run, jobs.values()), strict=True))
    return results


def _verdict(verdicts: dict[str, Any], key: str) -> tuple[bool, str]:
    result = verdicts[key]
    if isinstance(result, BaseException):
        raise result
    return result


# --------------------------------------------------------------- (a) flags


@pytest.mark.parametrize("path", FLAG_FILES, ids=_id)
def test_generated_flags_are_accepted(verdicts: dict[str, Any], path: Path) -> None:
    ok, output = _verdict(verdicts, _id(path))
    assert ok, output
    assert "Invalid" not in output


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_bad_flag_values_are_rejected_before_auth(verdicts: dict[str, Any], name: str) -> None:
    ok, output = _verdict(verdicts, f"rejected/{name}")
    assert not ok
    assert "No authentication information found" not in output


# --------------------------------------------------------------- (b) settings load


def _redacted(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: REDACTED if k == "password" and isinstance(v, str) else _redacted(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    return value


@pytest.mark.parametrize("path", SETTINGS_FILES, ids=_id)
def test_generated_settings_load_unchanged(copilot: Copilot, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    loaded = copilot.config_list(text)
    assert loaded == _redacted(json.loads(text))
    # on, except in the goldens generated for danger-full-access
    assert loaded["sandbox"]["enabled"] is not path.name.startswith("danger-full-access.")


def test_settings_copilot_cannot_load_come_back_empty(copilot: Copilot) -> None:
    """The control for the comparison above: one host rule with a port drops the whole file."""
    good = {"model": "claude-sonnet-5", "sandbox": {"enabled": True}}
    assert copilot.config_list(json.dumps(good)) == good
    bad = {**good, "sandbox": {"enabled": True, "userPolicy": {"network": {}}}}
    bad["sandbox"]["userPolicy"]["network"]["allowedHosts"] = ["github.com:443"]
    assert copilot.config_list(json.dumps(bad)) == {}
    # unknown sandbox keys are dropped silently, which is why twsrt's golden files pin every key
    typo = {**good, "sandbox": {"enabled": True, "allowedHost": ["x"]}}
    assert copilot.config_list(json.dumps(typo)) == good


# --------------------------------------------------------------- (c) shipped schema


@pytest.mark.parametrize("path", SETTINGS_FILES, ids=_id)
def test_generated_sandbox_matches_copilots_schema(copilot: Copilot, path: Path) -> None:
    sandbox = json.loads(path.read_text(encoding="utf-8"))["sandbox"]
    assert copilot.sandbox_errors(sandbox) == []


def test_schema_rejects_what_copilot_does_not_know(copilot: Copilot) -> None:
    assert copilot.sandbox_errors({"enabled": True, "allowedHosts": ["x"]})
    assert copilot.sandbox_errors({"userPolicy": {}})  # enabled is required
    errors = copilot.sandbox_errors({"enabled": True, "userPolicy": {"network": {"x": 1}}})
    assert any("userPolicy/network" in e for e in errors)


# --------------------------------------------------------------- end to end


def test_twsrt_output_for_a_hostile_policy_is_accepted(copilot: Copilot, tmp_path: Path) -> None:
    """The installed twsrt command on quotes, `$`, backslashes, ports and globs: Copilot takes
    its flags in both modes and loads its settings unchanged."""
    srt = {
        "filesystem": {
            "denyRead": ["~/.aws", "~/.config/*/token", "**/.env"],
            "denyWrite": ["~/.bashrc"],
            "allowWrite": [".", "~/work dir", "/tmp"],
        },
        "network": {
            "allowedDomains": ["github.com", "*.github.com", "registry.npmjs.org:443"],
            "deniedDomains": ["*:22", "evil.example"],
        },
    }
    bash = {"deny": ["rm -rf", "echo 'x' \"$HOME\" a\\b"], "ask": ["git push"]}
    (tmp_path / "srt.json").write_text(json.dumps(srt))
    (tmp_path / "bash.json").write_text(json.dumps(bash))
    (tmp_path / "twsrt.toml").write_text(
        'home = "/home/user"\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        '[targets]\ncopilot_output = "flags.txt"\ncopilot_settings = "settings.json"\n'
    )
    for extra in ([], ["--yolo"]):
        proc = subprocess.run(
            [sys.executable, "-m", "twsrt", "-c", str(tmp_path / "twsrt.toml")]
            + ["generate", "copilot", "-w", *extra],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
    full, yolo = (
        parse_snippet((tmp_path / n).read_text()) for n in ("flags.txt", "flags.yolo.txt")
    )
    assert yolo[0] == "--yolo" and "--allow-tool" in full
    ok, output = copilot.flags_verdict(full + yolo)  # one run judges both (see `verdicts`)
    assert ok, (shlex.join(full + yolo), output)
    text = (tmp_path / "settings.json").read_text()
    assert copilot.config_list(text) == json.loads(text)
    assert copilot.sandbox_errors(json.loads(text)["sandbox"]) == []
