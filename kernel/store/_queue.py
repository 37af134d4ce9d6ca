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
    from ._db import DbConnection

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


def _fetch(conn: DbConnection, where: str, args: tuple[Any, ...]) -> list[Admission]:
    rows = conn.execute_fetchall(f"SELECT {_COLUMNS} FROM admissions WHERE {where}", args)
    return [_admission(r) for r in rows]


def encode_payload(payload: Mapping[str, Any]) -> str:
    try:
        return dumps(dict(payload))
    except (TypeError, ValueError) as exc:
        raise PersistenceError(f"admission payload must be a JSON object: {exc}") from exc


def insert_admission(
    conn: DbConnection, admission_id: str, principal: str, session_key: str, request_id: str, encoded: str
) -> tuple[Admission, bool]:
    """Inside a write transaction: :meth:`QueueMixin.admit`'s work."""
    cursor = conn.execute(
        "INSERT INTO admissions(id, principal, session_key, request_id, payload, status, "
        "created_at) VALUES (?, ?, ?, ?, ?, 'queued', ?) "
        "ON CONFLICT(principal, session_key, request_id) DO NOTHING",
        (admission_id, principal, session_key, request_id, encoded, time.time()),
    )
    rows = _fetch(
        conn, "principal = ? AND session_key = ? AND request_id = ?", (principal, session_key, request_id)
    )
    return rows[0], cursor.rowcount == 1


def head_of_queue(conn: DbConnection, session_key: str) -> Admission | None:
    rows = _fetch(conn, "session_key = ? AND status = 'queued' ORDER BY seq LIMIT 1", (session_key,))
    return rows[0] if rows else None


def start_queued(conn: DbConnection, admission_id: str, owner: str) -> Admission:
    """Inside a write transaction: :meth:`QueueMixin.start_admission`'s work."""
    cursor = conn.execute(
        "UPDATE admissions SET status = 'started', owner = ?, started_at = ? "
        "WHERE id = ? AND status = 'queued'",
        (owner, time.time(), admission_id),
    )
    rows = _fetch(conn, "id = ?", (admission_id,))
    if not rows:
        raise PersistenceError(f"no admission {admission_id}")
    if cursor.rowcount != 1:
        raise PersistenceError(
            f"admission {admission_id} is {rows[0].status!r} (owner {rows[0].owner}), "
            "not 'queued'; it must not be started again"
        )
    return rows[0]


def finish(conn: DbConnection, admission_id: str, end_reason: str) -> Admission:
    """Inside a write transaction: :meth:`QueueMixin.finish_admission`'s work."""
    conn.execute(
        "UPDATE admissions SET status = 'terminal', end_reason = ?, finished_at = ? "
        "WHERE id = ? AND status != 'terminal'",
        (end_reason, time.time(), admission_id),
    )
    rows = _fetch(conn, "id = ?", (admission_id,))
    if not rows:
        raise PersistenceError(f"no admission {admission_id}")
    return rows[0]


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
        encoded = encode_payload(payload)
        admission_id = new_id("adm_")

        def body(conn: DbConnection) -> tuple[Admission, bool]:
            return insert_admission(conn, admission_id, principal, session_key, request_id, encoded)

        return await self._write(body, f"admit request {request_id!r} for {session_key!r}", inline=True)

    async def get_admission(self, admission_id: str) -> Admission | None:
        """The admission with this id, or None."""

        def body(conn: DbConnection) -> Admission | None:
            rows = _fetch(conn, "id = ?", (admission_id,))
            return rows[0] if rows else None

        return await self._read(body)

    async def list_admissions(
        self, session_key: str, *, status: str | None = None, limit: int = 100
    ) -> list[Admission]:
        """The key's admissions in submission order (optionally one status only)."""
        where, args = "session_key = ?", (session_key,)
        if status is not None:
            where, args = where + " AND status = ?", (session_key, status)

        def body(conn: DbConnection) -> list[Admission]:
            return _fetch(conn, f"{where} ORDER BY seq LIMIT ?", (*args, int(limit)))

        return await self._read(body)

    async def next_admission(self, session_key: str) -> Admission | None:
        """The oldest ``queued`` admission of ``session_key`` (FIFO), or None."""

        def body(conn: DbConnection) -> Admission | None:
            return head_of_queue(conn, session_key)

        return await self._read(body, inline=True)

    async def start_admission(self, admission_id: str, owner: str) -> Admission:
        """``queued → started`` by ``owner`` (call it while holding the key's lease).

        Raises PersistenceError when the admission does not exist or is not ``queued``
        (someone else started it, or it already ended) — the caller must not run it.
        """

        def body(conn: DbConnection) -> Admission:
            return start_queued(conn, admission_id, owner)

        return await self._write(body, f"start admission {admission_id}", inline=True)

    async def finish_admission(self, admission_id: str, end_reason: str) -> Admission:
        """Make the admission ``terminal`` with ``end_reason`` (from any other status).
        A terminal admission is returned unchanged; PersistenceError when it does not exist."""

        def body(conn: DbConnection) -> Admission:
            return finish(conn, admission_id, end_reason)

        return await self._write(body, f"finish admission {admission_id}", inline=True)

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

        def body(conn: DbConnection) -> list[Admission]:
            started = _fetch(conn, "status = 'started'", ())
            for adm in started:
                if not alive(adm.owner or ""):
                    conn.execute(
                        "UPDATE admissions SET status = 'unknown' "
                        "WHERE id = ? AND status = 'started'",
                        (adm.id,),
                    )
            return _fetch(conn, "status = 'unknown' ORDER BY seq", ())

        return await self._write(body, "reconcile stale admissions")

    async def resolve_unknown(self, admission_id: str, end_reason: str) -> bool:
        """``unknown → terminal`` with ``end_reason``; True when this call resolved it
        (False when it was not ``unknown``, e.g. another process resolved it first)."""

        def body(conn: DbConnection) -> bool:
            cursor = conn.execute(
                "UPDATE admissions SET status = 'terminal', end_reason = ?, finished_at = ? "
                "WHERE id = ? AND status = 'unknown'",
                (end_reason, time.time(), admission_id),
            )
            return cursor.rowcount == 1

        return await self._write(body, f"resolve admission {admission_id}")
