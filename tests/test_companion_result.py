"""A companion (the other mode's files that ``generate -w`` writes too) is a whole result: its
preview is the other mode's preview. It once carried the empty string where a callable belongs
(mypy found it), so reading its preview raised instead of rendering."""

from __future__ import annotations

from support.cli import compiled as compile_request
from support.sandbox import DEFAULT_CONFIG, Sandbox

YOLO_CONFIG = DEFAULT_CONFIG + 'claude_settings_yolo = "home/.claude/settings.yolo.json"\n'


def test_a_companion_previews_what_generate_prints_for_its_mode(sandbox: Sandbox) -> None:
    config = sandbox.write("twsrt.toml", YOLO_CONFIG)
    compiled = compile_request(str(config), "claude", False, companions=True)
    [companion] = compiled.companions
    printed = sandbox.run("generate", "claude", "--yolo")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout  # the yolo settings file, as generate --yolo previews it
    assert companion.preview == printed.stdout
