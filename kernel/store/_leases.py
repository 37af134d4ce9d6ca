"""Turn leases (one writer per session key) and compression locks of :class:`SqliteStore`.

A lease row is never deleted: releasing clears its owner, so ``generation`` only grows and
an old :class:`Lease` can never match the row again (fencing, DESIGN §4 invariant 2).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LeaseLost, PersistenceError
from .base import Lease
from .owner import owner_alive, parse_owner

if TYPE_CHECKING:
    from ._db import DbConnection

__all__ = ["LeaseMixin"]


def _describe(row: Any, session_key: str) -> str:
    if not row or row[0] is None:
        return f"nobody holds the lease of {session_key!r} any more"
    left = row[2] - time.time()
    state = f"expires in {left:.0f} s" if left > 0 else f"expired {-left:.0f} s ago"
    return f"the lease of {session_key!r} is held by {row[0]} (generation {row[1]}, {state})"


def _free_lease(conn: DbConnection, lease: Lease) -> None:
    """Inside a write transaction: free ``lease`` if its generation still holds the row."""
    conn.execute(
        "UPDATE turn_leases SET owner = NULL, expires_at = 0, host = '', pid = 0 "
        "WHERE session_key = ? AND owner = ? AND generation = ?",
        (lease.session_key, lease.owner, lease.generation),
    )


class LeaseMixin:
    """Leases and compression locks; relies on ``_read``/``_write``/``path``/``_revoked``."""

    #: Liveness test for lease and lock holders (replaceable in tests).
    liveness: Callable[[str], bool] = staticmethod(owner_alive)

    if TYPE_CHECKING:
        from collections.abc import Awaitable

        path: Path
        _revoked: set[tuple[str, str, int]]
        _release_events: dict[str, asyncio.Event]
        _read: Callable[..., Awaitable[Any]]
        _write: Callable[..., Awaitable[Any]]

    def _check_fence(
        self, conn: DbConnection, fence: Lease, session_key: str | None
    ) -> None:
        """Inside a write transaction: raise LeaseLost unless ``fence`` is still held."""
        rows = conn.execute_fetchall(
            "SELECT owner, generation, expires_at FROM turn_leases WHERE session_key = ?",
            (fence.session_key,),
        )
        self._verify_fence(fence, rows[0] if rows else None, session_key)

    def _verify_fence(self, fence: Lease, row: Any, session_key: str | None) -> None:
        """Raise unless ``row`` (owner, generation, expires_at of the fence's key) is ``fence``
        unexpired and unrevoked, and ``fence`` guards ``session_key`` (when given)."""
        if session_key is not None and fence.session_key != session_key:
            raise PersistenceError(
                f"the lease for {fence.session_key!r} cannot fence a write to a session of "
                f"{session_key!r}; acquire the lease of the session's own key"
            )
        if fence.fence_key in self._revoked:
            raise LeaseLost(
                f"the lease of {fence.session_key!r} (generation {fence.generation}) was "
                "revoked (its refresh failed or the liveness watchdog fired); nothing written"
            )
        if row is None or row[0] != fence.owner or row[1] != fence.generation:
            raise LeaseLost(
                f"this process lost the lease (generation {fence.generation}): "
                f"{_describe(row, fence.session_key)}; nothing written"
            )
        if row[2] <= time.time():
            raise LeaseLost(
                f"the lease of {fence.session_key!r} (generation {fence.generation}) expired "
                f"{time.time() - row[2]:.1f} s ago without a refresh; nothing written"
            )

    async def try_acquire_lease(self, session_key: str, owner: str, ttl: float) -> Lease | None:
        """Take the lease of ``session_key`` for ``ttl`` seconds, or return None when another
        live holder has it.

        The lease is taken when nobody holds it, when it expired, or when its holder is
        provably gone (same host, process dead — checked with :attr:`liveness`): that reclaim
        happens at once, not after the TTL. Every acquisition increments ``generation``. Not
        re-entrant: an owner already holding the lease gets None (release it first).
        """

        def body(conn: DbConnection) -> Lease | None:
            return self._take_lease(conn, session_key, owner, ttl)

        return await self._write(body, f"acquire the lease of {session_key!r}", inline=True)

    def _take_lease(self, conn: DbConnection, session_key: str, owner: str, ttl: float) -> Lease | None:
        """Inside a write transaction: :meth:`try_acquire_lease`'s work."""
        ident = parse_owner(owner)
        host, pid = (ident.host, ident.pid) if ident else ("", 0)

        now = time.time()
        rows = conn.execute_fetchall(
            "SELECT owner, generation, expires_at FROM turn_leases WHERE session_key = ?",
            (session_key,),
        )
        if rows:
            holder, generation, expires_at = rows[0]
            if holder is not None and expires_at > now and self.liveness(holder):
                return None
            generation += 1
            conn.execute(
                "UPDATE turn_leases SET owner = ?, generation = ?, expires_at = ?, host = ?, "
                "pid = ?, acquired_at = ? WHERE session_key = ?",
                (owner, generation, now + ttl, host, pid, now, session_key),
            )
        else:
            generation = 1
            conn.execute(
                "INSERT INTO turn_leases(session_key, owner, generation, expires_at, host, "
                "pid, acquired_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_key, owner, generation, now + ttl, host, pid, now),
            )
        return Lease(
            session_key=session_key, owner=owner, generation=generation,
            expires_at=now + ttl, host=host, pid=pid,
        )

    async def get_lease(self, session_key: str) -> Lease | None:
        """The current holder of the key's lease (possibly expired), or None when free."""

        def body(conn: DbConnection) -> Lease | None:
            rows = conn.execute_fetchall(
                "SELECT owner, generation, expires_at, host, pid FROM turn_leases "
                "WHERE session_key = ? AND owner IS NOT NULL",
                (session_key,),
            )
            if not rows:
                return None
            owner, generation, expires_at, host, pid = rows[0]
            return Lease(
                session_key=session_key, owner=owner, generation=generation,
                expires_at=expires_at, host=host, pid=pid,
            )

        return await self._read(body)

    async def refresh_lease(self, lease: Lease, ttl: float) -> Lease:
        """Extend ``lease`` to now + ``ttl`` and return the updated lease.

        Raises LeaseLost when the row is no longer this owner's generation (taken over or
        released) or the lease was revoked in this process. A lease that expired but was not
        taken over is still ours and is extended.
        """

        def body(conn: DbConnection) -> Lease:
            if lease.fence_key in self._revoked:
                raise LeaseLost(f"the lease of {lease.session_key!r} was revoked")
            expires_at = time.time() + ttl
            cursor = conn.execute(
                "UPDATE turn_leases SET expires_at = ? "
                "WHERE session_key = ? AND owner = ? AND generation = ?",
                (expires_at, lease.session_key, lease.owner, lease.generation),
            )
            if cursor.rowcount != 1:
                rows = conn.execute_fetchall(
                    "SELECT owner, generation, expires_at FROM turn_leases WHERE session_key = ?",
                    (lease.session_key,),
                )
                raise LeaseLost(
                    f"cannot refresh the lease (generation {lease.generation}): "
                    f"{_describe(rows[0] if rows else None, lease.session_key)}"
                )
            return replace(lease, expires_at=expires_at)

        return await self._write(body, f"refresh the lease of {lease.session_key!r}", inline=True)

    async def release_lease(self, lease: Lease) -> None:
        """Free the lease if this owner's generation still holds it; otherwise do nothing."""

        def body(conn: DbConnection) -> None:
            _free_lease(conn, lease)

        await self._write(body, f"release the lease of {lease.session_key!r}", inline=True)
        self._released(lease)

    def _released(self, lease: Lease) -> None:
        """On the loop, after a release committed: forget its revocation, wake waiters."""
        self._revoked.discard(lease.fence_key)
        waiters = self._release_events.pop(lease.session_key, None)
        if waiters is not None:
            waiters.set()

    async def wait_for_release(self, session_key: str, timeout: float) -> None:
        """Return when this store object releases ``session_key``'s lease, or after
        ``timeout`` seconds, whichever is first. Lets waiters in the same process take a
        lease the moment it is freed instead of at their next poll (other processes are
        only seen by polling)."""
        event = self._release_events.setdefault(session_key, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    def revoke_lease(self, lease: Lease, *, expire_row: bool = True) -> None:
        """Make ``lease`` unusable. Synchronous, callable from any thread (the watchdog's).

        After it returns no fenced write and no refresh with this lease succeeds through
        this store object. With ``expire_row`` it also expires the row in the database, best
        effort and with its own short-lived connection (it works while the event loop is
        blocked), so that a waiting process can take over at once.
        """
        self._revoked.add(lease.fence_key)
        if not expire_row or str(self.path) == ":memory:":
            return
        try:
            conn = sqlite3.connect(self.path, timeout=0.5, isolation_level=None)
            try:
                conn.execute(
                    "UPDATE turn_leases SET expires_at = 0 "
                    "WHERE session_key = ? AND owner = ? AND generation = ?",
                    (lease.session_key, lease.owner, lease.generation),
                )
            finally:
                conn.close()
        except sqlite3.Error:
            pass  # the row expires on its own at the end of the TTL

    # ------------------------------------------------------------------ compression locks

    async def try_lock_compression(self, session_id: str, holder: str, ttl: float) -> bool:
        """Take the session's compression lock for ``ttl`` s: True when it is free, expired,
        held by a provably dead process, or already ``holder``'s (then it is extended)."""

        def body(conn: DbConnection) -> bool:
            now = time.time()
            rows = conn.execute_fetchall(
                "SELECT holder, expires_at FROM compression_locks WHERE session_id = ?",
                (session_id,),
            )
            if rows:
                current, expires_at = rows[0]
                if current != holder and expires_at > now and self.liveness(current):
                    return False
            conn.execute(
                "INSERT INTO compression_locks(session_id, holder, acquired_at, expires_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
                "holder = excluded.holder, acquired_at = excluded.acquired_at, "
                "expires_at = excluded.expires_at",
                (session_id, holder, now, now + ttl),
            )
            return True

        return await self._write(body, f"lock compression of session {session_id}", inline=True)

    async def unlock_compression(self, session_id: str, holder: str) -> None:
        """Release the session's compression lock if ``holder`` has it."""

        def body(conn: DbConnection) -> None:
            conn.execute(
                "DELETE FROM compression_locks WHERE session_id = ? AND holder = ?",
                (session_id, holder),
            )

        await self._write(body, f"unlock compression of session {session_id}", inline=True)
