"""The Codex translation's code before issue 17, kept as test oracles: the indexed versions in
``twsrt/agents/codex`` must give the same output for every input (``tests/test_codex_oracle.py``).

``write_access`` and ``mixed_spellings`` tried every write root for every deny (quadratic);
``merged_config`` ran tomlkit over the whole config.toml, generated profile included."""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from typing import Any

from twsrt.agents.codex.declaration import PROFILE, WORKSPACE, Compiled, _lossy
from twsrt.agents.codex.paths import _ancestors, _relative, _set_access
from twsrt.agents.codex.rules import CODEX_MIXED_SPELLING
from twsrt.diffs import toml_key
from twsrt.findings import Finding
from twsrt.policy import PathRule


def deny_index(denies: list[PathRule]) -> Any:
    """A lookup ``root -> first deny (in policy order) that also matches it``.

    Concrete denies are found by looking up the root's ancestors in a dict, globs by matching;
    a linear scan per root would make large policies quadratic."""
    concrete: dict[str, int] = {}
    globs: list[tuple[int, PathRule]] = []
    for index, rule in enumerate(denies):
        if rule.glob:
            globs.append((index, rule))
        else:
            path = rule.path.removeprefix("./") if rule.path != "./" else "."
            concrete.setdefault(path.rstrip("/") or "/", index)

    def covered(root: str) -> PathRule | None:
        parts = root.rstrip("/").split("/")
        prefixes = ["/".join(parts[:n]) or "/" for n in range(len(parts), 0, -1)]
        if _relative(root):
            prefixes.append(".")  # the launch directory holds every relative path
        hits = [concrete[prefix] for prefix in prefixes if prefix in concrete]
        hits += [index for index, rule in globs if fnmatchcase(root, rule.path)]
        return denies[min(hits)] if hits else None

    return covered


def write_access(
    filesystem: dict[str, dict[str, str]],
    roots: list[PathRule],
    concrete: list[PathRule],
    covered_by_deny: Any,
    out: Compiled,
) -> None:
    """The write roots set in ``filesystem``, and the pins between each root and a deny below
    it.

    Codex mounts each deny where it is; a writable directory between a write root and the deny
    could be renamed away and re-created empty and writable. A write entry of its own makes it
    a mount point, which the kernel refuses to rename or remove (as srt pins it)."""
    for root in roots:
        key, sub = (WORKSPACE, root.path) if _relative(root.path) else (root.path, ".")
        _set_access(filesystem, key, sub, "write")
        out.origins.setdefault(root.path, root.origin)
    for deny in concrete:
        path = deny.path.removeprefix("./")
        for root in roots:
            for parent in _ancestors(path, root.path):
                if covered_by_deny(parent) is None:
                    key, sub = (WORKSPACE, parent) if _relative(parent) else (parent, ".")
                    _set_access(filesystem, key, sub, "write")


def mixed_spellings(denies: list[PathRule], roots: list[PathRule], home: str) -> list[Finding]:
    """A deny below a write root spelled the other way (``~/`` against absolute) gets no pins:
    the pins are found by comparing spellings, and the output must not depend on the home. A
    real Codex run then lets a command rename the directory between them away and re-create the
    denied path empty and writable, so the policy must spell both the same way."""

    def expand(path: str) -> str:
        return home.rstrip("/") + path[1:] if path == "~" or path.startswith("~/") else path

    absolute = {root.path: expand(root.path) for root in roots if not _relative(root.path)}
    findings = []
    for deny in denies:
        if _relative(deny.path):
            continue
        for root, root_abs in absolute.items():
            if root.startswith("~") == deny.path.startswith("~"):
                continue  # same spelling: pinned by translate
            between = _ancestors(expand(deny.path), root_abs)
            if between:
                findings.append(
                    _lossy(
                        CODEX_MIXED_SPELLING,
                        f"'{deny.path}' lies below write root '{root}' (with ~ = {home}) but is "
                        f"spelled the other way, so Codex cannot pin '{between[0]}' between "
                        "them: a command can rename it away and re-create the denied path "
                        "writable; spell both with ~/ or both absolute",
                        deny.origin,
                    )
                )
                break
    return findings


def _toml_text(values: dict[str, Any], header: str) -> list[str]:
    lines = [f"[{header}]"]
    for key, value in values.items():
        if not isinstance(value, dict):
            rendered = json.dumps(value, ensure_ascii=False)  # str, bool, int: JSON == TOML
            lines.append(f"{toml_key(key)} = {rendered}")
    for key, value in values.items():
        if isinstance(value, dict):
            lines += ["", *_toml_text(value, f"{header}.{toml_key(key)}")]
    return lines


def _table(values: dict[str, Any], name: str = PROFILE) -> Any:
    import tomlkit

    text = "\n".join(_toml_text(values, f"permissions.{name}")) + "\n"
    return tomlkit.parse(text)["permissions"][name]


def merged_config(base_text: str | None, compiled: Compiled) -> str:
    """The user's config.toml with only the owned keys and the twsrt profile replaced."""
    import tomlkit

    doc = tomlkit.parse(base_text or "")
    for key, value in compiled.top.items():
        doc[key] = value
    features = doc.get("features")
    if compiled.network_proxy:
        if features is None:
            features = tomlkit.table()
            doc["features"] = features
        features["network_proxy"] = True
    elif features is not None and "network_proxy" in features:
        del features["network_proxy"]
        if not features:
            del doc["features"]  # twsrt made it; an empty table would stay behind
    permissions = doc.get("permissions")
    name = compiled.name  # the project layer's profile has a name of its own (issue 18)
    if compiled.profile:
        if permissions is None:
            permissions = tomlkit.table(is_super_table=True)
            doc["permissions"] = permissions
        permissions[name] = _table(compiled.profile, name)
    elif permissions is not None and name in permissions:
        del permissions[name]  # danger-full-access: no profile that would look enforced
        if not permissions:
            del doc["permissions"]
    text = tomlkit.dumps(doc)
    if text == base_text:  # the same string either way, without parsing both again
        return text
    if base_text is not None and tomlkit.parse(text) == tomlkit.parse(base_text):
        return base_text
    return text
