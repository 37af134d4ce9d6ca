"""Where a file tool may look: path resolution and workspace confinement.

Contract: every path a model passes is resolved relative to ``ctx.workspace`` (``~`` is
expanded); the result has its symlinks resolved. With ``[tools.files] confine = true``
(the default) a path whose resolved form is outside the resolved workspace — through
``..``, an absolute path or a symlink pointing out — is refused with a :class:`ToolError`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from talaria import ToolContext, ToolError

__all__ = ["options", "resolve", "display", "missing_hint", "looks_binary"]


def options(ctx: ToolContext) -> Mapping[str, Any]:
    """The ``[tools.files]`` config section (empty when absent)."""
    tools = ctx.config.get("tools") or {}
    section = tools.get("files") if isinstance(tools, Mapping) else None
    return section if isinstance(section, Mapping) else {}


def workspace(ctx: ToolContext) -> Path:
    return Path(ctx.workspace).expanduser().resolve()


def resolve(ctx: ToolContext, raw: str) -> Path:
    """Resolve ``raw`` against the workspace and enforce confinement (see module doc)."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError("path is empty: pass a path relative to the workspace, e.g. 'src/app.py'")
    if "\0" in raw:
        raise ToolError("path contains a NUL byte")
    root = workspace(ctx)
    candidate = Path(raw.strip()).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        resolved = candidate.resolve()
    except (RuntimeError, OSError) as exc:  # a symlink loop, a path that is too long
        raise ToolError(f"{raw}: cannot be resolved ({exc}).") from exc
    if options(ctx).get("confine", True) and not resolved.is_relative_to(root):
        via = " (through a symlink)" if _lexically_inside(candidate, root) else ""
        raise ToolError(
            f"{raw}: outside the workspace {root}{via}; file tools only reach paths inside it. "
            "Use a path relative to the workspace (the user can allow more with "
            "[tools.files] confine = false)."
        )
    return resolved


def _lexically_inside(path: Path, root: Path) -> bool:
    parts: list[str] = []
    for part in path.absolute().parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return Path(*parts).is_relative_to(root) if parts else False


def display(ctx: ToolContext, path: Path) -> str:
    """``path`` as the model should write it: relative to the workspace when inside it."""
    root = workspace(ctx)
    try:
        rel = path.relative_to(root)
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else "."


def missing_hint(ctx: ToolContext, path: Path) -> str:
    """An error message for a path that does not exist, with close matches when any."""
    shown = display(ctx, path)
    parent = path.parent
    suggestions: list[str] = []
    if parent.is_dir():
        try:
            names = [p.name for p in parent.iterdir()]
        except OSError:
            names = []
        close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
        suggestions = [display(ctx, parent / name) for name in close]
    hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
    return f"{shown}: no such file.{hint} Use list_dir or search_files to find the right path."


def looks_binary(chunk: bytes) -> bool:
    """True when a file's first bytes look like binary data, not text."""
    if not chunk:
        return False
    if b"\0" in chunk:
        return True
    control = sum(1 for b in chunk if b < 32 and b not in (9, 10, 12, 13, 27))
    return control / len(chunk) > 0.1
