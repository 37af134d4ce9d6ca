"""The ``talaria`` entry point: registers the ``sqlite`` memory provider."""

from __future__ import annotations

from typing import Any

import talaria

from .provider import SqliteMemoryProvider


@talaria.hookimpl
def register_memory_providers(register: talaria.Registrar[Any]) -> None:
    register(SqliteMemoryProvider)
