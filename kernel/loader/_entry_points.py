"""The ``talaria`` entry points of installed distributions, cached between processes.

Reading entry points means importing :mod:`importlib.metadata` and opening the metadata of
every distribution on ``sys.path`` (tens of milliseconds with a hundred-odd installed), on
every start. The answer changes only when a distribution is installed, upgraded or removed,
and each of those adds or removes a ``*.dist-info`` / ``*.egg-info`` entry in a ``sys.path``
directory, which changes that directory's stat. So the cache is keyed on ``sys.path`` and
the stat (mtime, link count, size) of each of its entries, plus the stat of every
``entry_points.txt`` that contributed a plugin (so an entry point edited in place is seen);
any difference means a fresh scan with :mod:`importlib.metadata`, whose answer is what the
cache holds.

A scan is not cached while a keyed path changed less than :data:`RACY_SECONDS` ago (file
system timestamps are coarse: a second change within the same tick would go unseen). A
cache that cannot be read or written is ignored: it only ever costs a rescan.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .._values import value_type
from ._cache_file import RACY_SECONDS, read_cache, write_cache

__all__ = ["InstalledEntryPoint", "installed_entry_points", "load_value"]

GROUP = "talaria"
FORMAT = 1
#: Cached answers kept, one per interpreter and ``sys.path`` (``python -m``, the console
#: script and ``python -c`` each see a different first entry).
MAX_ENTRIES = 8
#: Paths changed more recently than this are not trusted to key a cache entry.


@value_type(kw_only=False)
class InstalledEntryPoint:
    """One ``talaria`` entry point: ``name = value`` declared by ``distribution`` ``version``."""

    name: str
    value: str
    distribution: str
    version: str
    load: Callable[[], Any]


def load_value(value: str) -> Any:
    """Import the object an entry point names (``module`` or ``module:attr.attr``),
    as :meth:`importlib.metadata.EntryPoint.load` does."""
    import importlib

    module_name, _, attrs = value.partition(":")
    module_name = module_name.strip()
    attrs = attrs.split("[", 1)[0].strip()  # ignore extras
    obj: Any = importlib.import_module(module_name)
    for attr in filter(None, attrs.split(".")):
        obj = getattr(obj, attr)
    return obj


def _stat_key(path: str) -> list[Any] | None:
    try:
        st = os.stat(path or ".")
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_nlink, st.st_size]


def _key(paths: Iterable[str], sources: Iterable[str], path_stats: list[Any] | None = None) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "executable": sys.executable,
        "path": path_stats if path_stats is not None else [[p, _stat_key(p)] for p in paths],
        "sources": [[s, _stat_key(s)] for s in sources],
    }


def _racy(key: dict[str, Any], now: float) -> bool:
    limit = (now - RACY_SECONDS) * 1e9
    return any(stat is not None and stat[0] > limit for _, stat in key["path"] + key["sources"])


def _scan() -> tuple[list[dict[str, str]], list[str]]:
    """Entry points via importlib.metadata, and the entry_points.txt files they came from."""
    from importlib.metadata import entry_points

    found, sources = [], []
    for ep in entry_points(group=GROUP):
        dist = ep.dist
        found.append({
            "name": ep.name,
            "value": ep.value,
            "distribution": dist.name if dist is not None else "?",
            "version": dist.version if dist is not None else "?",
        })
        meta_dir = getattr(dist, "_path", None)  # PathDistribution's metadata folder
        if meta_dir is not None:
            sources.append(str(Path(meta_dir) / "entry_points.txt"))
    return found, sorted(set(sources))


def _read(cache: Path) -> list[dict[str, Any]]:
    """The cached entries (one per interpreter and ``sys.path``), most recent first."""
    data = read_cache(cache, FORMAT)
    if data is None or not isinstance(data.get("entries"), list):
        return []
    return [e for e in data["entries"] if _well_formed(e)]


def _well_formed(entry: Any) -> bool:
    key = entry.get("key") if isinstance(entry, dict) else None
    if not isinstance(key, dict) or not isinstance(entry.get("entry_points"), list):
        return False
    pairs = [*key.get("path", ()), *key.get("sources", ())] if isinstance(key.get("path"), list) else None
    return pairs is not None and isinstance(key.get("sources", []), list) and all(
        isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) for pair in pairs
    )


def _write(cache: Path, entry: dict[str, Any], others: list[dict[str, Any]]) -> None:
    same = (entry["key"]["executable"], [p for p, _ in entry["key"]["path"]])
    kept = [e for e in others if (e["key"].get("executable"), [p for p, _ in e["key"].get("path", [])]) != same]
    write_cache(cache, FORMAT, entries=[entry, *kept][:MAX_ENTRIES])  # best effort: a failure costs a rescan


def _cached_records(entries: list[dict[str, Any]], paths: list[str]) -> list[dict[str, str]] | None:
    """The cached answer for this interpreter and ``sys.path`` if nothing changed, else None."""
    try:
        for entry in entries:
            key = entry["key"]
            if key.get("executable") != sys.executable or [p for p, _ in key.get("path", [])] != paths:
                continue
            if key != _key(paths, [source for source, _ in key.get("sources", [])]):
                return None
            records = entry["entry_points"]
            fields = ("name", "value", "distribution", "version")
            if all(isinstance(r, dict) and all(isinstance(r.get(f), str) for f in fields) for r in records):
                return records
            return None
    except (KeyError, TypeError, ValueError):  # a damaged cache only costs a rescan
        return None
    return None


def installed_entry_points(cache: Path | None = None) -> list[InstalledEntryPoint]:
    """Every ``talaria`` entry point of the distributions on ``sys.path``.

    :param cache: a JSON file to reuse between processes (None: always scan).
    """
    paths = list(sys.path)
    entries = _read(cache) if cache is not None else []
    records = _cached_records(entries, paths)
    if records is None:
        now = time.time()
        path_stats = [[p, _stat_key(p)] for p in paths]  # before the scan: a change during it rescans
        records, sources = _scan()
        key = _key(paths, sources, path_stats)
        if cache is not None and not _racy(key, now):
            _write(cache, {"key": key, "entry_points": records}, entries)
    return [
        InstalledEntryPoint(
            name=r["name"], value=r["value"], distribution=r["distribution"], version=r["version"],
            load=lambda value=r["value"]: load_value(value),
        )
        for r in records
    ]
