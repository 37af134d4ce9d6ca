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
def home(talaria_home: Path) -> Path:
    """This test's TALARIA_HOME (``talaria_home`` from the ``talaria.testing`` pytest plugin)."""
    return talaria_home


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
