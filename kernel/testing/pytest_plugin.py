"""pytest plugin (``pytest11`` entry point ``talaria``): fixtures for plugin authors.

Fixtures:

- ``talaria_home``: a fresh temporary ``TALARIA_HOME`` (the environment variable is set).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def talaria_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty ``TALARIA_HOME`` for one test."""
    home = tmp_path / "talaria-home"
    home.mkdir()
    monkeypatch.setenv("TALARIA_HOME", str(home))
    return home
