"""Command-line extras: slash commands and doctor checks.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from .._values import value_type


__all__ = ["SlashCommand", "CheckResult", "DoctorCheck"]


@value_type
class SlashCommand:
    """An in-chat ``/command``; ``handler(args, ctx)`` may be sync or async and may return text."""

    name: str
    description: str
    handler: Callable[..., Any]
    args_hint: str = ""


@value_type
class CheckResult:
    """One line of ``talaria doctor``."""

    name: str
    ok: bool
    detail: str = ""
    hint: str = ""
    level: Literal["ok", "warn", "error"] | None = None


@value_type
class DoctorCheck:
    """A ``talaria doctor`` check: ``run(kernel)`` returns one or more :class:`CheckResult`."""

    name: str
    run: Callable[[Any], Any]
