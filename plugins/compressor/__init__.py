"""Bundled context engine ``compressor`` (the default ``[context] engine``).

Clears old tool output first; when that is not enough, replaces the middle of the
conversation with a structured summary written by the (auxiliary) model. See
:mod:`.engine` for the guarantees and :mod:`.settings` for the ``[context.compressor]``
options.
"""

from __future__ import annotations

import talaria

from .engine import CompressorEngine

__all__ = ["CompressorEngine", "register_context_engines"]


@talaria.hookimpl
def register_context_engines(register: talaria.Registrar) -> None:
    """Register the ``compressor`` engine class."""
    register(CompressorEngine)
