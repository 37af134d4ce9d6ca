"""``SqliteStore``: the default session store, one SQLite file through aiosqlite.

Connection settings: WAL journal, ``synchronous=NORMAL`` (a committed write survives a crash
of the process; a power cut may lose the last commits but never corrupts), ``busy_timeout``
and, on top of it, an explicit retry with exponential backoff of whole write transactions
that still fail with ``SQLITE_BUSY`` / "database is locked".

Every write runs as ``BEGIN IMMEDIATE … COMMIT`` (it takes the write lock up front, so two
processes never deadlock upgrading a read to a write). One connection per store object.
Each read or write transaction is one plain function run on the connection's worker thread
in a single hop (``_db.in_db_thread``); aiosqlite's queue serializes them, so coroutines of
this process never interleave statements.

Usage::

    async with SqliteStore(home / "state.db") as store:
        await store.create_session(SessionRow(id=new_id(), session_key="cli:main"))
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from ..errors import PersistenceError, StoreError
from ._cache import TranscriptCache
from ._db import DbConnection, in_db_thread
from ._leases import LeaseMixin
from ._ledger import LedgerMixin
from ._queue import QueueMixin
from ._search import SearchMixin
from ._transcript import TranscriptMixin
from ._turns import TurnMixin
from .schema import MIGRATIONS, SCHEMA_VERSION

__all__ = ["SqliteStore", "is_busy_error"]

T = TypeVar("T")
Conn = aiosqlite.Connection


def is_busy_error(exc: BaseException) -> bool:
    """True for SQLite's "database is locked" / "database is busy" errors."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return True
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class SqliteStore(TranscriptMixin, SearchMixin, QueueMixin, LeaseMixin, LedgerMixin, TurnMixin):
    """The :class:`~talaria.store.base.SessionStore` over one SQLite file.

    :param path: the database file (created with its folder when missing).
    :param busy_timeout: seconds SQLite itself waits for another writer per attempt.
    :param retry_for: total seconds a write keeps retrying on busy errors before it raises
        :class:`~talaria.errors.PersistenceError`.
    :param synchronous: SQLite ``synchronous`` pragma (``NORMAL`` or ``FULL``).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout: float = 5.0,
        retry_for: float = 30.0,
        synchronous: str = "NORMAL",
    ) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.retry_for = retry_for
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be NORMAL or FULL, not {synchronous!r}")
        self.synchronous = synchronous.upper()
        self._conn: Conn | None = None
        self._revoked: set[tuple[str, str, int]] = set()
        self._inflight = 0  # statements queued on or running in the worker thread
        self._busy_ms = int(busy_timeout * 1000)
        self._transcripts = TranscriptCache()
        self._release_events: dict[str, asyncio.Event] = {}

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        """Open the file (creating it and its folder), set pragmas and migrate to
        :data:`~talaria.store.schema.SCHEMA_VERSION`. Idempotent; cost is a few statements.

        Raises :class:`PersistenceError` when the file cannot be opened or was written by a
        newer Talaria (schema version above ours)."""
        if self._conn is not None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = await aiosqlite.connect(
                self.path, timeout=self.busy_timeout, isolation_level=None, factory=DbConnection,
                check_same_thread=False,  # inline work runs on the loop thread while the worker idles
            )
        except (OSError, sqlite3.Error) as exc:
            raise PersistenceError(f"cannot open the session store {self.path}: {exc}") from exc
        self._conn = conn
        try:
            await conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            await self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL"), "set WAL")
            await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            await self._migrate()
        except sqlite3.Error as exc:
            self._conn = None
            await conn.close()
            raise PersistenceError(f"cannot open the session store {self.path}: {exc}") from exc
        except BaseException:
            self._conn = None
            await conn.close()
            raise

    async def aclose(self) -> None:
        """Close the connection (idempotent). Pending writes have finished by then."""
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()  # queued after every transaction already submitted

    async def __aenter__(self) -> SqliteStore:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def schema_version(self) -> int:
        """The database's schema version (0 for an empty file)."""
        return await self._read(_read_version)

    async def _migrate(self) -> None:
        current = await self._read(_read_version)
        if current > SCHEMA_VERSION:
            raise PersistenceError(
                f"{self.path} has schema version {current}, newer than this Talaria "
                f"understands ({SCHEMA_VERSION}); upgrade Talaria or use another TALARIA_HOME"
            )
        if current == SCHEMA_VERSION:
            return

        def run(conn: DbConnection) -> None:
            version = _read_version(conn)  # another process may have migrated meanwhile
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step]:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_version(id, version) VALUES (1, ?) "
                    "ON CONFLICT(id) DO UPDATE SET version = excluded.version",
                    (step + 1,),
                )

        await self._write(run, "migrate the session store")

    # ------------------------------------------------------------------ transactions

    def _require(self) -> Conn:
        if self._conn is None:
            raise StoreError("the session store is not open; call `await store.open()` first")
        return self._conn

    async def _retry(self, op: Callable[[], Awaitable[T]], what: str) -> T:
        """Run ``op`` again with jittered exponential backoff while it fails with a busy
        error, for at most ``retry_for`` seconds; other errors propagate unchanged."""
        deadline = time.monotonic() + self.retry_for
        delay = 0.01
        while True:
            try:
                return await op()
            except sqlite3.OperationalError as exc:
                if not is_busy_error(exc) or time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.5)

    async def _read(self, body: Callable[[DbConnection], T], *, inline: bool = False) -> T:
        """Run ``body`` in one hop (retried on busy errors). ``inline``: a small read that may
        run on the event loop's thread when the connection is idle (see :meth:`_execute`)."""
        try:
            return await self._retry(lambda: self._execute(body, inline), "read from the session store")
        except sqlite3.Error as exc:
            raise StoreError(f"reading the session store failed: {exc}") from exc

    async def _write(self, body: Callable[[DbConnection], T], what: str, *, inline: bool = False) -> T:
        """Run ``body`` in one ``BEGIN IMMEDIATE`` transaction; commit or roll back.

        Busy errors retry the whole transaction with backoff for up to ``retry_for`` s.
        :class:`StoreError` subclasses raised by ``body`` (LeaseLost…) pass through; any other
        failure becomes :class:`PersistenceError` naming ``what``. Nothing is written unless
        the whole body succeeded. ``inline`` as for :meth:`_read`.
        """

        def transaction(raw: DbConnection) -> T:
            if raw.in_transaction:  # defensive: never run inside a transaction left open
                _rollback(raw)
            raw.execute("BEGIN IMMEDIATE")
            try:
                result = body(raw)
                raw.execute("COMMIT")
            except BaseException:
                _rollback(raw)
                raise
            return result

        try:
            return await self._retry(lambda: self._execute(transaction, inline), what)
        except StoreError:
            raise
        except (sqlite3.Error, TypeError, ValueError) as exc:
            raise PersistenceError(f"{what} failed: {exc}") from exc

    async def _execute(self, fn: Callable[[DbConnection], T], inline: bool) -> T:
        """Run ``fn(raw connection)`` once: on the worker thread, or — for ``inline`` work
        when no other statement of this connection is queued or running — directly on the
        calling (event-loop) thread, which saves the thread hop. A small transaction on WAL
        costs tens of microseconds, less than the hop. Inline work never waits for a lock
        held by another process (``busy_timeout`` 0); on contention it goes to the worker
        thread, which waits there off the loop."""
        conn = self._require()
        if inline and self._inflight == 0:
            raw = conn._conn
            raw.execute("PRAGMA busy_timeout = 0")
            try:
                return fn(raw)
            except sqlite3.OperationalError as exc:
                if not is_busy_error(exc):
                    raise
            finally:
                raw.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        self._inflight += 1
        return await in_db_thread(conn, fn, done=self._settled)

    def _settled(self, _: object) -> None:
        self._inflight -= 1  # only once the worker really finished (not when a caller gave up)


def _rollback(conn: DbConnection) -> None:
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # no transaction was open (it already committed or never began)


def _read_version(conn: Any) -> int:
    cursor = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    )
    if cursor.fetchone() is None:
        return 0
    cursor = conn.execute("SELECT version FROM schema_version WHERE id = 1")
    row = cursor.fetchone()
    return int(row[0]) if row else 0
