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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .diskcache import DiskCache
from .notices import warn_once
from .skillfile import Skill, SkillError, parse_skill_file
from .sources import (  # re-exported: discovery's public surface predates the split
    bundled_skills_dir,
    cache_file,
    default_sources,
    set_plugin_skill_dirs,
    skill_entries,
    talaria_home,
)

__all__ = [
    "SkillIndex",
    "bundled_skills_dir",
    "cache_file",
    "default_sources",
    "discover_skills",
    "set_plugin_skill_dirs",
    "skill_entries",
    "talaria_home",
]

log = logging.getLogger("talaria.skills")

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


def _parse_cached(folder: Path, label: str, st: os.stat_result, disk: DiskCache) -> Skill | SkillError:
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
        for name, st in skill_entries(root):
            folder = Path(root) / name
            parsed = _parse_cached(folder, label, st, disk)
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
        warn_once(message)
    return index
