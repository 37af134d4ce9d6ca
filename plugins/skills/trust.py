"""Trusted workspaces: ``$TALARIA_HOME/trusted.json`` = ``{"workspaces": ["/abs/path", …]}``.

A workspace is trusted when its resolved path equals, or lies inside, a recorded path.
Only a trusted workspace may contribute project skills (``.agents/skills``): a cloned
repository must not be able to inject instructions into the prompt unasked.
Writes are atomic (temp file + ``os.replace``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["add_trusted", "is_trusted", "load_trusted", "remove_trusted", "trust_file"]


def trust_file(home: Path) -> Path:
    return Path(home) / "trusted.json"


def load_trusted(home: Path) -> list[str]:
    """The recorded trusted workspace paths (empty when the file is missing or unreadable)."""
    try:
        data = json.loads(trust_file(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    paths = data.get("workspaces") if isinstance(data, dict) else None
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def is_trusted(home: Path, workspace: Path) -> bool:
    """True when ``workspace`` is a recorded path or inside one."""
    target = Path(workspace).resolve()
    for raw in load_trusted(home):
        root = Path(raw)
        if target == root or root in target.parents:
            return True
    return False


def _write(home: Path, paths: list[str]) -> None:
    import tempfile  # only when trust changes, not on every prompt build

    file = trust_file(home)
    file.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".trusted.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"workspaces": paths}, fh, indent=2)
            fh.write("\n")
        os.replace(tmp, file)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def add_trusted(home: Path, workspace: Path) -> bool:
    """Record ``workspace`` (resolved) as trusted; False when it already was recorded."""
    path = str(Path(workspace).resolve())
    paths = load_trusted(home)
    if path in paths:
        return False
    _write(home, [*paths, path])
    return True


def remove_trusted(home: Path, workspace: Path) -> bool:
    """Forget ``workspace``; False when it was not recorded."""
    path = str(Path(workspace).resolve())
    paths = load_trusted(home)
    if path not in paths:
        return False
    _write(home, [p for p in paths if p != path])
    return True
