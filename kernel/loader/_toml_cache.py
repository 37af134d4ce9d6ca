"""Parsed TOML files (plugin manifests, provider profile tables) cached between processes.

Every start reads the same small TOML files: each plugin's ``plugin.toml`` and the provider
plugins' ``profiles.toml``. :mod:`tomllib` is a pure-Python parser (a few milliseconds for
the bundled set), while one JSON file holding the parsed tables loads in a fraction of that.
So, while plugins load, :func:`read_toml` answers from ``$TALARIA_HOME/cache/toml.json``
when a file's stat (inode, size, mtime, ctime) is what it was when it was parsed, and parses
it otherwise.

The cache never changes an answer:

- a file is keyed by its absolute path and its stat; editing it, replacing it (a new inode)
  or touching it (even setting its mtime back: the ctime moves) makes it a miss;
- a file modified less than :data:`~._cache_file.RACY_SECONDS` ago is parsed but not
  stored (timestamps are coarse: a second edit within the same tick would go unseen);
- only tables JSON keeps exactly are stored (strings, integers, floats, booleans, arrays and
  tables; a file holding a date or time is parsed every time);
- a damaged, unreadable or unwritable cache file only costs a parse.

Outside :func:`caching` (plugin authors calling :func:`talaria.profiles_from_toml` in a test,
say), :func:`read_toml` simply parses.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ._cache_file import RACY_SECONDS, read_cache, write_cache

__all__ = ["TomlCache", "caching", "read_toml"]

FORMAT = 1
#: Files remembered at most (the bundled set is about twenty).
MAX_FILES = 256

_ACTIVE: ContextVar[TomlCache | None] = ContextVar("talaria_toml_cache", default=None)


def _parse(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def _stat_key(st: os.stat_result) -> list[int]:
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _exact_in_json(value: Any) -> bool:
    """True when JSON gives ``value`` back unchanged (no dates or times anywhere in it)."""
    kind = type(value)
    if kind in (str, int, float, bool):
        return True
    if kind is list:
        return all(_exact_in_json(v) for v in value)
    if kind is dict:
        return all(type(k) is str and _exact_in_json(v) for k, v in value.items())
    return False


class TomlCache:
    """Parsed TOML tables by path and stat, loaded from and saved to one JSON file."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self._files: dict[str, dict[str, Any]] = self._load(file)
        self._changed = False

    @staticmethod
    def _load(file: Path) -> dict[str, dict[str, Any]]:
        data = read_cache(file, FORMAT)
        if data is None or not isinstance(data.get("files"), dict):
            return {}
        return {
            path: entry
            for path, entry in data["files"].items()
            if isinstance(entry, dict) and isinstance(entry.get("stat"), list) and isinstance(entry.get("table"), dict)
        }

    def read(self, path: Path) -> dict[str, Any]:
        """The parsed table of ``path``; raises what reading and :func:`tomllib.loads` raise."""
        st = os.stat(path)  # a missing file raises FileNotFoundError, as reading it would
        key = str(Path(path).absolute())
        stat = _stat_key(st)
        entry = self._files.get(key)
        if entry is not None and entry["stat"] == stat:
            return entry["table"]  # type: ignore[no-any-return]
        table = _parse(path)
        racy = st.st_mtime_ns > (time.time() - RACY_SECONDS) * 1e9  # ctime is in the key: a touch misses
        if racy or not _exact_in_json(table):
            self._files.pop(key, None)
        else:
            self._files[key] = {"stat": stat, "table": table}
            self._changed = True
        return table

    def save(self) -> None:
        """Write the cache if a file was parsed into it (atomically; errors are ignored)."""
        if not self._changed:
            return
        write_cache(self.file, FORMAT, files=dict(list(self._files.items())[-MAX_FILES:]))  # a failure costs a parse
        self._changed = False


def read_toml(path: str | Path) -> dict[str, Any]:
    """Parse the TOML file ``path`` (from the cache while :func:`caching` is active).

    Raises what ``path.read_text()`` and :func:`tomllib.loads` raise (``OSError``,
    ``UnicodeDecodeError``, ``tomllib.TOMLDecodeError``). Callers must not mutate the result.
    """
    cache = _ACTIVE.get()
    path = Path(path)
    return cache.read(path) if cache is not None else _parse(path)


@contextmanager
def caching(file: Path | None) -> Iterator[None]:
    """Within the block, :func:`read_toml` uses (and then saves) the cache ``file``; None: no cache."""
    if file is None:
        yield
        return
    cache = TomlCache(file)
    token = _ACTIVE.set(cache)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
        cache.save()
