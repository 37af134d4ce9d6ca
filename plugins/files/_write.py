"""``write_file`` and ``edit_file``: atomic writes inside the workspace.

Contracts:

- ``write_file`` creates missing parent directories, replaces the file atomically (a
  temp file renamed over it, keeping an existing file's mode) and reports the bytes
  written.
- ``edit_file`` replaces the exact text ``old`` with ``new``. ``old`` must occur exactly
  once unless ``replace_all`` is true. Zero matches is an error that shows the closest
  lines of the file; several matches is an error with their count and line numbers.
  A file with CRLF line endings is matched with ``old``/``new`` converted to CRLF.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from talaria import ToolContext, ToolError

from ._paths import display, looks_binary, missing_hint, resolve

__all__ = ["write_file", "edit_file"]


async def write_file(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    path = resolve(ctx, arguments["path"])
    content: str = arguments["content"]
    return await asyncio.to_thread(_write, ctx, path, content)


def _write(ctx: ToolContext, path: Path, content: str) -> str:
    shown = display(ctx, path)
    if path.is_dir():
        raise ToolError(f"{shown} is a directory; give a file path.")
    existed = path.exists()
    data = content.encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, data)
    except PermissionError as exc:
        raise ToolError(f"{shown}: permission denied") from exc
    except OSError as exc:
        raise ToolError(f"{shown}: could not write: {exc.strerror or exc}") from exc
    verb = "Overwrote" if existed else "Created"
    return f"{verb} {shown} ({len(data)} bytes)."


def _atomic_write(path: Path, data: bytes) -> None:
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


async def edit_file(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    path = resolve(ctx, arguments["path"])
    return await asyncio.to_thread(
        _edit, ctx, path, arguments["old"], arguments["new"], bool(arguments.get("replace_all"))
    )


def _edit(ctx: ToolContext, path: Path, old: str, new: str, replace_all: bool) -> str:
    shown = display(ctx, path)
    if not path.exists():
        raise ToolError(missing_hint(ctx, path))
    if not path.is_file():
        raise ToolError(f"{shown} is not a regular file.")
    if old == "":
        raise ToolError("old is empty: give the exact text to replace (use write_file to create a file).")
    if old == new:
        raise ToolError("old and new are identical; nothing to change.")
    raw = path.read_bytes()
    if looks_binary(raw[:8192]):
        raise ToolError(f"{shown} is a binary file; edit_file only edits text.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not valid UTF-8; edit_file cannot edit it safely.") from exc
    if old not in text and "\r\n" in text and "\n" in old and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    count = text.count(old)
    if count == 0:
        raise ToolError(_no_match(shown, text, old))
    if count > 1 and not replace_all:
        lines = _match_lines(text, old)
        listed = ", ".join(map(str, lines[:20])) + (" …" if len(lines) > 20 else "")
        raise ToolError(
            f"old matches {count} times in {shown} (lines {listed}); include more surrounding "
            "text to make it unique, or set replace_all=true to replace every occurrence."
        )
    first_line = text[: text.index(old)].count("\n") + 1
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    _atomic_write(path, updated.encode("utf-8"))
    if replace_all and count > 1:
        return f"Replaced {count} occurrences in {shown}."
    return f"Replaced 1 occurrence in {shown} at line {first_line}."


def _match_lines(text: str, needle: str) -> list[int]:
    lines, start = [], 0
    while (index := text.find(needle, start)) != -1:
        lines.append(text.count("\n", 0, index) + 1)
        start = index + max(1, len(needle))
    return lines


def _no_match(shown: str, text: str, old: str) -> str:
    message = f"old text not found in {shown}."
    squeeze = lambda s: " ".join(s.split())  # noqa: E731
    if squeeze(old) and squeeze(old) in squeeze(text):
        message += " It matches if whitespace is ignored: copy the exact indentation and line breaks."
    file_lines = text.splitlines()
    wanted = next((ln.strip() for ln in old.splitlines() if ln.strip()), old.strip())
    scored = sorted(
        ((difflib.SequenceMatcher(None, wanted, ln.strip()).ratio(), i) for i, ln in enumerate(file_lines)),
        reverse=True,
    )[:3]
    close = [(i, file_lines[i]) for ratio, i in sorted(scored, key=lambda s: s[1]) if ratio >= 0.5]
    if close:
        rows = "\n".join(f"{i + 1}\t{line[:200]}" for i, line in close)
        message += f" Closest lines:\n{rows}"
    message += "\nRead the file again with read_file and copy the text exactly."
    return message
