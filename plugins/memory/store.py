"""The two memory files and safe edits to them.

``$TALARIA_HOME/memories/MEMORY.md`` (agent notes) and ``USER.md`` (user profile) hold
entries separated by a line containing only ``§``. Each file has a character limit
(``[memory] memory_char_limit`` = 2,200, ``user_char_limit`` = 1,375) counted on the file
content as written (entries joined by ``\\n§\\n``).

Every edit is a read-modify-write under an exclusive ``fcntl.flock`` on
``memories/.lock`` (two processes never lose each other's entries) and lands atomically
(temp file in the same folder, fsync, ``os.replace``): a reader sees the old or the new
file, never half of one. Errors are :class:`talaria.ToolError` whose message says what to do.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from talaria import ConfigError, ToolError

__all__ = ["DEFAULT_LIMITS", "FILES", "MemoryStore", "Target", "join_entries", "split_entries"]

Target = Literal["memory", "user"]
FILES: dict[str, str] = {"memory": "MEMORY.md", "user": "USER.md"}
DEFAULT_LIMITS: dict[str, int] = {"memory": 2200, "user": 1375}
SEPARATOR = "§"


def split_entries(text: str) -> list[str]:
    """Entries of a memory file (blank entries dropped, each stripped)."""
    entries: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip() == SEPARATOR:
            entries.append("\n".join(current).strip())
            current = []
        else:
            current.append(line)
    entries.append("\n".join(current).strip())
    return [e for e in entries if e]


def join_entries(entries: list[str]) -> str:
    return f"\n{SEPARATOR}\n".join(entries)


class Usage:
    """Characters a file holds (``used``) against its ``limit``; ``str()`` is the note shown."""

    __slots__ = ("used", "limit")

    def __init__(self, used: int, limit: int) -> None:
        self.used = used
        self.limit = limit

    def __str__(self) -> str:
        return f"{self.used:,}/{self.limit:,} chars"


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as fh:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - non-POSIX: atomic replace only
            yield
            return
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _brief(entry: str, width: int = 60) -> str:
    flat = " ".join(entry.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class MemoryStore:
    """The memory files under ``home/memories`` with limits from ``config['memory']``."""

    def __init__(self, home: Path, config: Mapping[str, Any] | None = None) -> None:
        self.dir = Path(home) / "memories"
        section = (config or {}).get("memory") or {}
        self.limits = {
            target: _limit(section, f"{target}_char_limit", default)
            for target, default in DEFAULT_LIMITS.items()
        }

    def path(self, target: Target) -> Path:
        if target not in FILES:
            raise ToolError(f"unknown target '{target}'; use 'memory' (your notes) or 'user' (the user profile)")
        return self.dir / FILES[target]

    def read(self, target: Target) -> list[str]:
        """Current entries of ``target`` (empty when the file does not exist)."""
        try:
            return split_entries(self.path(target).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []

    def usage(self, target: Target, entries: list[str] | None = None) -> Usage:
        entries = self.read(target) if entries is None else entries
        return Usage(len(join_entries(entries)), self.limits[target])

    # ------------------------------------------------------------------ edits

    def add(self, target: Target, content: str) -> str:
        content = _clean(content)
        with _locked(self.dir / ".lock"):
            entries = self.read(target)
            if content in entries:
                return f"Already in {FILES[target]} ({self.usage(target, entries)}); nothing changed."
            return self._commit(target, [*entries, content], "Added to")

    def replace(self, target: Target, match: str, content: str) -> str:
        content = _clean(content)
        with _locked(self.dir / ".lock"):
            entries = self.read(target)
            i = self._find(target, entries, match)
            entries[i] = content
            return self._commit(target, entries, "Replaced an entry in")

    def remove(self, target: Target, match: str) -> str:
        with _locked(self.dir / ".lock"):
            entries = self.read(target)
            i = self._find(target, entries, match)
            del entries[i]
            return self._commit(target, entries, "Removed an entry from")

    # ------------------------------------------------------------------ helpers

    def _find(self, target: Target, entries: list[str], match: str) -> int:
        if not match or not match.strip():
            raise ToolError("'match' is required: a short substring of the entry to change")
        hits = [i for i, e in enumerate(entries) if match in e]
        if not hits:
            raise ToolError(f"no entry in {FILES[target]} contains '{match}' ({len(entries)} entries)")
        if len(hits) > 1:
            shown = "; ".join(f"{n}) {_brief(entries[i])}" for n, i in enumerate(hits[:5], 1))
            raise ToolError(
                f"'{match}' matches {len(hits)} entries in {FILES[target]}: {shown}. "
                "Use a longer substring that matches exactly one."
            )
        return hits[0]

    def _commit(self, target: Target, entries: list[str], verb: str) -> str:
        usage = self.usage(target, entries)
        if usage.used > usage.limit:
            now = self.usage(target)
            raise ToolError(
                f"{FILES[target]} would hold {usage.used:,} chars, over its limit of {usage.limit:,} "
                f"(now {now}). Remove or shorten entries first (action 'remove' or 'replace')."
            )
        self._write(self.path(target), join_entries(entries))
        return f"{verb} {FILES[target]} ({usage}). It shows in the prompt from the next session."

    @staticmethod
    def _write(path: Path, text: str) -> None:
        import tempfile  # here, not at plugin import: it pulls in shutil, random, bz2, lzma

        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text + "\n" if text else "")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _limit(section: Mapping[str, Any], key: str, default: int) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"[memory] {key} must be a positive integer (characters), not {value!r}")
    return value


def _clean(content: str | None) -> str:
    text = (content or "").strip()
    if not text:
        raise ToolError("'content' is required and must not be empty")
    if any(line.strip() == SEPARATOR for line in text.splitlines()):
        raise ToolError(f"'content' must not contain a line with only '{SEPARATOR}' (it separates entries)")
    return text
