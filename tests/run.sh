#!/usr/bin/env bash
# Install twsrt with its test dependencies and the real tools the tests drive, then run the suite.
# Usage: bash tests/run.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check '.[test]'
CLAUDE_BIN="$(bash .ci/install-claude.sh)"
export TWSRT_CLAUDE_BIN="$CLAUDE_BIN"
CODEX_BIN="$(bash .ci/install-codex.sh)"
export TWSRT_CODEX_BIN="$CODEX_BIN"
ruff check twsrt tests tools benchmarks
ruff format --check twsrt tests tools benchmarks
python3 -m pytest "$@"
