"""The values of ``twsrt test``: probes and attacks (``attacks`` derives those, ``batches`` runs
them), fixtures, observations, verdicts and the report."""

from __future__ import annotations

import zlib
from dataclasses import field
from enum import StrEnum
from typing import TYPE_CHECKING

from twsrt.findings import Finding
from twsrt.locations import Location
from twsrt.records import record

if TYPE_CHECKING:
    from twsrt.config import Selection

MARK = "TWSRT-PROBE"
NET_MARK = "TWSRT-PROBE-NET"
READ_NAME = ".twsrt-probe-read"
WRITE_NAME = ".twsrt-probe-write"
CREATE_NAME = ".twsrt-probe-create"
TAG = "twsrt-probe"
CANARY_HOSTS = ("twsrt-canary.invalid", "twsrt-canary.example", "twsrt-canary.test")
FIXTURE_TEXT = "twsrt probe fixture\n"
SRT_REQUIRED = {
    "network": ("allowedDomains", "deniedDomains"),
    "filesystem": ("denyRead", "allowWrite", "denyWrite"),
}
# Refusals by the domain policy; any other answer means the request got past the allow/deny
# lists (to the upstream).
REFUSAL_HEADERS = ("blocked-by-allowlist", "blocked-by-denylist")
# Codex refuses a host whose DNS lookup fails or gives a private address (and an unlisted IP
# literal) with this reason, whatever its lists say: the answer proves nothing either way.
INCONCLUSIVE_REASONS = ("not_allowed_local",)
SECRET = "TWSRT-SECRET"  # what a denyRead file holds; an attack that prints it read the file
ORIGINAL = "twsrt original\n"  # what a denyWrite file holds; any other content is a write


class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INVALID = "INVALID"
    ERROR = "ERROR"
    GAP = "GAP"
    # the configured sandbox mode enforces nothing (danger-full-access): not probed, never PASS
    UNENFORCED = "UNENFORCED"
    # refused as the policy says, but the probe cannot tell this rule from the default (a deny
    # entry whose host no allow entry admits): never PASS, never failing, even with --strict
    MOOT = "MOOT"
    # the engine does not model what the agent does here (e.g. DeepCode's DNS proxy): not
    # probed, never PASS, failing only with --strict
    UNMODELLED = "UNMODELLED"


class Outcome(StrEnum):
    ALLOWED = "allowed"
    DENIED = "denied"


class Action(StrEnum):
    READ = "read"  # read one byte
    APPEND = "append"  # append-open that writes nothing
    CREATE = "create"  # create and remove a file in a directory
    FETCH = "fetch"  # one HTTP GET through the sandbox's proxy
    CONNECT = "connect"  # connect to a Unix socket
    LOAD = "load"  # the agent loads a key of a file on disk (``ondisk``: nothing is run)
    RUN = "run"  # a program the checkout names, started outside any sandbox (``hostrun``)


@record
class Probe:
    """One observable consequence of one policy rule."""

    kind: str  # deny-read, allow-read, deny-write, allow-write, write-outside, write-tmp, ...
    rule: str  # the policy entry as written (or a description for derived probes)
    origin: Location
    action: Action
    expect: Outcome
    target: str = ""  # ROOT-relative path, an absolute real path, or a URL
    glob: bool = False  # the rule is a glob pattern
    port: bool = False  # the domain rule names a port
    problem: str = ""  # why this probe cannot run (reported as ERROR)
    moot: str = ""  # why a refusal would prove nothing about the rule (reported as MOOT)

    @property
    def name(self) -> str:
        return f"{self.kind} {self.rule}"


@record
class DepthProbe(Probe):
    """A probe of a relative ``**/`` glob at one depth below the launch directory
    (``globs.DEPTHS``: top, deep), beside the glob's own probe."""

    depth: str = ""

    @property
    def name(self) -> str:
        return f"{self.kind} {self.rule} [{self.depth}]"


# What each attack does, for the report ("... was allowed, as the policy says").
DOES = {
    "create": "creating {t}",
    "append": "appending to {t}",
    "truncate": "truncating {t}",
    "delete": "deleting {t}",
    "mkdir": "making the directory {t}",
    "rename-aside": "renaming {t} aside",
    "rename-out": "renaming {t} out to a write root",
    "rename-into": "renaming a file from a write root to {t}",
    "rename-dir": "renaming the directory {t}",
    "move-tree": "moving the whole tree {t} away",
    "symlink": "creating the symlink {t}",
    "symlink-replace": "replacing {t} by a symlink",
    "symlink-write": "appending to {t} through a symlink in the work tree",
    "hardlink-write": "hard-linking {t} into a write root and appending to the link",
    "proc-create": "creating {t} through /proc/self/root",
    "proc-append": "appending to {t} through /proc/self/root",
    "create-match": "creating {t}, a new path the glob matches",
    "read": "reading {t}",
    "list": "listing the directory of {t}",
    "symlink-read": "reading {t} through a symlink in the work tree",
    "proc-read": "reading {t} through /proc/self/root",
    "symlinked-dir": "creating {t} through a symlinked directory in the work tree",
    "symlink-escape": "creating {t} through a symlink inside the write root",
    # across launches (``launches``)
    "replace": "renaming a new file over {t}",
    "unlink-link": "removing the symlink {t} and making a directory in its place",
    "relink": "pointing the symlink {t} elsewhere",
    "swap-ancestor": "renaming a directory above {t} aside and writing {t} anew",
}


@record
class Attack(Probe):
    """One adversarial action against one rule, with the host state it needs and its effect."""

    attack: str = ""
    form: str = ""  # file | tree | root | launch: which shape of the rule's path is attacked
    script: str = ""  # sh text; ROOT-relative paths are written "$R"/rel
    effect: str = ""  # exists | gone | changed | printed | listed | relinked
    subject: str = ""  # the ROOT-relative path the effect is looked for at
    files: tuple[tuple[str, str], ...] = ()  # staged (path, content)
    dirs: tuple[str, ...] = ()  # staged directories
    links: tuple[tuple[str, str], ...] = ()  # staged symlinks (path, ROOT-relative target)
    absent: tuple[str, ...] = ()  # removed before the run
    touches: tuple[str, ...] = ()  # paths the attack may change (exclusive within a batch)
    shapes: tuple[tuple[str, str], ...] = ()  # (path, "file"|"dir") it needs, shareable

    @property
    def name(self) -> str:
        return f"{self.kind} {self.rule} [{self.form} {self.attack}]"

    @property
    def does(self) -> str:
        return DOES.get(self.attack, self.attack).format(t=self.target)


def token(path: str) -> str:
    """The secret a read attack looks for: unique per path, never part of a file name."""
    return f"{SECRET}-{zlib.crc32(path.encode()):08x}"


@record
class Fixtures:
    """What the fixture tree holds before any probe runs (ROOT-relative POSIX paths)."""

    dirs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    sockets: tuple[str, ...] = ()


@record
class Plan:
    probes: tuple[Probe, ...]
    fixtures: Fixtures


@record
class Observation:
    """One run of a probe command, with or without the sandbox."""

    ran: bool  # the probe printed its result line, so the command really ran
    outcome: Outcome | None
    exit_code: int | None
    output: str
    seconds: float = 0.0


@record
class Result:
    engine: str
    probe: Probe
    verdict: Verdict
    detail: str
    gap: Finding | None = None
    control: Observation | None = None
    sandboxed: Observation | None = None


@record
class Skipped:
    """An engine the run left out, and why (named in every report)."""

    engine: str
    reason: str


@record(frozen=False)
class ProbeReport:
    """Everything ``twsrt test`` found; the reporters and the exit code read only this."""

    results: list[Result] = field(default_factory=list)
    engines: list[str] = field(default_factory=list)
    strict: bool = False
    seconds: float = 0.0
    sandbox_mode: str = "workspace-write"
    approval_mode: str = "full"
    skipped: list[Skipped] = field(default_factory=list)
    # target files on disk that differ from the policy; the probes ran on them as they are
    drift: list[Finding] = field(default_factory=list)
    inputs: dict[str, list[str]] = field(default_factory=dict)  # engine -> the files it read
    # engine -> what it models instead of running the agent itself (the claude engine)
    models: dict[str, str] = field(default_factory=dict)
    selection: Selection | None = None  # the profile the policy was composed from (if any)

    def counts(self) -> dict[str, int]:
        out = {verdict.value: 0 for verdict in Verdict}
        for result in self.results:
            out[result.verdict.value] += 1
        return out

    def failing(self, result: Result) -> bool:
        if result.verdict is Verdict.MOOT:
            return False
        if result.verdict in (Verdict.GAP, Verdict.UNENFORCED, Verdict.UNMODELLED):
            return self.strict
        return result.verdict is not Verdict.PASS

    @property
    def exit_code(self) -> int:
        return 1 if any(self.failing(r) for r in self.results) else 0
