"""Bundled context engine ``compressor`` (the default ``[context] engine``).

Clears old tool output first; when that is not enough, replaces the middle of the
conversation with a structured summary written by the (auxiliary) model. See
:mod:`.engine` for the guarantees and :mod:`.settings` for the ``[context.compressor]``
options. The engine is registered by reference: :mod:`.engine` is imported when a session
first uses it, not when the plugin loads.
"""

from __future__ import annotations

from typing import Any

import talaria

__all__ = ["CompressorEngine", "register_context_engines"]


@talaria.hookimpl
def register_context_engines(register: talaria.Registrar[Any]) -> None:
    """Register the ``compressor`` engine class (imported on first use)."""
    register(f"compressor = {__name__}.engine:CompressorEngine")


def __getattr__(name: str) -> Any:
    if name == "CompressorEngine":  # imported on first access
        from .engine import CompressorEngine

        return CompressorEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
