"""``Request``: what one command was asked to do, as a frozen value the CLI parses into (and a
library caller builds): which config, profile and scope, which agent and mode, and how to report.
Nothing else carries a command-line choice: no context variable, no click metadata."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twsrt.records import record

if TYPE_CHECKING:
    from twsrt.findings import Level
    from twsrt.scopes import ScopeRequest


@record
class Request:
    config: str | None = None  # -c/--config (else $TWSRT_CONFIG, the search)
    profile: str | None = None  # --profile (else $TWSRT_PROFILE, hosts, the config's profile)
    scope: ScopeRequest | None = None  # --project DIR / --managed DIR
    agent: str | None = None  # one agent (generate/diff AGENT, check --agent)
    yolo: bool = False  # --yolo: the yolo approval mode
    sandbox: str | None = None  # --sandbox (else [sandbox] mode, else workspace-write)
    fail_on: Level | None = None  # check --fail-on (else [check] fail_on, else error)
    output_format: str = "text"  # --format
    report_files: tuple[tuple[str, str], ...] = ()  # check --<format> FILE, in option order
    verbose: bool = False  # -v
    quiet: bool = False  # check -q
    # a config in a git repository names files from the repository root, as check names them
    # (the CLI); else from the working directory (a library caller's own)
    repo_names: bool = True
