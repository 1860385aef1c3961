"""The validity cache only saves time: results are the same with and without it."""

from __future__ import annotations

import json

from support.sandbox import Sandbox


def test_cache_never_hides_a_new_error(sandbox: Sandbox) -> None:
    first = sandbox.run("generate", "claude")
    markers = list((sandbox.home / ".cache" / "twsrt" / "valid").iterdir())
    assert first.returncode == 0 and len(markers) == 3  # config, srt, bash
    cached = sandbox.run("generate", "claude")
    assert (cached.returncode, cached.stdout, cached.stderr) == (
        first.returncode,
        first.stdout,
        first.stderr,
    )
    srt = json.loads((sandbox.repo / ".srt-settings.json").read_text())
    srt["filesystem"]["denyRaed"] = ["~/.aws"]
    sandbox.write(".srt-settings.json", srt)
    broken = sandbox.run("generate", "claude")
    assert broken.returncode == 2
    assert "error[TWS101] unknown key 'denyRaed'" in broken.stderr


def test_cache_can_be_disabled_and_relocated(sandbox: Sandbox) -> None:
    cache = sandbox.home / "xdg"
    assert sandbox.run("generate", "claude", XDG_CACHE_HOME=str(cache)).returncode == 0
    assert len(list((cache / "twsrt" / "valid").iterdir())) == 3
    assert sandbox.run("generate", "claude", TWSRT_NO_CACHE="1").returncode == 0
    assert not (sandbox.home / ".cache").exists()


def test_unwritable_cache_is_harmless(sandbox: Sandbox) -> None:
    (sandbox.home / "cachefile").write_text("not a directory")
    result = sandbox.run("generate", "claude", XDG_CACHE_HOME=str(sandbox.home / "cachefile"))
    assert result.returncode == 0, result.stderr
