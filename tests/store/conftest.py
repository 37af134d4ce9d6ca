"""Fixtures of the session-store tests: an open store in a temp TALARIA_HOME."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from talaria.store import SessionRow, SqliteStore


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TALARIA_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
async def store(home: Path) -> AsyncIterator[SqliteStore]:
    async with SqliteStore(home / "state.db") as opened:
        yield opened


@pytest.fixture
async def session(store: SqliteStore) -> SessionRow:
    return await store.create_session(
        SessionRow(id="ses_main", session_key="cli:main", source="cli", provider="openai",
                   model="gpt-test", cwd="/work/project")
    )
