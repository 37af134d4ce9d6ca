"""Bundled context engine ``sliding-window``: drops the oldest exchanges, never calls a
model. Select it with ``[context] engine = "sliding-window"``. The engine is registered by
reference: :mod:`.engine` is imported only when a session uses it."""

from __future__ import annotations

from typing import Any

import talaria

__all__ = ["SlidingWindowEngine", "register_context_engines"]


@talaria.hookimpl
def register_context_engines(register: talaria.Registrar[Any]) -> None:
    """Register the ``sliding-window`` engine class (imported on first use)."""
    register(f"sliding-window = {__name__}.engine:SlidingWindowEngine")


def __getattr__(name: str) -> Any:
    if name == "SlidingWindowEngine":  # imported on first access
        from .engine import SlidingWindowEngine

        return SlidingWindowEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
