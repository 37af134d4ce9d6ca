"""``read_file`` and ``list_dir``: bounded, line-numbered views of the workspace.

Contracts:

- ``read_file`` returns ``<n>\\t<line>`` rows (1-based ``n``), at most ``limit`` lines
  (default and cap: ``[tools.files] max_lines``, 2000) and about ``max_chars`` characters
  (40 000); long lines are cut at 2000 characters. When more remains, a last line says
  which ``offset`` continues. Binary files, directories and missing files are
  :class:`ToolError`\\ s that say what to do instead.
- ``list_dir`` returns one entry per line (``d``/``f``/``l`` type, size, name), directories
  first, at most ``max_entries`` (500) with a note of how many were left out.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from talaria import ToolContext, ToolError

from ._paths import display, looks_binary, missing_hint, options, resolve

__all__ = ["read_file", "list_dir", "human_size"]

MAX_LINE_CHARS = 2000


async def read_file(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    path = resolve(ctx, arguments["path"])
    opts = options(ctx)
    max_lines = int(opts.get("max_lines", 2000))
    max_chars = int(opts.get("max_chars", 40_000))
    offset = max(1, int(arguments.get("offset") or 1))
    limit = min(int(arguments.get("limit") or max_lines), max_lines)
    return await asyncio.to_thread(_read, ctx, path, offset, limit, max_chars)


def _check_readable(ctx: ToolContext, path: Path) -> None:
    if not path.exists():
        raise ToolError(missing_hint(ctx, path))
    if path.is_dir():
        raise ToolError(f"{display(ctx, path)} is a directory; use list_dir to see its entries.")
    if not path.is_file():
        raise ToolError(f"{display(ctx, path)} is not a regular file.")


def _read(ctx: ToolContext, path: Path, offset: int, limit: int, max_chars: int) -> str:
    _check_readable(ctx, path)
    shown = display(ctx, path)
    try:
        with path.open("rb") as fh:
            head = fh.read(8192)
    except PermissionError as exc:
        raise ToolError(f"{shown}: permission denied") from exc
    if looks_binary(head):
        size = human_size(path.stat().st_size)
        raise ToolError(f"{shown} is a binary file ({size}); read_file only shows text.")
    rows: list[str] = []
    used = 0
    total = 0
    last = offset - 1
    cut_for_size = False
    with path.open("r", encoding="utf-8", errors="replace", newline=None) as fh:
        for total, line in enumerate(fh, start=1):
            if total < offset or cut_for_size or len(rows) >= limit:
                continue
            line = line.rstrip("\n")
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + f"… [{len(line) - MAX_LINE_CHARS} chars cut]"
            row = f"{total}\t{line}"
            if used + len(row) > max_chars and rows:
                cut_for_size = True
                continue
            rows.append(row)
            used += len(row) + 1
            last = total
    if total == 0:
        return f"{shown} is empty."
    if offset > total:
        raise ToolError(f"{shown} has {total} lines; offset {offset} is past the end.")
    if last < total:
        rows.append(
            f"[showing lines {offset}-{last} of {total}; "
            f"call read_file with offset={last + 1} to read more]"
        )
    return "\n".join(rows)


async def list_dir(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    path = resolve(ctx, arguments.get("path") or ".")
    cap = int(options(ctx).get("max_entries", 500))
    return await asyncio.to_thread(_list, ctx, path, cap)


def _list(ctx: ToolContext, path: Path, cap: int) -> str:
    if not path.exists():
        raise ToolError(missing_hint(ctx, path).replace("no such file", "no such directory"))
    if not path.is_dir():
        raise ToolError(f"{display(ctx, path)} is a file, not a directory; use read_file.")
    entries: list[tuple[int, str, str]] = []
    with os.scandir(path) as it:
        for entry in it:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(entry.path)
                except OSError:
                    target = "?"
                entries.append((1, entry.name, f"l {'':>6} {entry.name} -> {target}"))
            elif stat.S_ISDIR(st.st_mode):
                entries.append((0, entry.name, f"d {'':>6} {entry.name}/"))
            else:
                entries.append((1, entry.name, f"f {human_size(st.st_size):>6} {entry.name}"))
    if not entries:
        return f"{display(ctx, path)} is empty."
    entries.sort(key=lambda e: (e[0], e[1].lower()))
    lines = [e[2] for e in entries[:cap]]
    if len(entries) > cap:
        lines.append(f"[{len(entries) - cap} more entries not shown; use search_files with a glob]")
    return "\n".join(lines)


def human_size(size: int) -> str:
    """``size`` bytes as a short string: ``512``, ``1.2K``, ``3.4M``."""
    value = float(size)
    for unit in ("", "K", "M", "G"):
        if value < 1024 or unit == "G":
            return f"{int(value)}" if unit == "" else f"{value:.1f}{unit}"
        value /= 1024
    return str(size)  # pragma: no cover
