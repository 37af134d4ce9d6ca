"""Model usage and delivery obligations of :class:`SqliteStore`."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import PersistenceError
from ..types import Usage, new_id
from ._codec import dumps, json_mapping
from .base import DELIVERY_STATUSES, Delivery, Lease, UsageRow

if TYPE_CHECKING:
    from ._db import DbConnection

__all__ = ["LedgerMixin"]

_DELIVERY_COLUMNS = (
    "id, session_key, text, status, admission_id, channel, target, attempts, last_error, "
    "created_at, updated_at"
)


def _delivery(row: Sequence[Any]) -> Delivery:
    return Delivery(
        id=row[0], session_key=row[1], text=row[2], status=row[3], admission_id=row[4],
        channel=row[5], target=json_mapping(row[6]), attempts=row[7], last_error=row[8],
        created_at=row[9], updated_at=row[10],
    )


def add_usage(
    conn: DbConnection, session_id: str, provider: str, model: str, usage: Usage, cost: float | None
) -> None:
    """Inside a write transaction: add one model call to the session's usage totals."""
    now = time.time()
    conn.execute(
        "INSERT INTO model_usage(session_id, provider, model, calls, input_tokens, "
        "output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, "
        "first_at, last_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(session_id, provider, model) DO UPDATE SET "
        "calls = calls + 1, input_tokens = input_tokens + excluded.input_tokens, "
        "output_tokens = output_tokens + excluded.output_tokens, "
        "cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, "
        "cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, "
        "reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, "
        "cost = CASE WHEN excluded.cost IS NULL THEN cost "
        "ELSE coalesce(cost, 0) + excluded.cost END, last_at = excluded.last_at",
        (
            session_id, provider, model, usage.input_tokens, usage.output_tokens,
            usage.cache_read_tokens, usage.cache_write_tokens, usage.reasoning_tokens,
            cost, now, now,
        ),
    )


class LedgerMixin:
    """Usage and deliveries; relies on ``_read``/``_write``/``_check_fence``."""

    if TYPE_CHECKING:
        from collections.abc import Awaitable

        _read: Callable[..., Awaitable[Any]]
        _write: Callable[..., Awaitable[Any]]

        def _check_fence(
            self, conn: DbConnection, fence: Lease, session_key: str | None
        ) -> None: ...

    # ------------------------------------------------------------------ usage

    async def record_usage(
        self,
        session_id: str,
        provider: str,
        model: str,
        usage: Usage,
        cost: float | None,
        *,
        fence: Lease | None = None,
    ) -> None:
        """Add one model call: ``calls`` + 1, token counts added, ``cost`` added (a None cost
        leaves the total unchanged; the total stays None until some call has a price).
        ``provider``/``model`` name who actually served the call. Fenced when ``fence``."""

        def body(conn: DbConnection) -> None:
            if fence is not None:
                self._check_fence(conn, fence, None)
            add_usage(conn, session_id, provider, model, usage, cost)

        await self._write(body, f"record usage of session {session_id}", inline=True)

    async def session_usage(self, session_id: str) -> list[UsageRow]:
        """Usage totals of the session, one row per provider × model, first used first."""

        def body(conn: DbConnection) -> list[UsageRow]:
            rows = conn.execute_fetchall(
                "SELECT session_id, provider, model, calls, input_tokens, output_tokens, "
                "cache_read_tokens, cache_write_tokens, reasoning_tokens, cost, first_at, "
                "last_at FROM model_usage WHERE session_id = ? ORDER BY first_at",
                (session_id,),
            )
            return [
                UsageRow(
                    session_id=r[0], provider=r[1], model=r[2], calls=r[3], input_tokens=r[4],
                    output_tokens=r[5], cache_read_tokens=r[6], cache_write_tokens=r[7],
                    reasoning_tokens=r[8], cost=r[9], first_at=r[10], last_at=r[11],
                )
                for r in rows
            ]

        return await self._read(body)

    # ------------------------------------------------------------------ deliveries

    async def add_delivery(
        self,
        session_key: str,
        text: str,
        *,
        admission_id: str | None = None,
        channel: str = "",
        target: Mapping[str, Any] | None = None,
    ) -> Delivery:
        """Record an outbound obligation (status ``pending``) and return it. ``target`` is
        channel routing data (chat id, thread id…), JSON, never a credential."""
        now = time.time()
        try:
            encoded = dumps(dict(target)) if target else None
        except (TypeError, ValueError) as exc:
            raise PersistenceError(f"delivery target must be a JSON object: {exc}") from exc
        delivery = Delivery(
            id=new_id("dlv_"), session_key=session_key, text=text, admission_id=admission_id,
            channel=channel, target=dict(target or {}), created_at=now, updated_at=now,
        )

        def body(conn: DbConnection) -> None:
            conn.execute(
                f"INSERT INTO deliveries({_DELIVERY_COLUMNS}) "
                "VALUES (?, ?, ?, 'pending', ?, ?, ?, 0, NULL, ?, ?)",
                (delivery.id, session_key, text, admission_id, channel, encoded, now, now),
            )

        await self._write(body, f"record a delivery for {session_key!r}")
        return delivery

    async def get_delivery(self, delivery_id: str) -> Delivery | None:
        """The delivery with this id, or None."""

        def body(conn: DbConnection) -> Delivery | None:
            rows = conn.execute_fetchall(
                f"SELECT {_DELIVERY_COLUMNS} FROM deliveries WHERE id = ?", (delivery_id,)
            )
            return _delivery(rows[0]) if rows else None

        return await self._read(body)

    async def mark_delivery(self, delivery_id: str, status: str, error: str | None = None) -> None:
        """Set the delivery's status (one of :data:`~talaria.store.base.DELIVERY_STATUSES`);
        ``attempting`` also counts one attempt; ``error`` is kept as ``last_error``.
        Raises ValueError for an unknown status, PersistenceError for an unknown id."""
        if status not in DELIVERY_STATUSES:
            raise ValueError(f"delivery status must be one of {DELIVERY_STATUSES}, not {status!r}")

        def body(conn: DbConnection) -> None:
            cursor = conn.execute(
                "UPDATE deliveries SET status = ?, attempts = attempts + ?, "
                "last_error = coalesce(?, last_error), updated_at = ? WHERE id = ?",
                (status, int(status == "attempting"), error, time.time(), delivery_id),
            )
            if cursor.rowcount != 1:
                raise PersistenceError(f"no delivery {delivery_id}")

        await self._write(body, f"mark delivery {delivery_id} {status}")

    async def pending_deliveries(self, session_key: str | None = None) -> list[Delivery]:
        """Deliveries not yet settled, oldest first: ``pending`` ones were never attempted
        (send them), ``attempting`` ones may have been sent (a crash interrupted the send —
        mark them, do not blindly resend)."""
        where = "status IN ('pending', 'attempting')"
        args: tuple[Any, ...] = ()
        if session_key is not None:
            where, args = where + " AND session_key = ?", (session_key,)

        def body(conn: DbConnection) -> list[Delivery]:
            rows = conn.execute_fetchall(
                f"SELECT {_DELIVERY_COLUMNS} FROM deliveries WHERE {where} ORDER BY created_at",
                args,
            )
            return [_delivery(r) for r in rows]

        return await self._read(body)
