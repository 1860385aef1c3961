"""What derives from the agent registry outside Python: the config schema's ``targets`` (also
applied when a config is validated, so a registered agent's keys are known at once) and the
pre-commit hook's ``files`` pattern (``.pre-commit-hooks.yaml``, docs/pre-commit.md and the
config ``init --repo`` writes).

``python -m twsrt.registry`` names the generated files that differ from the registry (exit 1);
``--write`` rewrites them. A test runs the same comparison.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from twsrt.agents import REGISTRY, specs, target_specs

# the hook's patterns for the config and the canonical sources, before every target's
SOURCE_PATTERNS = (
    r"\.?twsrt\.toml",
    r"twsrt/config\.toml",
    r"\.?srt-settings\.json",
    r"bash-rules\.json",
    r"[^/]*\.srt\.json",  # fragment files (docs/profiles.md)
    r"[^/]*\.bash\.json",
)
CONFIG_SCHEMA = "schemas/config.schema.json"
HOOK_FILES = (".pre-commit-hooks.yaml", "docs/pre-commit.md")
# the check.ignore `agent` description, which lists the agents a finding can concern
_AGENT_DESCRIPTION = re.compile(r'"Agent the finding concerns \([^)"]*\)\."')
# a `files` block: the first line of the pattern, its body, its last line at the same indent
_HOOK_BLOCK = re.compile(r"^( *)\(\?x\)\(\^\|/\)\(\n.*?^\1\)\$\n", re.M | re.S)


def schema_targets() -> dict[str, dict[str, Any]]:
    """The config schema's ``targets`` properties, one per declared key, in registry order."""

    out: dict[str, dict[str, Any]] = {}
    for target in target_specs():
        entry: dict[str, Any] = {"$ref": "#/$defs/path", "description": target.description}
        if target.examples:
            entry["examples"] = list(target.examples)
        out[target.key] = entry
    return out


def agent_description() -> str:

    return f"Agent the finding concerns ({', '.join([*REGISTRY, 'srt'])})."


def apply_to_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The shipped config schema with the registry's targets (what validation uses)."""
    schema["properties"]["targets"]["properties"] = schema_targets()
    ignore = schema["properties"]["check"]["properties"]["ignore"]
    ignore["items"]["properties"]["agent"]["description"] = agent_description()
    return schema


def hook_files_regex() -> str:
    """The hook's ``files`` pattern (verbose regex): the config, the sources and every declared
    target's pattern once, in registry order; then every agent's credential files, so that a
    commit staging one runs the check that reports it (TWS241)."""

    patterns = [*SOURCE_PATTERNS, *dict.fromkeys(t.hook_pattern for t in target_specs())]
    patterns += [
        re.escape(state.path[2:]).replace(r"\-", "-")  # a "-" needs no escape outside []
        for spec in specs()
        for state in spec.state_files
        if state.credential
    ]
    lines = ["(?x)(^|/)(", f"    {patterns[0]}", *(f"  | {p}" for p in patterns[1:]), ")$"]
    return "".join(f"{line}\n" for line in lines)


def indented(text: str, indent: str) -> str:
    return "".join(f"{indent}{line}\n" for line in text.splitlines())


def render_hook_files(text: str) -> str:
    """``text`` with every ``files`` pattern block replaced by the registry's, same indent."""
    regex = hook_files_regex()
    return _HOOK_BLOCK.sub(lambda m: indented(regex, m.group(1)), text)


def render_config_schema(text: str) -> str:
    """The schema text with the ``targets`` properties and the agent list spliced in; every
    other byte kept."""
    start = text.index('"properties"', text.index('\n    "targets": {'))
    line_start = text.rindex("\n", 0, start) + 1
    indent = text[line_start:start]
    opening = text.index("{", start)
    _value, end = json.JSONDecoder().raw_decode(text, opening)
    entries = []
    for key, entry in schema_targets().items():
        members = [
            f"{indent}    {json.dumps(name)}: {json.dumps(value, ensure_ascii=False)}"
            for name, value in entry.items()
        ]
        body = ",\n".join(members)
        entries.append(f"{indent}  {json.dumps(key)}: {{\n{body}\n{indent}  }}")
    block = "{\n" + ",\n".join(entries) + f"\n{indent}}}"
    text = text[:opening] + block + text[end:]
    described = json.dumps(agent_description(), ensure_ascii=False)
    return _AGENT_DESCRIPTION.sub(lambda _m: described, text, count=1)


def rendered(root: Path) -> dict[str, str]:
    """Every generated file under the repository ``root`` -> the text the registry gives it."""
    out = {CONFIG_SCHEMA: render_config_schema((root / CONFIG_SCHEMA).read_text("utf-8"))}
    for name in HOOK_FILES:
        out[name] = render_hook_files((root / name).read_text("utf-8"))
    return out


def stale(root: Path) -> list[str]:
    """The generated files whose text differs from what the registry gives them."""
    texts = rendered(root)
    return [name for name, text in texts.items() if (root / name).read_text("utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(__file__).resolve().parent.parent
    if args not in ([], ["--write"]):
        print("usage: python -m twsrt.registry [--write]", file=sys.stderr)
        return 2
    names = stale(root)
    if args == ["--write"]:
        texts = rendered(root)
        for name in names:
            (root / name).write_text(texts[name], encoding="utf-8")
            print(f"wrote {name}")
        return 0
    for name in names:
        print(f"{name} is stale: run python -m twsrt.registry --write", file=sys.stderr)
    return 1 if names else 0


if __name__ == "__main__":
    sys.exit(main())
