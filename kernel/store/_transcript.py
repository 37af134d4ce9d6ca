"""Sessions, system prompts and messages of :class:`SqliteStore`."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import PersistenceError
from ..types import Message
from ._cache import TranscriptCache
from ._codec import MESSAGE_COLUMNS, decode_message, encode_message
from ._ledger import add_usage
from .base import Lease, SessionRow, StoredMessage, UsageEntry

if TYPE_CHECKING:
    from ._db import DbConnection

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


def _current(conn: DbConnection, session_key: str) -> SessionRow | None:
    rows = conn.execute_fetchall(
        f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE session_key = ? "
        "AND ended_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT 1",
        (session_key,),
    )
    return _session(rows[0]) if rows else None


#: ``(last active seq, messages, incremental)`` — incremental: append to the cached ones.
_ActiveRead = tuple[int, list[Message], bool]


def _read_active(conn: DbConnection, session_id: str, cached: Any) -> _ActiveRead:
    """The active transcript, or only what follows ``cached`` when that is still valid
    (nothing before its end was deactivated: the active count adds up)."""
    count, last = conn.execute_fetchall(
        "SELECT count(*), coalesce(max(seq), 0) FROM messages WHERE session_id = ? AND active = 1",
        (session_id,),
    )[0]
    if cached is not None:
        newer = conn.execute_fetchall(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND active = 1 "
            "AND seq > ? ORDER BY seq",
            (session_id, cached.last_seq),
        )
        if count == len(cached.messages) + len(newer):
            return last, [decode_message(r) for r in newer], True
    rows = conn.execute_fetchall(
        f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND active = 1 ORDER BY seq",
        (session_id,),
    )
    return last, [decode_message(r) for r in rows], False


class TranscriptMixin:
    """Sessions, prompts, messages. Relies on ``_read``/``_write``/``_check_fence``."""

    if TYPE_CHECKING:
        from collections.abc import Awaitable, Callable

        _read: Callable[..., Awaitable[Any]]
        _write: Callable[..., Awaitable[Any]]
        _transcripts: TranscriptCache

        def _check_fence(
            self, conn: DbConnection, fence: Lease, session_key: str | None
        ) -> None: ...

        def _verify_fence(self, fence: Lease, row: Any, session_key: str | None) -> None: ...

    # ------------------------------------------------------------------ sessions

    async def create_session(self, row: SessionRow) -> SessionRow:
        """Insert ``row``; PersistenceError when the id exists. Returns the row as stored
        (``message_count`` 0)."""

        def body(conn: DbConnection) -> None:
            conn.execute(
                f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    row.id, row.session_key, row.parent_session_id, row.source, row.provider,
                    row.model, row.system_prompt_hash, row.cwd, row.title, row.created_at,
                    row.ended_at, row.end_reason,
                ),
            )

        await self._write(body, f"create session {row.id}", inline=True)
        return _session(
            (row.id, row.session_key, row.parent_session_id, row.source, row.provider,
             row.model, row.system_prompt_hash, row.cwd, row.title, row.created_at,
             row.ended_at, row.end_reason),
            0,
        )

    async def get_session(self, session_id: str) -> SessionRow | None:
        """The session with this exact id, or None."""

        def body(conn: DbConnection) -> SessionRow | None:
            rows = conn.execute_fetchall(
                f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)
            )
            return _session(rows[0]) if rows else None

        return await self._read(body)

    async def resolve_session_id(self, prefix: str) -> list[str]:
        """Ids starting with ``prefix``: ``[id]`` for an exact or unique match, two ids when
        ambiguous, ``[]`` when none (used by the CLI to accept id prefixes)."""

        def body(conn: DbConnection) -> list[str]:
            exact = conn.execute_fetchall("SELECT id FROM sessions WHERE id = ?", (prefix,))
            if exact:
                return [exact[0][0]]
            rows = conn.execute_fetchall(
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

        def body(conn: DbConnection) -> list[SessionRow]:
            rows = conn.execute_fetchall(
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

        def body(conn: DbConnection) -> SessionRow | None:
            return _current(conn, session_key)

        return await self._read(body, inline=True)

    async def end_session(self, session_id: str, reason: str) -> None:
        """Set ``ended_at``/``end_reason`` unless already ended (the first end wins)."""

        def body(conn: DbConnection) -> None:
            conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ? "
                "WHERE id = ? AND ended_at IS NULL",
                (time.time(), reason, session_id),
            )

        await self._write(body, f"end session {session_id}", inline=True)

    async def set_title(self, session_id: str, title: str | None) -> None:
        """Set (or clear with None) the session's title."""

        def body(conn: DbConnection) -> None:
            conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))

        await self._write(body, f"set the title of session {session_id}")

    async def delete_session(self, session_id: str) -> bool:
        """Delete the session with its messages (and their index entries), usage rows,
        compression lock and — when no other session uses it — its system prompt. Children
        that named it as parent keep existing with ``parent_session_id`` cleared."""

        def body(conn: DbConnection) -> bool:
            rows = conn.execute_fetchall(
                "SELECT system_prompt_hash FROM sessions WHERE id = ?", (session_id,)
            )
            if not rows:
                return False
            conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM model_usage WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM compression_locks WHERE session_id = ?", (session_id,))
            conn.execute(
                "UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?",
                (session_id,),
            )
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            if rows[0][0]:
                conn.execute(
                    "DELETE FROM system_prompts WHERE hash = ?1 AND NOT EXISTS "
                    "(SELECT 1 FROM sessions WHERE system_prompt_hash = ?1)",
                    (rows[0][0],),
                )
            return True

        try:
            return await self._write(body, f"delete session {session_id}")
        finally:
            self._transcripts.forget(session_id)

    # ------------------------------------------------------------------ system prompts

    async def put_system_prompt(self, text: str) -> str:
        """Store ``text`` (once) and return its sha256 hex digest."""
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()

        def body(conn: DbConnection) -> None:
            conn.execute(
                "INSERT INTO system_prompts(hash, text, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT(hash) DO NOTHING",
                (digest, text, time.time()),
            )

        await self._write(body, "store the system prompt", inline=True)
        return digest

    async def get_system_prompt(self, prompt_hash: str) -> str | None:
        """The prompt stored under ``prompt_hash``, or None."""

        def body(conn: DbConnection) -> str | None:
            rows = conn.execute_fetchall(
                "SELECT text FROM system_prompts WHERE hash = ?", (prompt_hash,)
            )
            return rows[0][0] if rows else None

        return await self._read(body, inline=True)

    # ------------------------------------------------------------------ messages

    async def append_messages(
        self,
        session_id: str,
        messages: Sequence[Message],
        *,
        fence: Lease | None,
        usage: Sequence[UsageEntry] = (),
    ) -> None:
        """Append ``messages`` after the session's last one, all or nothing.

        With ``fence``, the write lands only if that lease is still held — same owner and
        generation, not expired, not revoked — and guards this session's key; otherwise
        :class:`~talaria.errors.LeaseLost` is raised and nothing is written. Any other
        failure (unknown session, duplicate uid, a value JSON cannot hold, disk error)
        raises :class:`~talaria.errors.PersistenceError`. ``usage`` — ``(provider, model,
        usage, cost)`` of the model calls that produced these messages — is added to the
        session's usage totals in the same transaction.
        """
        if not messages and not usage:
            return
        now = time.time()
        try:
            params = [(session_id, *encode_message(m), now) for m in messages]
        except TypeError as exc:
            raise PersistenceError(str(exc)) from exc

        def body(conn: DbConnection) -> tuple[int, list[Message]]:
            # one round trip: the session's key and, when fenced, the lease row of the fence
            rows = conn.execute_fetchall(
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
            conn.executemany(_INSERT_MESSAGE, params)
            for provider, model, spent, cost in usage:
                add_usage(conn, session_id, provider, model, spent, cost)
            last = conn.execute_fetchall(
                "SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = ?", (session_id,)
            )[0][0]
            return last, [decode_message(p[1:10]) for p in params]  # exactly what a read returns

        last_seq, stored = await self._write(
            body, f"append {len(params)} message(s) to session {session_id}", inline=True
        )
        self._transcripts.appended(session_id, stored, last_seq)

    async def get_messages(
        self, session_id: str, *, include_inactive: bool = False
    ) -> list[Message]:
        """The session's messages in append order (active only unless ``include_inactive``).
        Every :class:`Message` field round-trips; tuples inside JSON values come back as
        lists.

        The active transcript is cached per session: a read fetches only the rows appended
        since the cached ones (by any connection) and checks the active count, so a turn
        does not decode its whole history again."""
        if include_inactive:

            def read_all(conn: DbConnection) -> list[Message]:
                rows = conn.execute_fetchall(
                    f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq",
                    (session_id,),
                )
                return [decode_message(r) for r in rows]

            return await self._read(read_all)

        cached = self._transcripts.get(session_id)

        def body(conn: DbConnection) -> _ActiveRead:
            return _read_active(conn, session_id, cached)

        # inline only when cached: then the read is a count and the few newest rows
        return self._merge(session_id, cached, await self._read(body, inline=cached is not None))

    async def current_transcript(self, session_key: str) -> tuple[SessionRow | None, list[Message]]:
        """:meth:`current_session` and its :meth:`get_messages`, read together (one hop)."""
        peek = self._transcripts.peek
        known = self._transcripts.current_of(session_key)

        def body(conn: DbConnection) -> tuple[SessionRow | None, Any, _ActiveRead | None]:
            row = _current(conn, session_key)
            if row is None:
                return None, None, None
            cached = peek(row.id)  # a plain dict read; entries are immutable
            return row, cached, _read_active(conn, row.id, cached)

        row, cached, read = await self._read(body, inline=known is not None and peek(known) is not None)
        if row is None or read is None:
            return None, []
        self._transcripts.set_current(session_key, row.id)
        return row, self._merge(row.id, cached, read)

    def _merge(self, session_id: str, cached: Any, read: _ActiveRead) -> list[Message]:
        last_seq, fetched, incremental = read
        messages = [*cached.messages, *fetched] if incremental and cached is not None else fetched
        self._transcripts.put(session_id, messages, last_seq)
        return list(messages)

    async def stored_messages(
        self, session_id: str, *, include_inactive: bool = True
    ) -> list[StoredMessage]:
        """The transcript with storage facts (``seq``, ``active``, ``compacted``,
        ``created_at``), in append order; inactive messages included by default."""
        active = "" if include_inactive else " AND active = 1"

        def body(conn: DbConnection) -> list[StoredMessage]:
            rows = conn.execute_fetchall(
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

        def body(conn: DbConnection) -> int:
            if fence is not None:
                self._check_fence(conn, fence, None)
            changed = 0
            for start in range(0, len(uids), 500):
                chunk = list(uids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                cursor = conn.execute(
                    f"UPDATE messages SET active = 0, compacted = max(compacted, ?) "
                    f"WHERE session_id = ? AND uid IN ({marks})",
                    (int(compacted), session_id, *chunk),
                )
                changed += cursor.rowcount
            return changed

        try:
            return await self._write(body, f"deactivate messages of session {session_id}")
        finally:
            self._transcripts.forget(session_id)

    async def count_messages(self, session_id: str, *, include_inactive: bool = False) -> int:
        """How many (active) messages the session has."""
        active = "" if include_inactive else " AND active = 1"

        def body(conn: DbConnection) -> int:
            rows = conn.execute_fetchall(
                f"SELECT count(*) FROM messages WHERE session_id = ?{active}", (session_id,)
            )
            return int(rows[0][0])

        return await self._read(body)

