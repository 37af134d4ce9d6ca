"""A small on-disk cache of parsed ``SKILL.md`` frontmatter (``$TALARIA_HOME/cache/skills.json``).

Why: a cold ``talaria run`` would otherwise import PyYAML and parse every skill before the
first request. Entries are keyed by folder + source label and are valid only while the
file's ``mtime_ns`` and size are unchanged; anything unreadable is treated as a miss. The file
is rewritten atomically, and only when a parse happened. Losing it costs one re-parse.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .skillfile import Skill, SkillError

__all__ = ["DiskCache"]

VERSION = 1


class DiskCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, Any] = {}
        self.dirty = False
        if path is not None:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("version") == VERSION and isinstance(data.get("entries"), dict):
                    self.entries = data["entries"]
            except (OSError, ValueError, AttributeError):
                pass

    @staticmethod
    def _key(folder: Path, label: str) -> str:
        return f"{label}\0{folder}"

    def get(self, folder: Path, label: str, mtime_ns: int, size: int) -> Skill | SkillError | None:
        hit = self.entries.get(self._key(folder, label))
        if not isinstance(hit, dict) or hit.get("mtime_ns") != mtime_ns or hit.get("size") != size:
            return None
        try:
            if "error" in hit:
                return SkillError(hit["error"])
            s = hit["skill"]
            return Skill(
                name=s["name"], description=s["description"], path=folder, source=label,
                license=s.get("license"), compatibility=s.get("compatibility"),
                metadata=s.get("metadata") or {}, allowed_tools=s.get("allowed_tools"),
                warnings=tuple(s.get("warnings") or ()),
            )
        except (KeyError, TypeError):
            return None

    def put(self, folder: Path, label: str, mtime_ns: int, size: int, value: Skill | SkillError) -> None:
        entry: dict[str, Any] = {"mtime_ns": mtime_ns, "size": size}
        if isinstance(value, SkillError):
            entry["error"] = str(value)
        else:
            entry["skill"] = {
                "name": value.name, "description": value.description, "license": value.license,
                "compatibility": value.compatibility, "metadata": dict(value.metadata),
                "allowed_tools": value.allowed_tools, "warnings": list(value.warnings),
            }
        self.entries[self._key(folder, label)] = entry
        self.dirty = True

    def save(self) -> None:
        """Write the cache if it changed, dropping entries whose skill folder is gone."""
        if self.path is None or not self.dirty:
            return
        entries = {
            k: v for k, v in self.entries.items() if (Path(k.partition("\0")[2]) / "SKILL.md").exists()
        }
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".skills.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": VERSION, "entries": entries}, fh, default=str)
            os.replace(tmp, self.path)
        except (OSError, TypeError, ValueError):
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            return  # a cache that cannot be written is only slower, never wrong
        self.dirty = False
