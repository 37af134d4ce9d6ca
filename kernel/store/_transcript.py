"""Sessions, system prompts and messages of :class:`SqliteStore`."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import PersistenceError
from ..types import Message
from ._codec import MESSAGE_COLUMNS, decode_message, encode_message
from .base import Lease, SessionRow, StoredMessage

if TYPE_CHECKING:
    import aiosqlite

__all__ = ["TranscriptMixin"]

_SESSION_COLUMNS = (
    "id, session_key, parent_session_id, source, provider, model, system_prompt_hash, cwd, "
    "title, created_at, ended_at, end_reason"
)

_INSERT_MESSAGE = (
    "INSERT INTO messages (session_id, seq, role, content, api_content, tool_calls, "
    "tool_call_id, name, status, uid, meta, created_at) VALUES (?1, "
    "(SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1), "
    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
)


def _session(
    row: Sequence[Any], message_count: int | None = None, preview: str | None = None
) -> SessionRow:
    return SessionRow(
        id=row[0],
        session_key=row[1],
        parent_session_id=row[2],
        source=row[3],
        provider=row[4],
        model=row[5],
        system_prompt_hash=row[6],
        cwd=row[7],
        title=row[8],
        created_at=row[9],
        ended_at=row[10],
        end_reason=row[11],
        message_count=message_count,
        preview=preview,
    )


class TranscriptMixin:
    """Sessions, prompts, messages. Relies on ``_read``/``_write``/``_check_fence``."""

    if TYPE_CHECKING:
        from collections.abc import Awaitable, Callable

        _read: Callable[..., Awaitable[Any]]
        _write: Callable[..., Awaitable[Any]]

        async def _check_fence(
            self, conn: aiosqlite.Connection, fence: Lease, session_key: str | None
        ) -> None: ...

        def _verify_fence(self, fence: Lease, row: Any, session_key: str | None) -> None: ...

    # ------------------------------------------------------------------ sessions

    async def create_session(self, row: SessionRow) -> SessionRow:
        """Insert ``row``; PersistenceError when the id exists. Returns the row as stored
        (``message_count`` 0)."""

        async def body(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    row.id, row.session_key, row.parent_session_id, row.source, row.provider,
                    row.model, row.system_prompt_hash, row.cwd, row.title, row.created_at,
                    row.ended_at, row.end_reason,
                ),
            )

        await self._write(body, f"create session {row.id}")
        return _session(
            (row.id, row.session_key, row.parent_session_id, row.source, row.provider,
             row.model, row.system_prompt_hash, row.cwd, row.title, row.created_at,
             row.ended_at, row.end_reason),
            0,
        )

    async def get_session(self, session_id: str) -> SessionRow | None:
        """The session with this exact id, or None."""

        async def body(conn: aiosqlite.Connection) -> SessionRow | None:
            rows = await conn.execute_fetchall(
                f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
            )
            return _session(rows[0]) if rows else None

        return await self._read(body)

    async def resolve_session_id(self, prefix: str) -> list[str]:
        """Ids starting with ``prefix``: ``[id]`` for an exact or unique match, two ids when
        ambiguous, ``[]`` when none (used by the CLI to accept id prefixes)."""

        async def body(conn: aiosqlite.Connection) -> list[str]:
            exact = await conn.execute_fetchall("SELECT id FROM sessions WHERE id = ?", (prefix,))
            if exact:
                return [exact[0][0]]
            rows = await conn.execute_fetchall(
                "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 2",
                (len(prefix), prefix),
            )
            return [r[0] for r in rows]

        return await self._read(body) if prefix else []

    async def list_sessions(
        self, *, limit: int = 50, workspace: str | None = None, source: str | None = None
    ) -> list[SessionRow]:
        """Newest first, at most ``limit``; ``workspace`` filters on ``cwd``, ``source`` on
        source. Each row carries ``message_count`` (active messages) and ``preview`` (up to
        120 characters of the first user message)."""
        where, args = [], []
        if workspace is not None:
            where.append("cwd = ?")
            args.append(str(workspace))
        if source is not None:
            where.append("source = ?")
            args.append(source)
        clause = f"WHERE {' AND '.join(where)}" if where else ""

        async def body(conn: aiosqlite.Connection) -> list[SessionRow]:
            rows = await conn.execute_fetchall(
                f"SELECT {_SESSION_COLUMNS}, (SELECT count(*) FROM messages AS m "
                "WHERE m.session_id = sessions.id AND m.active = 1), (SELECT substr(m.content, "
                "1, 120) FROM messages AS m WHERE m.session_id = sessions.id AND m.role = 'user' "
                f"AND m.active = 1 ORDER BY m.seq LIMIT 1) FROM sessions {clause} "
                "ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (*args, max(0, int(limit))),
            )
            return [_session(r, r[12], r[13]) for r in rows]

        return await self._read(body)

    async def current_session(self, session_key: str) -> SessionRow | None:
        """The newest session of ``session_key`` with ``ended_at`` unset, or None."""

        async def body(conn: aiosqlite.Connection) -> SessionRow | None:
            rows = await conn.execute_fetchall(
                f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE session_key = ? "
                "AND ended_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT 1",
                (session_key,),
            )
            return _session(rows[0]) if rows else None

        return await self._read(body)

    async def end_session(self, session_id: str, reason: str) -> None:
        """Set ``ended_at``/``end_reason`` unless already ended (the first end wins)."""

        async def body(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ? "
                "WHERE id = ? AND ended_at IS NULL",
                (time.time(), reason, session_id),
            )

        await self._write(body, f"end session {session_id}")

    async def set_title(self, session_id: str, title: str | None) -> None:
        """Set (or clear with None) the session's title."""

        async def body(conn: aiosqlite.Connection) -> None:
            await conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))

        await self._write(body, f"set the title of session {session_id}")

    async def delete_session(self, session_id: str) -> bool:
        """Delete the session with its messages (and their index entries), usage rows,
        compression lock and — when no other session uses it — its system prompt. Children
        that named it as parent keep existing with ``parent_session_id`` cleared."""

        async def body(conn: aiosqlite.Connection) -> bool:
            rows = await conn.execute_fetchall(
                "SELECT system_prompt_hash FROM sessions WHERE id = ?", (session_id,)
            )
            if not rows:
                return False
            await conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
            await conn.execute("DELETE FROM model_usage WHERE session_id = ?", (session_id,))
            await conn.execute("DELETE FROM compression_locks WHERE session_id = ?", (session_id,))
            await conn.execute(
                "UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?",
                (session_id,),
            )
            await conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            if rows[0][0]:
                await conn.execute(
                    "DELETE FROM system_prompts WHERE hash = ?1 AND NOT EXISTS "
                    "(SELECT 1 FROM sessions WHERE system_prompt_hash = ?1)",
                    (rows[0][0],),
                )
            return True

        return await self._write(body, f"delete session {session_id}")

    # ------------------------------------------------------------------ system prompts

    async def put_system_prompt(self, text: str) -> str:
        """Store ``text`` (once) and return its sha256 hex digest."""
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()

        async def body(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                "INSERT INTO system_prompts(hash, text, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT(hash) DO NOTHING",
                (digest, text, time.time()),
            )

        await self._write(body, "store the system prompt")
        return digest

    async def get_system_prompt(self, prompt_hash: str) -> str | None:
        """The prompt stored under ``prompt_hash``, or None."""

        async def body(conn: aiosqlite.Connection) -> str | None:
            rows = await conn.execute_fetchall(
                "SELECT text FROM system_prompts WHERE hash = ?", (prompt_hash,)
            )
            return rows[0][0] if rows else None

        return await self._read(body)

    # ------------------------------------------------------------------ messages

    async def append_messages(
        self, session_id: str, messages: Sequence[Message], *, fence: Lease | None
    ) -> None:
        """Append ``messages`` after the session's last one, all or nothing.

        With ``fence``, the write lands only if that lease is still held — same owner and
        generation, not expired, not revoked — and guards this session's key; otherwise
        :class:`~talaria.errors.LeaseLost` is raised and nothing is written. Any other
        failure (unknown session, duplicate uid, a value JSON cannot hold, disk error)
        raises :class:`~talaria.errors.PersistenceError`.
        """
        if not messages:
            return
        now = time.time()
        try:
            params = [(session_id, *encode_message(m), now) for m in messages]
        except TypeError as exc:
            raise PersistenceError(str(exc)) from exc

        async def body(conn: aiosqlite.Connection) -> None:
            # one round trip: the session's key and, when fenced, the lease row of the fence
            rows = await conn.execute_fetchall(
                "SELECT s.session_key, l.owner, l.generation, l.expires_at FROM sessions AS s "
                "LEFT JOIN turn_leases AS l ON l.session_key = ? WHERE s.id = ?",
                (fence.session_key if fence is not None else "", session_id),
            )
            if not rows:
                raise PersistenceError(
                    f"cannot append to session {session_id}: it does not exist "
                    "(create_session first)"
                )
            if fence is not None:
                lease_row = rows[0][1:] if rows[0][2] is not None else None
                self._verify_fence(fence, lease_row, rows[0][0])
            await conn.executemany(_INSERT_MESSAGE, params)

        await self._write(body, f"append {len(params)} message(s) to session {session_id}")

    async def get_messages(
        self, session_id: str, *, include_inactive: bool = False
    ) -> list[Message]:
        """The session's messages in append order (active only unless ``include_inactive``).
        Every :class:`Message` field round-trips; tuples inside JSON values come back as
        lists."""
        active = "" if include_inactive else " AND active = 1"

        async def body(conn: aiosqlite.Connection) -> list[Message]:
            rows = await conn.execute_fetchall(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?{active} "
                "ORDER BY seq",
                (session_id,),
            )
            return [decode_message(r) for r in rows]

        return await self._read(body)

    async def stored_messages(
        self, session_id: str, *, include_inactive: bool = True
    ) -> list[StoredMessage]:
        """The transcript with storage facts (``seq``, ``active``, ``compacted``,
        ``created_at``), in append order; inactive messages included by default."""
        active = "" if include_inactive else " AND active = 1"

        async def body(conn: aiosqlite.Connection) -> list[StoredMessage]:
            rows = await conn.execute_fetchall(
                f"SELECT {MESSAGE_COLUMNS}, seq, active, compacted, created_at FROM messages "
                f"WHERE session_id = ?{active} ORDER BY seq",
                (session_id,),
            )
            return [
                StoredMessage(
                    message=decode_message(r[:9]), seq=r[9], active=bool(r[10]),
                    compacted=bool(r[11]), created_at=r[12],
                )
                for r in rows
            ]

        return await self._read(body)

    async def deactivate_messages(
        self,
        session_id: str,
        uids: Sequence[str],
        *,
        compacted: bool = False,
        fence: Lease | None = None,
    ) -> int:
        """Mark these messages inactive (and ``compacted`` when they were replaced by a
        summary); returns how many changed. They stay stored and show with
        ``include_inactive=True``. Fenced like :meth:`append_messages`."""
        if not uids:
            return 0

        async def body(conn: aiosqlite.Connection) -> int:
            if fence is not None:
                await self._check_fence(conn, fence, None)
            changed = 0
            for start in range(0, len(uids), 500):
                chunk = list(uids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                cursor = await conn.execute(
                    f"UPDATE messages SET active = 0, compacted = max(compacted, ?) "
                    f"WHERE session_id = ? AND uid IN ({marks})",
                    (int(compacted), session_id, *chunk),
                )
                changed += cursor.rowcount
            return changed

        return await self._write(body, f"deactivate messages of session {session_id}")

    async def count_messages(self, session_id: str, *, include_inactive: bool = False) -> int:
        """How many (active) messages the session has."""
        active = "" if include_inactive else " AND active = 1"

        async def body(conn: aiosqlite.Connection) -> int:
            rows = await conn.execute_fetchall(
                f"SELECT count(*) FROM messages WHERE session_id = ?{active}", (session_id,)
            )
            return int(rows[0][0])

        return await self._read(body)

