"""Bundled context engine ``sliding-window``: drops the oldest exchanges, never calls a
model. Select it with ``[context] engine = "sliding-window"``."""

from __future__ import annotations

import talaria

from .engine import SlidingWindowEngine

__all__ = ["SlidingWindowEngine", "register_context_engines"]


@talaria.hookimpl
def register_context_engines(register: talaria.Registrar) -> None:
    """Register the ``sliding-window`` engine class."""
    register(SlidingWindowEngine)
