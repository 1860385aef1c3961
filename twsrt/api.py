"""The library API: the two things an integrator asks twsrt for, on the same invocation path as
the CLI (``Request`` -> ``open_invocation``), writing nothing.

``compile_policy``: load a policy and compile it for one agent (its preview, as ``twsrt generate
AGENT`` prints it, and the text of every file ``generate -w`` would write). ``check``: run
``twsrt check`` and get its report (``report.findings``, ``report.exit_code``). Bad input raises
``TwsrtError`` (its ``findings`` say why) from ``compile_policy``; ``check`` returns it as an
aborted report, as the command does."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.checking import check_report
from twsrt.findings import Finding, Level, TwsrtError
from twsrt.invocation import open_invocation
from twsrt.records import record
from twsrt.request import Request
from twsrt.writes import FileWrite

if TYPE_CHECKING:
    from twsrt.report import CheckReport

__all__ = ["CompiledPolicy", "Finding", "Level", "TwsrtError", "check", "compile_policy"]


@record
class CompiledPolicy:
    """One agent's compiled output for one mode, nothing written."""

    agent: str
    preview: str  # the bytes `twsrt generate AGENT` prints
    files: dict[str, str]  # each target file, named as the run names it -> the text it would get
    findings: tuple[Finding, ...]  # what the compile reports (lossy translations, notes, ...)


def compile_policy(
    config_path: str | Path,
    agent: str,
    *,
    yolo: bool = False,
    profile: str | None = None,
    sandbox: str | None = None,
) -> CompiledPolicy:
    """The policy of the twsrt config at ``config_path`` compiled for ``agent`` (a registered
    agent name) in the yolo or the full mode, with ``--profile``/``--sandbox``'s meaning."""
    request = Request(str(config_path), profile, None, agent, yolo, sandbox)
    result = open_invocation(request).compile(agent)
    files = {c.display: c.text for c in result.changes if isinstance(c, FileWrite)}
    return CompiledPolicy(agent, result.preview, files, tuple(result.findings))


def check(
    config_path: str | Path | None = None,
    *,
    agent: str | None = None,
    yolo: bool = False,
    profile: str | None = None,
    sandbox: str | None = None,
    fail_on: Level | None = None,
    no_ignores: bool = False,
) -> CheckReport:
    """``twsrt check`` of the config at ``config_path`` (else the search from the working
    directory): its findings (``findings``, sorted as every report lists them; ``suppressed``),
    and ``exit_code`` as the command's."""
    config = None if config_path is None else str(config_path)
    request = Request(config, profile, None, agent, yolo, sandbox, fail_on)
    return check_report(request, no_ignores)
