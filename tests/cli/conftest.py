"""Fixtures for the terminal channel: a fake OpenAI-compatible server and a home pointing at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import write_config

from talaria.testing.fakes import FakeLLMServer


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture()
def fake(fake_server: FakeLLMServer) -> FakeLLMServer:
    fake_server.reset()
    return fake_server


@pytest.fixture()
def home(tmp_path: Path, fake: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    write_config(path, fake.openai_base_url)
    monkeypatch.setenv("TALARIA_HOME", str(path))
    return path


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path
