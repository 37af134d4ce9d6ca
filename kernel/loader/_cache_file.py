"""The loader's cache files under ``$TALARIA_HOME/cache/``: one JSON object each, best effort.

A cache only ever saves work: a file that is missing, unreadable, damaged or of another
format reads as nothing, and a write that fails (a read-only home) is dropped — the next
start just recomputes. Writes replace the file atomically (a temporary file beside it, then
``os.replace``), so a reader never sees half a file.

Timestamps are coarse: something changed less than :data:`RACY_SECONDS` ago may change again
within the same tick unseen, so callers do not store answers derived from it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["RACY_SECONDS", "read_cache", "write_cache"]

RACY_SECONDS = 2.0


def read_cache(path: Path, fmt: int) -> dict[str, Any] | None:
    """The JSON object in ``path`` if it declares ``"format": fmt``; otherwise None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == fmt else None


def write_cache(path: Path, fmt: int, **fields: Any) -> None:
    """Replace ``path`` with ``{"format": fmt, **fields}``; failures are ignored."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"format": fmt, **fields}), encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass
