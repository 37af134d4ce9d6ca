"""Admissions — the durable input queue (DESIGN §4, invariant 1) — of :class:`SqliteStore`."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import PersistenceError
from ..types import new_id
from ._codec import dumps, json_mapping
from .base import Admission

if TYPE_CHECKING:
    import aiosqlite

__all__ = ["QueueMixin"]

_COLUMNS = (
    "id, principal, session_key, request_id, payload, status, seq, end_reason, owner, "
    "created_at, started_at, finished_at"
)


def _admission(row: Sequence[Any]) -> Admission:
    return Admission(
        id=row[0], principal=row[1], session_key=row[2], request_id=row[3],
        payload=json_mapping(row[4]), status=row[5], seq=row[6], end_reason=row[7],
        owner=row[8], created_at=row[9], started_at=row[10], finished_at=row[11],
    )


async def _fetch(conn: aiosqlite.Connection, where: str, args: tuple[Any, ...]) -> list[Admission]:
    rows = await conn.execute_fetchall(f"SELECT {_COLUMNS} FROM admissions WHERE {where}", args)
    return [_admission(r) for r in rows]


class QueueMixin:
    """Admissions; relies on ``_read``/``_write``."""

    if TYPE_CHECKING:
        from collections.abc import Awaitable

        _read: Callable[..., Awaitable[Any]]
        _write: Callable[..., Awaitable[Any]]

    async def admit(
        self, principal: str, session_key: str, request_id: str, payload: Mapping[str, Any]
    ) -> tuple[Admission, bool]:
        """Queue a request durably before anything else happens to it.

        Returns ``(admission, True)`` for a new row (status ``queued``). Submitting the same
        ``(principal, session_key, request_id)`` again returns the existing row — in whatever
        status it has reached — and ``False``; there is never a second row. ``payload`` must
        be a JSON object without credentials (PersistenceError otherwise).
        """
        try:
            encoded = dumps(dict(payload))
        except (TypeError, ValueError) as exc:
            raise PersistenceError(f"admission payload must be a JSON object: {exc}") from exc
        admission_id = new_id("adm_")

        async def body(conn: aiosqlite.Connection) -> tuple[Admission, bool]:
            cursor = await conn.execute(
                "INSERT INTO admissions(id, principal, session_key, request_id, payload, status, "
                "created_at) VALUES (?, ?, ?, ?, ?, 'queued', ?) "
                "ON CONFLICT(principal, session_key, request_id) DO NOTHING",
                (admission_id, principal, session_key, request_id, encoded, time.time()),
            )
            created = cursor.rowcount == 1
            rows = await _fetch(
                conn,
                "principal = ? AND session_key = ? AND request_id = ?",
                (principal, session_key, request_id),
            )
            return rows[0], created

        return await self._write(body, f"admit request {request_id!r} for {session_key!r}")

    async def get_admission(self, admission_id: str) -> Admission | None:
        """The admission with this id, or None."""

        async def body(conn: aiosqlite.Connection) -> Admission | None:
            rows = await _fetch(conn, "id = ?", (admission_id,))
            return rows[0] if rows else None

        return await self._read(body)

    async def list_admissions(
        self, session_key: str, *, status: str | None = None, limit: int = 100
    ) -> list[Admission]:
        """The key's admissions in submission order (optionally one status only)."""
        where, args = "session_key = ?", (session_key,)
        if status is not None:
            where, args = where + " AND status = ?", (session_key, status)

        async def body(conn: aiosqlite.Connection) -> list[Admission]:
            return await _fetch(conn, f"{where} ORDER BY seq LIMIT ?", (*args, int(limit)))

        return await self._read(body)

    async def next_admission(self, session_key: str) -> Admission | None:
        """The oldest ``queued`` admission of ``session_key`` (FIFO), or None."""

        async def body(conn: aiosqlite.Connection) -> Admission | None:
            rows = await _fetch(
                conn, "session_key = ? AND status = 'queued' ORDER BY seq LIMIT 1", (session_key,)
            )
            return rows[0] if rows else None

        return await self._read(body)

    async def start_admission(self, admission_id: str, owner: str) -> Admission:
        """``queued → started`` by ``owner`` (call it while holding the key's lease).

        Raises PersistenceError when the admission does not exist or is not ``queued``
        (someone else started it, or it already ended) — the caller must not run it.
        """

        async def body(conn: aiosqlite.Connection) -> Admission:
            cursor = await conn.execute(
                "UPDATE admissions SET status = 'started', owner = ?, started_at = ? "
                "WHERE id = ? AND status = 'queued'",
                (owner, time.time(), admission_id),
            )
            rows = await _fetch(conn, "id = ?", (admission_id,))
            if not rows:
                raise PersistenceError(f"no admission {admission_id}")
            if cursor.rowcount != 1:
                raise PersistenceError(
                    f"admission {admission_id} is {rows[0].status!r} (owner {rows[0].owner}), "
                    "not 'queued'; it must not be started again"
                )
            return rows[0]

        return await self._write(body, f"start admission {admission_id}")

    async def finish_admission(self, admission_id: str, end_reason: str) -> Admission:
        """Make the admission ``terminal`` with ``end_reason`` (from any other status).
        A terminal admission is returned unchanged; PersistenceError when it does not exist."""

        async def body(conn: aiosqlite.Connection) -> Admission:
            await conn.execute(
                "UPDATE admissions SET status = 'terminal', end_reason = ?, finished_at = ? "
                "WHERE id = ? AND status != 'terminal'",
                (end_reason, time.time(), admission_id),
            )
            rows = await _fetch(conn, "id = ?", (admission_id,))
            if not rows:
                raise PersistenceError(f"no admission {admission_id}")
            return rows[0]

        return await self._write(body, f"finish admission {admission_id}")

    async def stale_admissions(
        self, is_owner_alive: Callable[[str], bool] | None = None
    ) -> list[Admission]:
        """Reconciliation at start-up: every ``started`` admission whose owner
        ``is_owner_alive`` says is gone (default: :func:`talaria.store.owner.owner_alive`)
        becomes ``unknown``. Returns every ``unknown`` admission — the ones just marked and
        any left from an earlier, unfinished reconciliation — oldest first. They must be
        settled with :meth:`resolve_unknown` after reading back the transcript, never
        re-run silently."""
        if is_owner_alive is None:
            from .owner import owner_alive as is_owner_alive

        alive = is_owner_alive

        async def body(conn: aiosqlite.Connection) -> list[Admission]:
            started = await _fetch(conn, "status = 'started'", ())
            for adm in started:
                if not alive(adm.owner or ""):
                    await conn.execute(
                        "UPDATE admissions SET status = 'unknown' "
                        "WHERE id = ? AND status = 'started'",
                        (adm.id,),
                    )
            return await _fetch(conn, "status = 'unknown' ORDER BY seq", ())

        return await self._write(body, "reconcile stale admissions")

    async def resolve_unknown(self, admission_id: str, end_reason: str) -> bool:
        """``unknown → terminal`` with ``end_reason``; True when this call resolved it
        (False when it was not ``unknown``, e.g. another process resolved it first)."""

        async def body(conn: aiosqlite.Connection) -> bool:
            cursor = await conn.execute(
                "UPDATE admissions SET status = 'terminal', end_reason = ?, finished_at = ? "
                "WHERE id = ? AND status = 'unknown'",
                (end_reason, time.time(), admission_id),
            )
            return cursor.rowcount == 1

        return await self._write(body, f"resolve admission {admission_id}")
