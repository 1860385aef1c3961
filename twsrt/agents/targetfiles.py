"""The files of one compile, read, merged, written and compared once: ``TargetFiles`` (any
target's text) and the kit of a JSON settings target (``JsonSettings``: read, splice the managed
members, write, drift), which Claude Code's, DeepCode's and Copilot's settings files share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from twsrt.agents.base import Drift, DriftItem, Result, read_target
from twsrt.agents.settingsmerge import splice_settings
from twsrt.agents.targets import NEW_FILE_MODE, Members, compare, target_write
from twsrt.config import Config
from twsrt.diffs import View, whole
from twsrt.documents import Documents
from twsrt.findings import Finding
from twsrt.records import record
from twsrt.writes import Change


def settings_shapes(lists: tuple[str, ...], sections: tuple[str, ...]) -> dict[str, type]:
    """What a settings file laid out as Claude Code's (DeepCode's follows it) must hold before
    twsrt merges into it: ``permissions`` an object of the rule ``lists``, ``sandbox`` an object
    of the ``sections`` objects (in that order: the first wrong one is reported)."""
    return {
        "/permissions": dict,
        **{f"/permissions/{key}": list for key in lists},
        "/sandbox": dict,
        **{f"/sandbox/{section}": dict for section in sections},
    }


@record
class JsonSettings:
    """A JSON settings target as twsrt edits it (read, splice, write, drift), declared once per
    agent: ``merge`` gives the new values of the members it owns from the user's document and
    one mode's managed content, ``shapes`` the types they need before it merges
    (``check_json_shape``), ``members`` what drift compares and reports show."""

    merge: Callable[[dict[str, Any], Any], dict[str, Any]]
    shapes: dict[str, type]
    members: Members

    def merged_text(
        self, base_text: str | None, display: str, managed: Any, documents: Documents | None = None
    ) -> str:
        """The whole new file: the base with only the managed members spliced in (parsed through
        the run's ``documents``)."""

        def merged(document: dict[str, Any]) -> dict[str, Any]:
            return self.merge(document, managed)

        return splice_settings(base_text, display, self.shapes, merged, documents)

    def drift(
        self,
        display: str,
        disk_text: str | None,
        new_text: str,
        key: str = "",
        documents: Documents | None = None,
        members: Members | None = None,
    ) -> Drift:
        """How the file on disk differs in the managed members (``members``: this run's, where
        they vary with the managed content)."""
        members = members or self.members
        members = members if documents is None else members.using(documents)
        return compare(display, key, disk_text, new_text, members.text_items, members.view)


@record(frozen=False)
class TargetFiles:
    """The files one compile writes: each read, merged (``text`` of what is on disk), written
    and compared once (``add``), and the compile's ``Result`` of them (``result``)."""

    config: Config
    documents: Documents  # the run's (the context's): each file read and parsed once
    mode: int = NEW_FILE_MODE  # a new file's (a managed tree's: MANAGED_FILE_MODE, readable)
    changes: list[Change] = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)

    def add(
        self,
        key: str,
        path: Path,
        text: str | Callable[[str | None, str], str],
        items: Callable[[str], list[DriftItem]],
        view: View = whole,
        form: bool = False,
    ) -> None:
        """The file ``key`` names at ``path``: ``text`` (or ``text(disk_text, display)``) written
        (a new file with the ``mode`` of these files) and compared with what is on disk
        (``compare``'s ``items``, ``view`` and ``form``)."""
        display = self.config.display_path(path)
        disk = read_target(path, display, self.config, self.documents)
        new = text if isinstance(text, str) else text(disk, display)
        self.changes.append(target_write(path, display, new, disk, mode=self.mode))
        self.drift.append(compare(display, key, disk, new, items, view, form))

    def settings(
        self,
        key: str,
        path: Path,
        settings: JsonSettings,
        managed: Any,
        members: Members | None = None,
    ) -> None:
        """A JSON settings file: ``managed`` spliced into the user's file, drift in its members
        (``members``: this run's, where they vary with the managed content)."""
        documents = self.documents
        owned = (members or settings.members).using(documents)

        def text(disk: str | None, display: str) -> str:
            return settings.merged_text(disk, display, managed, documents)

        self.add(key, path, text, owned.text_items, owned.view)

    def result(
        self, agent: str, preview: Callable[[], str], findings: list[Finding], **more: Any
    ) -> Result:
        changes, drift = self.changes, self.drift
        return Result(agent, preview, changes=changes, findings=findings, drift=drift, **more)
