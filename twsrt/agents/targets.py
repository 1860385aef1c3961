"""Shared target machinery: what every agent does with its files, written once.

An agent module keeps its translation and its declarations (target keys, managed members);
this module resolves the file for the full or yolo mode, plans the writes (through a symlinked
target, one new-file mode), keeps Claude-style ``settings.json`` links, turns a file's managed
members into comparable drift items and compares them, and holds the small helpers the
translations share (unique lists, agent findings, the disabled-sandbox refusal).

The managed members of a file are declared once, as a ``Members`` (a diffs ``Spec`` plus how its
values become items): the drift items and the report view (diffs.py) both derive from it, so
what ``diff`` counts and what a report shows cannot disagree.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from twsrt.agents.base import (
    Drift,
    DriftItem,
    read_target,
    value_at,
    yolo_variant,
)
from twsrt.config import Config
from twsrt.diffs import Spec, View, json_view, toml_view, whole
from twsrt.documents import Documents
from twsrt.findings import Finding, TwsrtError, fail, finding
from twsrt.locations import Location
from twsrt.policy import Policy
from twsrt.records import record
from twsrt.redact import MARK
from twsrt.rules import (
    BROKEN_SYMLINK,
    DISABLED_SANDBOX,
    SETTINGS_LINK_FOREIGN,
    TARGET_UNUSABLE,
    UNCOMPILED_KEY_NOTE,
    Rule,
)
from twsrt.safeio import real
from twsrt.writes import FileWrite, SymlinkWrite

# Every file twsrt creates for an agent is private: settings files can hold hooks, API key
# helpers, MCP headers and proxy credentials. An existing file keeps its own mode (writes.py).
NEW_FILE_MODE = 0o600
# A managed-scope file is deployed system-wide for every user's agent to read: no secrets in it,
# and a file only root could read would be no floor at all.
MANAGED_FILE_MODE = 0o644


# ---------------------------------------------------------------- small shared helpers


def unique(items: list[str]) -> list[str]:
    """``items`` without repeats, first occurrence kept (agents' schemas want unique rules)."""
    return list(dict.fromkeys(items))


def agent_finding(agent: str) -> Callable[[Rule, str, Location], Finding]:
    """A ``finding`` maker for one agent's translation: ``(rule, message, origin)``."""

    def make(rule: Rule, message: str, origin: Location) -> Finding:
        return finding(rule, message, origin, agent=agent)

    return make


def launch_root_finding(
    config: Config, key: str, rule: Rule, agent: str, label: str, rest: str
) -> Finding:
    """A project file binds only a launch in the project root (``rule``, at the target key):
    "LABEL loads FILE only when it starts in the project root" and the agent's ``rest``."""
    display = config.display_path(config.targets[key])
    return finding(
        rule,
        f"{label} loads {display} only when it starts in the project root{rest}",
        config.location(f"/targets/{key}"),
        agent=agent,
    )


def disabled_sandbox(policy: Policy, agent: str, refusing: str, hint: str = "") -> TwsrtError:
    """The refusal of an agent that cannot write a sandbox the policy switched off: a file that
    looks enforced but is not would be worse than none."""
    return TwsrtError(
        finding(
            DISABLED_SANDBOX,
            f"the canonical sandbox is disabled (enabled = false); refusing to {refusing} that "
            f"would pretend to enforce it{hint}",
            policy.srt_location("/enabled"),
            agent=agent,
        )
    )


def strict_allowlist_note(policy: Policy, agent: str, why: str) -> list[Finding]:
    """The note for an agent whose host allow-list refuses other hosts by itself, so srt's
    ``network.strictAllowlist`` needs no key there (nothing when the policy does not set it)."""
    from twsrt.agents.srtkeys import is_set

    pointer = "/network/strictAllowlist"
    if not is_set(value_at(policy.srt, pointer), pointer):
        return []
    return [
        finding(
            UNCOMPILED_KEY_NOTE,
            f"'network.strictAllowlist' needs no key in {why}",
            policy.srt_location(pointer, key=True),
            agent=agent,
        )
    ]


# ---------------------------------------------------------------- which file, how written


def mode_target(
    targets: dict[str, Path], full_key: str, yolo_key: str | None, yolo: bool
) -> tuple[str, Path] | None:
    """The ``[targets]`` key and file of one mode: the full file; in yolo mode the yolo key's
    file, else the full file's yolo variant (``settings.full.json`` -> ``settings.yolo.json``),
    named by the full key. None when the mode has no file."""
    full = targets.get(full_key)
    if not yolo:
        return None if full is None else (full_key, full)
    if yolo_key is not None and yolo_key in targets:
        return yolo_key, targets[yolo_key]
    return None if full is None else (full_key, yolo_variant(full))


def mode_files(targets: dict[str, Path], full_key: str, yolo_key: str) -> tuple[Path, ...]:
    """Both files of a full/yolo pair as configured or derived (what a settings link may name)."""
    found = (mode_target(targets, full_key, yolo_key, yolo) for yolo in (False, True))
    return tuple(path for _key, path in filter(None, found))


def written_path(path: Path) -> Path:
    """Where a target's bytes go: a symlinked target is written through to its real file (GNU
    stow, chezmoi and yadm link them), so the link itself stays."""
    return real(path) if path.is_symlink() else path


def target_write(
    path: Path,
    display: str,
    text: str,
    old: str | None,
    like: Path | None = None,
    mode: int = NEW_FILE_MODE,
) -> FileWrite:
    """The write of one generated target: through a symlink, a new file private (``mode``;
    or, when its content comes from another file ``like``, with that file's mode and owner)."""
    return FileWrite(written_path(path), display, text, old, mode, like)


# ---------------------------------------------------------------- drift items


@record
class Members:
    """The members twsrt owns in one kind of target file: a ``Spec`` (diffs.py) and how their
    values become drift items. The report view and the items derive from this one declaration.

    ``kind`` is ``json`` or ``toml`` (the file's syntax: its view, and how items read a value:
    a JSON list is one item per entry, a TOML table one item per member). ``rule_lists`` names
    lists of rule strings (``permissions.deny``) whose entries are items as written, not JSON;
    with ``empty_list`` an empty list is an item of its own (``[]`` and a missing key differ)."""

    spec: Spec
    kind: str = "json"
    rule_lists: tuple[str, ...] = ()
    empty_list: bool = False
    # the run's store (``using``): texts are parsed there, once for every stage
    documents: Documents | None = field(default=None, compare=False, repr=False)

    def using(self, documents: Documents) -> Members:
        """These members, reading texts through one run's ``documents`` (``ctx.config``'s)."""
        return replace(self, documents=documents)

    @property
    def view(self) -> View:
        if self.kind == "toml":
            return toml_view(self.spec, self.documents)
        return json_view(self.spec, self.documents)

    def items(self, document: Any) -> list[DriftItem]:
        """The managed content of a parsed document as comparable items, in the spec's order."""
        return self._walk(document, self.spec, "")

    def text_items(self, text: str) -> list[DriftItem]:
        """``items`` of a file's text; a text that does not parse has no managed content."""
        documents = self.documents or Documents()
        if self.kind == "toml":
            return self.items(documents.toml_value(text))
        try:
            return self.items(documents.json_value(text))
        except json.JSONDecodeError:
            return []

    def _walk(self, document: Any, spec: Spec, prefix: str) -> list[DriftItem]:
        items: list[DriftItem] = []
        if not isinstance(document, dict):
            return items
        for key, sub in spec.items():
            if key not in document or sub is False:
                continue
            name = f"{prefix}.{key}" if prefix else key
            value = document[key]
            if isinstance(sub, dict):
                items += self._walk(value, sub, name)
            elif sub is True:
                items += self._value(name, value)
            elif isinstance(value, list):  # a predicate: the managed entries of a shared list
                items += [self._entry(name, entry) for entry in value if sub(entry)]
        return items

    def _value(self, name: str, value: Any) -> list[DriftItem]:
        if self.kind == "toml":
            if isinstance(value, dict):
                return [i for k, v in value.items() for i in self._value(f"{name}.{k}", v)]
            return [DriftItem(name, json.dumps(value, ensure_ascii=False))]
        if isinstance(value, list) and (value or not self.empty_list):
            return [self._entry(name, entry) for entry in value]
        return [DriftItem(name, json.dumps(value, ensure_ascii=False, sort_keys=True))]

    def _entry(self, name: str, entry: Any) -> DriftItem:
        if name in self.rule_lists and isinstance(entry, str):
            return DriftItem(name, entry)
        return DriftItem(name, json.dumps(entry, ensure_ascii=False))


def project(document: Any, spec: Spec) -> dict[str, Any]:
    """Only the members ``spec`` declares, in its order (a partly managed table that holds no
    managed member is left out): what twsrt owns in a document, safe to print."""
    out: dict[str, Any] = {}
    if not isinstance(document, dict):
        return out
    for key, sub in spec.items():
        if key not in document or sub is False:
            continue
        value = document[key]
        if isinstance(sub, dict):
            part = project(value, sub)
            if part:
                out[key] = part
        elif sub is True:
            out[key] = value
        elif isinstance(value, list):
            out[key] = [entry for entry in value if sub(entry)]
    return out


def compare(
    display: str,
    key: str,
    old: str | None,
    new: str,
    items: Callable[[str], list[DriftItem]],
    view: View = whole,
    form: bool = False,
) -> Drift:
    """How the file on disk (``old``; None: missing) differs from the generated ``new``: the
    managed items missing and extra (set difference, so large policies stay linear), else
    whether their order differs. With ``form`` (a file generated whole, whose layout matters)
    any other difference of the text counts as reordered too."""
    result = Drift(display, target_key=key, old_text=old, new_text=new, view=view)
    if old is None:
        result.missing_file = True
        return result
    if new == old:  # in sync (the common case): equal texts have equal items, none to compute
        return result
    old_items, new_items = items(old), items(new)
    old_set, new_set = set(old_items), set(new_items)
    result.missing = [item for item in new_items if item not in old_set]
    result.extra = [item for item in old_items if item not in new_set]
    result.reordered = (
        not result.missing
        and not result.extra
        and (old_items != new_items or (form and old != new))
    )
    if view is whole and (result.missing or result.extra):
        _shown_redacted(result, items(whole(old)), items(whole(new)))
    return result


def _shown_redacted(result: Drift, old_items: list[DriftItem], new_items: list[DriftItem]) -> None:
    """A file generated whole may hold anything its path names: the items a report quotes
    are those of its redacted text (``diffs.whole``), decided on the raw text all the same (a
    difference only redaction hides is one hidden item)."""
    old_set, new_set = set(old_items), set(new_items)
    hidden = [DriftItem("line", MARK)]
    if result.missing:
        result.missing = [item for item in new_items if item not in old_set] or hidden
    if result.extra:
        result.extra = [item for item in old_items if item not in new_set] or hidden


# ---------------------------------------------------------------- the settings link


@record(frozen=False)
class LinkPlan:
    """A settings file reached through a link (Claude Code reads ``settings.json``, twsrt writes
    ``settings.full.json`` / ``settings.yolo.json`` and points the link at the mode's file).

    ``base_text`` is what the new target is merged into: the target itself, else a regular
    ``settings.json`` on its first run (migrated), else, for a new yolo file, the full file;
    ``base_file`` is that other file, whose mode a new target takes."""

    base_text: str | None
    base_display: str
    base_file: Path | None = None
    change: SymlinkWrite | None = None
    findings: list[Finding] = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)


def plan_link(
    link: Path,
    target: tuple[str, Path],
    disk_text: str | None,
    ours: tuple[Path, ...],
    seed: Path | None,
    agent: str,
    label: str,
    config: Config,
    documents: Documents,
) -> LinkPlan:
    """The link change for ``target`` (key, path) and the base its text is merged into (files
    named and read as ``config``'s run names and confines them, through the run's ``documents``).

    A directory at the link, or a regular file there beside an existing target, stops the run
    (twsrt overwrites neither); a dangling link is reported and replaced; a working link that
    names none of ``ours`` is the user's (TWS010: reported, and never replaced by writes.py)."""
    key, path = target
    display = config.display_path(path)
    plan = LinkPlan(disk_text, display)
    if path.name == link.name or link == path:
        return plan  # the target is the file the agent reads: no link
    link_display = config.display_path(link)
    if link.is_dir() and not link.is_symlink():
        message = "is a directory, expected a settings file or symlink"
        raise fail(TARGET_UNUSABLE, message, Location(link_display))
    link_is_file = link.exists() and not link.is_symlink()
    if link_is_file and disk_text is not None:
        raise fail(
            TARGET_UNUSABLE,
            f"is a regular file while {display} also exists; twsrt will not overwrite either — "
            f"merge them by hand and remove {link.name}",
            Location(link_display),
        )
    if link_is_file:
        # first run: migrate the user's file
        plan.base_text = read_target(link, link_display, config, documents)
        plan.base_display, plan.base_file = link_display, link
    elif disk_text is None and seed is not None:
        plan.base_display, plan.base_text, plan.base_file = _seed(seed, config, documents)
    if link.is_symlink() and not link.exists():
        plan.findings.append(
            finding(
                BROKEN_SYMLINK,
                f"{link.name} points to {os.readlink(link)}, which does not exist: {label} runs "
                "without the generated settings",
                Location(link_display),
                agent=agent,
            )
        )
    plan.change = SymlinkWrite(link, link_display, link_value(link, path), ours)
    if plan.change.foreign:
        plan.findings.append(foreign_link_finding(plan.change, agent, label))
        plan.drift.append(foreign_link_drift(plan.change, key))
    return plan


def _seed(full: Path, config: Config, documents: Documents) -> tuple[str, str | None, Path | None]:
    """A new yolo file starts from the full file (the user's own keys), when there is one."""
    if not full.is_file():
        return "", None, None
    display = config.display_path(full)
    return display, read_target(full, display, config, documents), full


def link_value(link: Path, target: Path) -> str:
    """The relative value that makes ``link`` reach ``target``: a bare name in one directory,
    else a path between the real directories (the kernel reads it from where the link really
    lives, so a symlinked directory on the way must not throw it off)."""
    if link.parent == target.parent:
        return target.name
    here = os.path.realpath(link.parent)
    return os.path.relpath(os.path.join(os.path.realpath(target.parent), target.name), here)


def foreign_link_finding(change: SymlinkWrite, agent: str, label: str) -> Finding:
    return finding(
        SETTINGS_LINK_FOREIGN,
        f"{change.link.name} points to {change.before.value}, not to a settings file twsrt "
        f"generates ({change.target}): {label} loads that file instead of the generated one",
        Location(change.display),
        agent=agent,
    )


def foreign_link_drift(change: SymlinkWrite, key: str) -> Drift:
    """For ``diff``: the link is drift (no text, so ``check`` reports it once, as TWS010)."""
    name = change.link.name
    return Drift(
        change.display,
        missing=[DriftItem(name, f"-> {change.target}")],
        extra=[DriftItem(name, f"-> {change.before.value}")],
        target_key=key,
    )
