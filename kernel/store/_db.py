"""The store's connection type and its one-hop execution on aiosqlite's thread.

(Small transactions may also run inline on the loop thread: ``SqliteStore._execute``.)

aiosqlite gives each connection one worker thread and runs each statement there, one
thread hop (and one event-loop wake-up) per statement. The store instead runs a whole
read or write transaction as one plain function on that thread: a turn's dozen
transactions cost a dozen hops, not a hundred. The function receives the raw
:class:`DbConnection` and must not touch the event loop.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["DbConnection", "in_db_thread"]

T = TypeVar("T")


class DbConnection(sqlite3.Connection):
    """``sqlite3.Connection`` plus ``execute_fetchall`` (the shape the store's bodies use)."""

    def execute_fetchall(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        return self.execute(sql, parameters).fetchall()


async def in_db_thread(conn: Any, fn: Callable[[DbConnection], T], *, done: Callable[[Any], None] | None = None) -> T:
    """Run ``fn(raw_connection)`` on the aiosqlite connection's own worker thread.

    ``aiosqlite.Connection._execute`` is how aiosqlite itself queues work on that thread
    (every public method goes through it); its thread-confinement is what keeps the raw
    ``sqlite3`` connection safe to use from ``fn``. ``done`` is called on the loop when the
    worker has finished ``fn`` — even if the awaiting caller was cancelled meanwhile.
    """
    job = asyncio.ensure_future(conn._execute(lambda: fn(conn._conn)))
    if done is not None:
        job.add_done_callback(done)
    return await asyncio.shield(job)
