"""Fixtures for the provider layer tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from provider_stubs import FakeClock, make_registry

from talaria import ProviderProfile


@pytest.fixture
def registry() -> dict[str, ProviderProfile]:
    return make_registry()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("TALARIA_HOME", str(home))
    return home


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
