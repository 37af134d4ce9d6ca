"""Schema version, forward migration from v1, WAL, refusing a newer database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from talaria import PersistenceError
from talaria.store import SCHEMA_VERSION, SqliteStore
from talaria.store.schema import MIGRATIONS


def _make_v1(path: Path) -> None:
    """A database as Talaria with schema version 1 wrote it (before the FTS index)."""
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("INSERT INTO schema_version(id, version) VALUES (1, 1)")
    conn.execute("INSERT INTO sessions(id, session_key, created_at, title) VALUES ('old', 'cli:main', 1.0, 'Old chat')")
    conn.execute(
        "INSERT INTO messages(session_id, seq, role, content, tool_calls, uid, created_at) VALUES "
        "('old', 1, 'user', 'legacy aardvark question', NULL, 'u1', 1.0), "
        "('old', 2, 'assistant', '', '[{\"id\":\"c\",\"name\":\"legacy_tool\",\"arguments\":{}}]', 'u2', 1.0)"
    )
    conn.commit()
    conn.close()


async def test_opening_a_v1_database_migrates_it(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    _make_v1(db)
    async with SqliteStore(db) as store:
        assert await store.schema_version() == SCHEMA_VERSION
        # rows written before the migration are intact and now searchable
        messages = await store.get_messages("old")
        assert [m.uid for m in messages] == ["u1", "u2"]
        assert messages[1].tool_calls[0].name == "legacy_tool"
        hits = await store.search_messages("aardvark")
        assert [(h.uid, h.title) for h in hits] == [("u1", "Old chat")]
        assert [h.uid for h in await store.search_messages("legacy_tool")] == ["u2"]
    async with SqliteStore(db) as again:  # re-opening is a no-op
        assert await again.schema_version() == SCHEMA_VERSION


async def test_a_fresh_file_gets_the_latest_schema_in_wal_mode(tmp_path: Path) -> None:
    db = tmp_path / "nested" / "state.db"
    async with SqliteStore(db) as store:
        assert await store.schema_version() == SCHEMA_VERSION
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    for table in ("sessions", "messages", "messages_fts", "system_prompts", "admissions", "turn_leases",
                  "compression_locks", "model_usage", "deliveries", "schema_version"):
        assert table in tables


async def test_a_newer_database_is_refused_with_advice(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    async with SqliteStore(db):
        pass
    conn = sqlite3.connect(db)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    store = SqliteStore(db)
    with pytest.raises(PersistenceError, match="upgrade Talaria"):
        await store.open()


async def test_two_stores_opening_one_new_file_at_once(tmp_path: Path) -> None:
    import asyncio

    db = tmp_path / "state.db"
    stores = [SqliteStore(db) for _ in range(3)]
    await asyncio.gather(*(s.open() for s in stores))
    for s in stores:
        assert await s.schema_version() == SCHEMA_VERSION
        await s.aclose()


async def test_unopenable_path_is_a_persistence_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(PersistenceError, match="cannot open"):
        await SqliteStore(blocker / "state.db").open()
