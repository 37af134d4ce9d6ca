"""Fixtures for the memory tests: the built-in memory plugin module and a temp home."""

from __future__ import annotations

from pathlib import Path

import pytest

from talaria.testing import load_plugin_module

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def memory_mod():
    return load_plugin_module(REPO / "plugins" / "memory")


@pytest.fixture
def home(talaria_home: Path) -> Path:
    """This test's TALARIA_HOME (``talaria_home`` from the ``talaria.testing`` pytest plugin)."""
    return talaria_home
