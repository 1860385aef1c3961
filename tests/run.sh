#!/usr/bin/env bash
# Install twsrt with its test dependencies and the real tools the tests drive, then run the suite.
# Usage: bash tests/run.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
# the README's one test command on a fresh machine: Debian's system Python refuses pip, so
# without an active virtual environment one is made (or reused) in .venv
if [ -z "${VIRTUAL_ENV:-}" ]; then
    [ -x .venv/bin/python3 ] || python3 -m venv .venv
    # shellcheck disable=SC1091
    . .venv/bin/activate
fi
python3 -m pip install --quiet --disable-pip-version-check '.[test]'
# taplo checks the scaffold's twsrt.toml by its #:schema (tests/test_schemas_for_editors.py)
TWSRT_TAPLO_BIN="$(bash .ci/install-taplo.sh)"; export TWSRT_TAPLO_BIN # set -e sees a failed install
CLAUDE_BIN="$(bash .ci/install-claude.sh)"
export TWSRT_CLAUDE_BIN="$CLAUDE_BIN"
CODEX_BIN="$(bash .ci/install-codex.sh)"
export TWSRT_CODEX_BIN="$CODEX_BIN"
TWSRT_COPILOT_BIN="$(bash .ci/install-copilot.sh)"; export TWSRT_COPILOT_BIN # set -e sees a failed install
TWSRT_GEMINI_BIN="$(bash .ci/install-gemini.sh)"; export TWSRT_GEMINI_BIN # set -e sees a failed install
TWSRT_QWEN_BIN="$(bash .ci/install-qwen.sh)"; export TWSRT_QWEN_BIN # set -e sees a failed install
TWSRT_OPENCODE_BIN="$(bash .ci/install-opencode.sh)"; export TWSRT_OPENCODE_BIN # set -e sees a failed install
TWSRT_KILO_BIN="$(bash .ci/install-kilo.sh)"; export TWSRT_KILO_BIN # set -e sees a failed install
TWSRT_SRT_BIN="$(bash .ci/install-srt.sh)"; export TWSRT_SRT_BIN # set -e sees a failed install
TWSRT_PI_BIN="$(bash .ci/install-pi.sh)"; export TWSRT_PI_BIN # set -e sees a failed install
TWSRT_DROID_BIN="$(bash .ci/install-droid.sh)"; export TWSRT_DROID_BIN # set -e sees a failed install
TWSRT_ACTIONLINT_BIN="$(bash .ci/install-actionlint.sh)"; export TWSRT_ACTIONLINT_BIN
TWSRT_STOW_BIN="$(bash .ci/install-stow.sh)"; export TWSRT_STOW_BIN
ruff check twsrt tests tools benchmarks action
ruff format --check twsrt tests tools benchmarks action
python3 -m mypy twsrt  # pyproject.toml [tool.mypy]; 0 errors
# two workers per core (CI has 2 cores): the real-tool tests spend much of their time waiting on
# the agents they start, so a second worker per core fills it (measured: 530 s wall with one per
# core, 409 s with two); a module with an expensive module fixture (a wheel, a pre-commit
# environment, the installed action) is one xdist_group, run on one worker
python3 -m pytest -n "$(( $(nproc) * 2 ))" --dist loadgroup --durations=30 "$@"
