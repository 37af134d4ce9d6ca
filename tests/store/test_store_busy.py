"""Writers contending for the SQLite write lock retry instead of failing."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from talaria import Message, PersistenceError
from talaria.store import SessionRow, SqliteStore


async def test_two_connections_writing_concurrently_do_not_fail(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    # a tiny busy_timeout forces the explicit retry path, not just SQLite's own waiting
    a = SqliteStore(db, busy_timeout=0.001)
    b = SqliteStore(db, busy_timeout=0.001)
    await a.open()
    await b.open()
    try:
        await a.create_session(SessionRow(id="s", session_key="k"))

        async def writer(store: SqliteStore, name: str) -> None:
            for i in range(40):
                await store.append_messages("s", [Message(role="user", content=f"{name}{i}")], fence=None)
                await store.admit("p", "k", f"{name}-{i}", {})

        await asyncio.gather(writer(a, "a"), writer(b, "b"))
        contents = [m.content for m in await a.get_messages("s")]
        assert sorted(contents) == sorted([f"a{i}" for i in range(40)] + [f"b{i}" for i in range(40)])
        assert [c for c in contents if c.startswith("a")] == [f"a{i}" for i in range(40)]
    finally:
        await a.aclose()
        await b.aclose()


def _hold_write_lock(db: Path, seconds: float, started: threading.Event) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    started.set()
    time.sleep(seconds)
    conn.execute("COMMIT")
    conn.close()


async def test_a_write_waits_out_a_lock_held_by_another_process_connection(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    async with SqliteStore(db, busy_timeout=0.01, retry_for=10) as store:
        await store.create_session(SessionRow(id="s", session_key="k"))
        started = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(db, 0.4, started))
        holder.start()
        started.wait()
        await store.append_messages("s", [Message(role="user", content="after the lock")], fence=None)
        holder.join()
        assert [m.content for m in await store.get_messages("s")] == ["after the lock"]


async def test_a_lock_held_longer_than_the_retry_budget_is_a_persistence_error(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    async with SqliteStore(db, busy_timeout=0.01, retry_for=0.1) as store:
        await store.create_session(SessionRow(id="s", session_key="k"))
        started = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(db, 1.0, started))
        holder.start()
        started.wait()
        with pytest.raises(PersistenceError, match="locked"):
            await store.append_messages("s", [Message(role="user", content="x")], fence=None)
        holder.join()
        assert await store.get_messages("s") == []
