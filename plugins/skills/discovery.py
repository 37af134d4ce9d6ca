"""Find skills in an ordered list of sources and settle name collisions.

Precedence (lowest → highest; a later source overrides an earlier one by skill name):

1. ``bundled``        — the ``skills/`` folder shipped with Talaria
2. ``plugin:<name>``  — folders plugins register through ``register_skill_dirs``
3. ``extra``          — folders listed in config ``[skills] extra_dirs``
4. ``user``           — ``$TALARIA_HOME/skills``
5. ``project``        — ``<workspace>/.agents/skills``, only in a trusted workspace

The loser of a collision is kept in :attr:`SkillIndex.shadowed` so it can be reported.
A skill that cannot be loaded is skipped; the reason lands in :attr:`SkillIndex.warnings`
and is logged once per process on ``logging.getLogger("talaria.skills")``.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diskcache import DiskCache
from .skillfile import Skill, SkillError, parse_skill_file
from .trust import is_trusted

__all__ = [
    "SkillIndex",
    "bundled_skills_dir",
    "cache_file",
    "default_sources",
    "discover_skills",
    "set_plugin_skill_dirs",
    "talaria_home",
]

log = logging.getLogger("talaria.skills")

_PLUGIN_DIRS: list[tuple[str, Path]] = []
_LOGGED: OrderedDict[str, None] = OrderedDict()
_PARSED: OrderedDict[tuple[str, str, int, int], Skill | SkillError] = OrderedDict()
_CACHE_MAX = 512


@dataclass(frozen=True, slots=True)
class Shadowing:
    """``winner`` took the name ``loser`` also had."""

    winner: Skill
    loser: Skill


@dataclass(slots=True)
class SkillIndex:
    """The skills visible to a session, by name (sorted), with what was shadowed or skipped."""

    skills: dict[str, Skill] = field(default_factory=dict)
    shadowed: list[Shadowing] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[Skill]:
        return iter(self.skills.values())

    def __len__(self) -> int:
        return len(self.skills)

    def __contains__(self, name: object) -> bool:
        return name in self.skills

    def get(self, name: str) -> Skill | None:
        return self.skills.get(name.strip().lstrip("/"))


def talaria_home() -> Path:
    """``$TALARIA_HOME`` or ``~/.talaria`` (not created)."""
    raw = os.environ.get("TALARIA_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".talaria"


def cache_file(home: Path) -> Path:
    """Where parsed frontmatter is cached between processes."""
    return Path(home) / "cache" / "skills.json"


def bundled_skills_dir() -> Path:
    """``<repo>/skills`` in a checkout, ``talaria/_bundled/skills`` in a wheel."""
    return Path(__file__).resolve().parents[1].parent / "skills"


def set_plugin_skill_dirs(dirs: Sequence[tuple[str, Path]]) -> None:
    """Record plugin-shipped skill folders as ``("plugin:<name>", path)`` pairs.

    The kernel calls this with what ``register_skill_dirs`` collected; later calls replace
    earlier ones. :func:`default_sources` places them above bundled skills.
    """
    _PLUGIN_DIRS[:] = [(str(label), Path(path)) for label, path in dirs]


def default_sources(
    home: Path,
    workspace: Path | None,
    config: Mapping[str, Any] | None = None,
    *,
    trusted: bool | None = None,
    plugin_dirs: Sequence[tuple[str, Path]] | None = None,
) -> list[tuple[str, Path]]:
    """The ordered ``(label, folder)`` list for a session, lowest precedence first.

    ``trusted=None`` consults ``$TALARIA_HOME/trusted.json`` for ``workspace``.
    """
    section = (config or {}).get("skills") or {}
    sources: list[tuple[str, Path]] = [("bundled", bundled_skills_dir())]
    sources += list(_PLUGIN_DIRS if plugin_dirs is None else plugin_dirs)
    extra = section.get("extra_dirs") or []
    if isinstance(extra, str):
        extra = [extra]
    for raw in extra:
        path = Path(str(raw)).expanduser()
        sources.append(("extra", path if path.is_absolute() else home / path))
    sources.append(("user", home / "skills"))
    if workspace is not None:
        if trusted is None:
            trusted = is_trusted(home, workspace)
        if trusted:
            sources.append(("project", workspace / ".agents" / "skills"))
    return sources


def _remember(message: str) -> None:
    if message in _LOGGED:
        return
    _LOGGED[message] = None
    if len(_LOGGED) > _CACHE_MAX:
        _LOGGED.popitem(last=False)
    log.warning("%s", message)


def _parse_cached(folder: Path, label: str, disk: DiskCache) -> Skill | SkillError:
    try:
        st = (folder / "SKILL.md").stat()
    except OSError as exc:
        return SkillError(f"{folder / 'SKILL.md'}: cannot be read ({exc.strerror or exc})")
    key = (str(folder), label, st.st_mtime_ns, st.st_size)
    hit = _PARSED.get(key)
    if hit is None:
        hit = disk.get(folder, label, st.st_mtime_ns, st.st_size)
        if hit is None:
            try:
                hit = parse_skill_file(folder, label)
            except SkillError as exc:
                hit = exc
            disk.put(folder, label, st.st_mtime_ns, st.st_size, hit)
        _PARSED[key] = hit
        if len(_PARSED) > _CACHE_MAX:
            _PARSED.popitem(last=False)
    return hit


def _skill_folders(root: Path) -> list[Path]:
    try:
        children = sorted(root.iterdir())
    except OSError:
        return []
    return [c for c in children if not c.name.startswith(".") and (c / "SKILL.md").is_file()]


def discover_skills(sources: Sequence[tuple[str, Path]], *, cache: Path | None = None) -> SkillIndex:
    """Load every skill in ``sources`` (``(label, folder)``, lowest precedence first).

    Missing folders are ignored. A skill in a later source replaces an earlier one with the
    same name (recorded in ``shadowed``); within one source the first folder (sorted) wins.
    ``cache`` names a JSON file of parsed frontmatter reused across processes
    (see :func:`cache_file`); parses are also cached in memory for this process.
    """
    disk = DiskCache(cache)
    index = SkillIndex()
    found: dict[str, Skill] = {}
    for label, root in sources:
        seen_here: set[str] = set()
        for folder in _skill_folders(Path(root)):
            parsed = _parse_cached(folder, label, disk)
            if isinstance(parsed, SkillError):
                index.warnings.append(f"skipped skill: {parsed}")
                continue
            index.warnings.extend(parsed.warnings)
            if parsed.name in seen_here:
                index.warnings.append(
                    f"{folder}: duplicate skill name '{parsed.name}' in {label} source; ignored"
                )
                continue
            seen_here.add(parsed.name)
            previous = found.get(parsed.name)
            if previous is not None:
                index.shadowed.append(Shadowing(winner=parsed, loser=previous))
            found[parsed.name] = parsed
    disk.save()
    index.skills = dict(sorted(found.items()))
    for shadow in index.shadowed:
        log.debug(
            "skill %s from %s shadows the one from %s",
            shadow.winner.name,
            shadow.winner.source,
            shadow.loser.source,
        )
    for message in index.warnings:
        _remember(message)
    return index
