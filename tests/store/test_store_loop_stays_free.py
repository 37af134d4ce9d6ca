"""Another process holding the write lock never blocks this process's event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from talaria import Message
from talaria.store import SessionRow, SqliteStore


async def test_a_write_waiting_for_another_writer_leaves_the_loop_running(store: SqliteStore, session: SessionRow, home: Path) -> None:
    other = sqlite3.connect(home / "state.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process is in the middle of a write
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beat = asyncio.create_task(ticker())
    write = asyncio.create_task(store.append_messages(session.id, [Message(role="user", content="hi")], fence=None))
    started = time.monotonic()
    await asyncio.sleep(0.3)
    assert not write.done() and ticks >= 10, "the loop stalled while the write waited for the lock"
    other.execute("COMMIT")
    await asyncio.wait_for(write, 10)
    beat.cancel()
    other.close()
    assert time.monotonic() - started < 10
    assert [m.content for m in await store.get_messages(session.id)] == ["hi"]


async def test_a_cancelled_caller_does_not_let_later_work_overlap_the_running_one(store: SqliteStore, session: SessionRow, home: Path) -> None:
    other = sqlite3.connect(home / "state.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    first = asyncio.create_task(store.append_messages(session.id, [Message(role="user", content="a")], fence=None))
    await asyncio.sleep(0.1)  # it is now waiting in the worker thread
    first.cancel()
    second = asyncio.create_task(store.append_messages(session.id, [Message(role="user", content="b")], fence=None))
    await asyncio.sleep(0.1)
    other.execute("COMMIT")
    other.close()
    await asyncio.wait_for(second, 10)
    contents = [m.content for m in await store.get_messages(session.id)]
    # the cancelled caller's write still ran to its end in the worker; the second came after it
    assert contents == ["a", "b"]
