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
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("TALARIA_HOME", str(home))
    return home
