"""Where things live on disk: ``$TALARIA_HOME`` and the bundled resources."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

__all__ = ["bundled_dir", "talaria_home"]


def talaria_home() -> Path:
    """Return ``$TALARIA_HOME`` (default ``~/.talaria``); it is not created here."""
    raw = os.environ.get("TALARIA_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".talaria"


@cache
def _bundled_root() -> Path:
    here = Path(__file__).resolve().parent
    installed = here / "_bundled"  # a wheel ships plugins/, skills/, optional-mcps/ here
    if installed.is_dir():
        return installed
    return here.parent  # an editable install or a source checkout


def bundled_dir(kind: str) -> Path:
    """Return the folder of bundled ``plugins``, ``skills`` or ``optional-mcps``."""
    if kind not in ("plugins", "skills", "optional-mcps"):
        raise ValueError(f"unknown bundled resource kind: {kind!r}")
    return _bundled_root() / kind
