"""Full-text search over messages (FTS5) of :class:`SqliteStore`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ._codec import fts_query
from .base import SearchHit

if TYPE_CHECKING:
    from ._db import DbConnection

__all__ = ["SearchMixin"]


class SearchMixin:
    """``search_messages``; relies on ``_read``."""

    if TYPE_CHECKING:
        _read: Callable[..., Awaitable[Any]]

    async def search_messages(
        self, query: str, *, limit: int = 10, exclude_session: str | None = None
    ) -> list[SearchHit]:
        """Best matches first among active messages (content and tool names).

        ``query`` is free text: each word must appear (``word*`` matches a prefix); FTS
        operators and quotes in it are taken literally, so no input raises a syntax error.
        """
        match = fts_query(query)
        if match is None or limit <= 0:
            return []
        exclude = "" if exclude_session is None else " AND m.session_id != ?"
        args: tuple[Any, ...] = (match,) + (() if exclude_session is None else (exclude_session,))

        def body(conn: DbConnection) -> list[SearchHit]:
            rows = conn.execute_fetchall(
                "SELECT m.session_id, m.uid, m.role, "
                "snippet(messages_fts, -1, '[', ']', '…', 16), m.created_at, s.title, "
                "coalesce(s.session_key, ''), m.seq "
                "FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid "
                "LEFT JOIN sessions AS s ON s.id = m.session_id "
                f"WHERE messages_fts MATCH ? AND m.active = 1{exclude} ORDER BY rank LIMIT ?",
                (*args, int(limit)),
            )
            return [
                SearchHit(
                    session_id=r[0], uid=r[1], role=r[2], snippet=r[3], created_at=r[4],
                    title=r[5], session_key=r[6], seq=r[7],
                )
                for r in rows
            ]

        return await self._read(body)
