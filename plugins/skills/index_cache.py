"""The finished skills index, kept on disk between processes (``$TALARIA_HOME/cache/skills-index.json``).

Why: every ``talaria run`` / ``chat`` builds the system prompt before its first request, and
building the index means loading discovery, parsing and rendering. When nothing changed since
the last run, the previous result is reused instead.

Contract: an entry is reused only when its key equals :func:`fingerprint` of the session's
sources and budget, which covers everything the index text depends on — each source's label
and folder (so the home, the workspace, trust, ``extra_dirs`` and plugin folders), every skill
folder's name with its ``SKILL.md`` mtime and size (a skill added, removed or edited), the
budget (context window and ``[skills]`` config) and this plugin's own code. A missing,
unreadable or malformed file is a miss; it only costs one rebuild, after which the file is
rewritten atomically. The most recent :data:`MAX_ENTRIES` keys are kept (several workspaces).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .sources import skill_entries

__all__ = ["CachedIndex", "MAX_ENTRIES", "fingerprint", "index_cache_file", "load_index", "save_index"]

VERSION = 1
MAX_ENTRIES = 16
_HERE = os.path.dirname(os.path.abspath(__file__))
#: This plugin's modules whose code shapes the index text; editing or upgrading them is a change.
_CODE = ("discovery.py", "index_cache.py", "prompt_index.py", "skillfile.py", "sources.py")

#: ``(text, notices, warnings)``: the index text (``""`` = no section), the discovery
#: warnings (logged once per process) and the budget warnings (logged on every build).
CachedIndex = tuple[str, list[str], list[str]]


def index_cache_file(home: Path) -> Path:
    """Where finished indexes are kept for ``home``."""
    return Path(home) / "cache" / "skills-index.json"


def _code_stamp() -> list[list[int]]:
    out = []
    for name in _CODE:
        try:
            st = os.stat(os.path.join(_HERE, name))
            out.append([st.st_mtime_ns, st.st_size])
        except OSError:
            out.append([])
    return out


def fingerprint(sources: Sequence[tuple[str, Path]], budget: int) -> str:
    """The cache key for an index of ``sources`` (lowest precedence first) within ``budget``."""
    parts: list[Any] = [VERSION, budget, _code_stamp()]
    for label, root in sources:
        entries = [[name, st.st_mtime_ns, st.st_size] for name, st in skill_entries(root)]
        parts.append([str(label), os.fspath(root), entries])
    return json.dumps(parts, separators=(",", ":"))


def _read(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return []
    entries = data.get("entries")
    return entries if isinstance(entries, list) else []


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def load_index(path: Path, key: str) -> CachedIndex | None:
    """The index cached under ``key``, or None (not there, or the file is damaged)."""
    for entry in _read(path):
        if isinstance(entry, dict) and entry.get("key") == key:
            text, notices, warnings = entry.get("text"), entry.get("notices"), entry.get("warnings")
            if isinstance(text, str) and _strings(notices) and _strings(warnings):
                return text, notices, warnings
            return None
    return None


def save_index(path: Path, key: str, text: str, notices: Sequence[str], warnings: Sequence[str]) -> None:
    """Keep ``text`` (and its warnings) under ``key``; never raises (an unwritable cache is only slower)."""
    import tempfile

    fresh = {"key": key, "text": text, "notices": list(notices), "warnings": list(warnings)}
    kept = [e for e in _read(path) if isinstance(e, dict) and e.get("key") != key]
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".skills-index.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": VERSION, "entries": [fresh, *kept][:MAX_ENTRIES]}, fh)
        os.replace(tmp, path)
    except (OSError, TypeError, ValueError):
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
