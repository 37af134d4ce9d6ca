"""The per-connection cache of active transcripts (what ``get_messages`` returns).

Only the event loop touches it. Entries hold the decoded messages and the highest ``seq``
they cover; a read validates an entry against the database (rows appended after it, active
count) before trusting it, so writes by other connections and processes are always seen.
"""

from __future__ import annotations

from collections import OrderedDict

from .._values import value_type
from ..types import Message

__all__ = ["TranscriptCache"]


@value_type(kw_only=False)
class _Entry:
    messages: tuple[Message, ...]
    last_seq: int


class TranscriptCache:
    """At most ``size`` sessions, least recently used dropped first."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._current: dict[str, str] = {}  # session key -> the session id last read for it

    def get(self, session_id: str) -> _Entry | None:
        entry = self._entries.get(session_id)
        if entry is not None:
            self._entries.move_to_end(session_id)
        return entry

    def peek(self, session_id: str) -> _Entry | None:
        """Like ``get`` without touching the order: safe to call from the store's thread."""
        return self._entries.get(session_id)

    def put(self, session_id: str, messages: list[Message], last_seq: int) -> None:
        self._entries[session_id] = _Entry(tuple(messages), last_seq)
        self._entries.move_to_end(session_id)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def appended(self, session_id: str, messages: list[Message], last_seq: int) -> None:
        """Our own append of ``messages`` ended at ``last_seq``: extend a contiguous entry,
        drop one that missed rows in between (the next read reloads it)."""
        entry = self._entries.get(session_id)
        if entry is None:
            return
        if entry.last_seq == last_seq - len(messages):
            self._entries[session_id] = _Entry(entry.messages + tuple(messages), last_seq)
        else:
            del self._entries[session_id]

    def forget(self, session_id: str) -> None:
        self._entries.pop(session_id, None)

    def current_of(self, session_key: str) -> str | None:
        """The session id last read as ``session_key``'s current one (a hint, not a fact)."""
        return self._current.get(session_key)

    def set_current(self, session_key: str, session_id: str) -> None:
        self._current[session_key] = session_id
        while len(self._current) > 4 * self._size:
            self._current.pop(next(iter(self._current)))
