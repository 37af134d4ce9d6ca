"""A turn's bookends, each one transaction: admit-and-start, finish-and-release.

The common case — nothing queued ahead on the key and its lease free — is one write at the
start of a turn (admission row, lease, ``started``) and one at the end (``terminal``,
lease freed). Anything else (a queue, a busy lease, a duplicate request) falls back to the
separate steps, which keep the same guarantees.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..types import new_id
from ._leases import _free_lease
from ._queue import encode_payload, finish, head_of_queue, insert_admission, start_queued
from .base import Admission, Lease

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from ._db import DbConnection

__all__ = ["TurnMixin"]


class TurnMixin:
    """Relies on ``_write``, ``_take_lease`` and ``_released`` of the other mixins."""

    if TYPE_CHECKING:
        _write: Callable[..., Awaitable[Any]]

        def _take_lease(self, conn: DbConnection, session_key: str, owner: str, ttl: float) -> Lease | None: ...

        def _released(self, lease: Lease) -> None: ...

    async def begin_turn(
        self,
        principal: str,
        session_key: str,
        request_id: str,
        payload: Mapping[str, Any],
        *,
        owner: str,
        ttl: float,
    ) -> tuple[Admission, bool, Lease | None]:
        """Admit the request (as :meth:`admit`) and, when it is new, first in its key's queue
        and the key's lease can be taken, take the lease and start it — atomically.

        Returns ``(admission, created, lease)``; ``lease`` is None when the turn must wait
        (queue or lease busy) or was not created (a duplicate): then ``admission`` is still
        ``queued`` (or whatever status the earlier submission reached)."""
        encoded = encode_payload(payload)
        admission_id = new_id("adm_")

        def body(conn: DbConnection) -> tuple[Admission, bool, Lease | None]:
            admission, created = insert_admission(conn, admission_id, principal, session_key, request_id, encoded)
            if not created:
                return admission, False, None
            head = head_of_queue(conn, session_key)
            if head is None or head.id != admission.id:
                return admission, True, None
            lease = self._take_lease(conn, session_key, owner, ttl)
            if lease is None:
                return admission, True, None
            return start_queued(conn, admission.id, owner), True, lease

        return await self._write(body, f"admit request {request_id!r} for {session_key!r}", inline=True)

    async def end_turn(self, admission_id: str, end_reason: str, lease: Lease | None) -> Admission:
        """Make the admission ``terminal`` (as :meth:`finish_admission`) and free ``lease``
        when its generation still holds it (as :meth:`release_lease`) — atomically."""

        def body(conn: DbConnection) -> Admission:
            admission = finish(conn, admission_id, end_reason)
            if lease is not None:
                _free_lease(conn, lease)
            return admission

        admission = await self._write(body, f"finish admission {admission_id}", inline=True)
        if lease is not None:
            self._released(lease)
        return admission
