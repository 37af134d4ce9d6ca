"""``search_files``: regex over file contents and/or glob over file names.

Contract: walks ``path`` (default: the workspace) skipping ``.git`` and whatever
``.gitignore`` ignores. With ``pattern`` it returns ``file:line: text`` rows of matching
lines (binary and very large files skipped); with only ``glob`` it returns matching file
paths; with both, contents of the files the glob selects. A glob without ``/`` matches file
names at any depth (``*.py``); with ``/`` it matches the path relative to ``path``
(``src/**/test_*.py``). Results are capped (``[tools.files] max_results``, 100) with a note.
Symlinked directories are not followed, and with ``confine`` on (the default) a symlinked
file that leads out of the workspace is skipped: a search never reads outside it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from talaria import ToolContext, ToolError

from ._ignore import glob_regex, walk_files
from ._paths import display, looks_binary, missing_hint, options, resolve, workspace

__all__ = ["search_files"]

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_ROW_CHARS = 240


async def search_files(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    pattern = arguments.get("pattern") or None
    glob = arguments.get("glob") or None
    if pattern is None and glob is None:
        raise ToolError("give a regex `pattern` (file contents), a `glob` (file names), or both.")
    regex = None
    if pattern is not None:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolError(f"invalid regex {pattern!r}: {exc}. Escape special characters like ( [ . with \\.") from exc
    start = resolve(ctx, arguments.get("path") or ".")
    if not start.exists():
        raise ToolError(missing_hint(ctx, start))
    cap = int(options(ctx).get("max_results", 100))
    return await asyncio.to_thread(_search, ctx, start, regex, glob, cap)


def _glob_matcher(glob: str) -> re.Pattern[str]:
    glob = glob.strip()
    if glob.startswith("./"):
        glob = glob[2:]
    body = glob_regex(glob)
    return re.compile(f"^{body}$" if "/" in glob else f"^(?:.*/)?{body}$")


def _search(ctx: ToolContext, start: Path, regex: re.Pattern[str] | None, glob: str | None, cap: int) -> str:
    root = workspace(ctx)
    base = start if start.is_dir() else start.parent
    if start.is_file():
        files = iter([start])
    else:
        files = walk_files(root if start.is_relative_to(root) else start, start)
    name_match = _glob_matcher(glob) if glob else None
    confine = options(ctx).get("confine", True)
    rows: list[str] = []
    more = 0
    matched_files = 0
    for file in files:
        if confine and file.is_symlink() and not _points_inside(file, root):
            continue  # a symlinked file leading out of the workspace is not searched
        rel = file.relative_to(base).as_posix()
        if name_match and not name_match.match(rel):
            continue
        if regex is None:
            if len(rows) < cap:
                rows.append(display(ctx, file))
            else:
                more += 1
            continue
        hits = _grep(file, regex)
        if hits:
            matched_files += 1
        for lineno, text in hits:
            if len(rows) < cap:
                rows.append(f"{display(ctx, file)}:{lineno}: {text}")
            else:
                more += 1
    what = "files" if regex is None else "matching lines"
    if not rows:
        where = display(ctx, start)
        return f"No {what} found under {where} (.git and .gitignored paths are skipped)."
    if more:
        rows.append(f"[{more} more {what} not shown; narrow the search with path or glob]")
    return "\n".join(rows)


def _points_inside(link: Path, root: Path) -> bool:
    try:
        return link.resolve().is_relative_to(root)
    except (RuntimeError, OSError):  # a symlink loop
        return False


def _grep(file: Path, regex: re.Pattern[str]) -> list[tuple[int, str]]:
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            return []
        data = file.read_bytes()
    except OSError:
        return []
    if looks_binary(data[:8192]):
        return []
    hits: list[tuple[int, str]] = []
    for lineno, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        if regex.search(line):
            text = line.strip()
            if len(text) > MAX_ROW_CHARS:
                text = text[:MAX_ROW_CHARS] + "…"
            hits.append((lineno, text))
    return hits
