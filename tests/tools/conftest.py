"""Shared kit for the core-tool tests: a home, a workspace and a ToolContext factory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from talaria import ToolContext


@pytest.fixture
def home(talaria_home: Path) -> Path:
    """This test's TALARIA_HOME (``talaria_home`` from the ``talaria.testing`` pytest plugin)."""
    return talaria_home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def make_ctx(workspace: Path, home: Path) -> Callable[..., ToolContext]:
    def make(**overrides: Any) -> ToolContext:
        fields: dict[str, Any] = {
            "session_id": "s1",
            "session_key": "agent:main:test",
            "workspace": workspace,
            "home": home,
            "state": {},
        }
        fields.update(overrides)
        return ToolContext(**fields)

    return make


@pytest.fixture
def ctx(make_ctx: Callable[..., ToolContext]) -> ToolContext:
    return make_ctx()
