#!/usr/bin/env bash
# Install GNU stow, which the README's dotfiles walkthrough uses to link the home tree into ~
# (tests/real/test_newcomer.py runs that walkthrough).
# Usage: .ci/install-stow.sh   Prints the path of stow on stdout; everything else goes to stderr.
# Idempotent: skips apt when stow is on PATH.
set -euo pipefail

log() { echo "install-stow: $*" >&2; }

if ! command -v stow >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        start=$(date +%s)
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends stow >&2
        log "apt-get install stow took $(($(date +%s) - start))s"
    else
        log "no stow and no root apt-get: install stow by hand"
        exit 1
    fi
fi
command -v stow
