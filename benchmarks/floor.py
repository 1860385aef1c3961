"""The parser floor of one twsrt repository: read and parse the files `twsrt check` reads.

Usage: python benchmarks/floor.py [CONFIG]   (default ./twsrt.toml)

Imports json and tomllib, parses CONFIG with tomllib, then every source and target it names
(relative to CONFIG): JSON files with json, TOML files with tomllib, the rest (Codex .rules,
Copilot flag files) only read. bench.py runs it as a fresh process beside twsrt's commands, so its
time is what any Python tool needs just to start and parse the same bytes.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path


def parse(path: Path) -> None:
    data = path.read_bytes()
    if path.suffix == ".json":
        json.loads(data)
    elif path.suffix == ".toml":
        tomllib.loads(data.decode("utf-8"))


def main() -> None:
    config_path = Path(sys.argv[1] if len(sys.argv) > 1 else "twsrt.toml")
    config = tomllib.loads(config_path.read_text(encoding="utf-8"))
    named = [*config.get("sources", {}).values(), *config.get("targets", {}).values()]
    for name in named:
        parse(config_path.parent / name)


if __name__ == "__main__":
    main()
