"""The session store interface: row types and the ``SessionStore`` protocol.

The store owns the facts that must never be wrong (DESIGN §4–5): which sessions exist, what
was said in them, the durable input queue (admissions), who may write a session (leases),
who compresses it, what it cost, and which replies are still owed (deliveries).

SQLite (:class:`talaria.store.sqlite.SqliteStore`) is the default backend; the protocol is
written so that a server database (PostgreSQL: row locks, ``SKIP LOCKED``) can back it with
the same invariants. Every row type is a frozen dataclass; timestamps are Unix epoch seconds
(``float``, wall clock, comparable across processes of one machine). No row ever holds a
credential.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any, Literal, Protocol, runtime_checkable

from .._values import value_type
from ..types import Message, Usage

__all__ = [
    "ADMISSION_STATUSES",
    "DELIVERY_STATUSES",
    "Admission",
    "AdmissionStatus",
    "Delivery",
    "DeliveryStatus",
    "Lease",
    "SearchHit",
    "SessionRow",
    "SessionStore",
    "StoredMessage",
    "UsageEntry",
    "UsageRow",
]

#: ``(provider, model, usage, cost)`` of one model call, recorded with the messages it made.
UsageEntry = tuple[str, str, Usage, "float | None"]
AdmissionStatus = Literal["queued", "started", "unknown", "terminal"]
DeliveryStatus = Literal["pending", "attempting", "delivered", "failed", "abandoned"]
ADMISSION_STATUSES: tuple[str, ...] = ("queued", "started", "unknown", "terminal")
DELIVERY_STATUSES: tuple[str, ...] = ("pending", "attempting", "delivered", "failed", "abandoned")


@value_type
class SessionRow:
    """One conversation. ``session_key`` is the routing identity (DESIGN §7); a key maps to a
    chain of sessions (reset and compression start a new one, ``parent_session_id`` links a
    compressed session to its predecessor). ``message_count`` and ``preview`` (the start of
    the first user message) are filled by :meth:`SessionStore.list_sessions` (None elsewhere;
    ignored on create)."""

    id: str
    session_key: str
    parent_session_id: str | None = None
    source: str = ""
    provider: str = ""
    model: str = ""
    system_prompt_hash: str | None = None
    cwd: str = ""
    title: str | None = None
    created_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    end_reason: str | None = None
    message_count: int | None = None
    preview: str | None = None


@value_type
class Admission:
    """A durable input: one submitted request for a session key (DESIGN §4, invariant 1).

    ``status`` goes ``queued → started → terminal``; ``unknown`` marks a ``started`` row whose
    owner died before finishing it (to be reconciled, never silently re-run or dropped).
    ``seq`` is the FIFO order across all keys (smaller = submitted earlier).
    """

    id: str
    principal: str
    session_key: str
    request_id: str
    payload: Mapping[str, Any]
    status: AdmissionStatus
    seq: int = 0
    end_reason: str | None = None
    owner: str | None = None
    created_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None


@value_type
class Lease:
    """The right to write one session key (DESIGN §4, invariant 2).

    A lease is identified by ``(session_key, owner, generation)``; ``generation`` grows by one
    on every acquisition, so an old holder's lease can never match the row again (fencing).
    ``expires_at`` is the expiry known when this object was made; the store checks the row's
    current expiry, so a refreshed lease does not invalidate earlier copies of this object.
    """

    session_key: str
    owner: str
    generation: int
    expires_at: float
    host: str = ""
    pid: int = 0

    @property
    def fence_key(self) -> tuple[str, str, int]:
        """``(session_key, owner, generation)``: what a fenced write compares. Anything with
        ``session_key``, ``owner``, ``generation`` and ``fence_key`` (a running
        :class:`~talaria.store.lease.LeaseKeeper`) can be passed where a fence is expected."""
        return (self.session_key, self.owner, self.generation)


@value_type
class StoredMessage:
    """A message with its storage facts (for show/export/audit)."""

    message: Message
    seq: int
    active: bool = True
    compacted: bool = False
    created_at: float = 0.0


@value_type
class SearchHit:
    """One full-text search result: where the message is and a short snippet around the
    match (matched terms wrapped in ``[`` ``]``)."""

    session_id: str
    uid: str
    role: str
    snippet: str
    created_at: float
    title: str | None = None
    session_key: str = ""
    seq: int = 0


@value_type
class UsageRow:
    """Accumulated model usage of one session × provider × model. ``cost`` is USD, None when
    no call had a known price."""

    session_id: str
    provider: str
    model: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    first_at: float = 0.0
    last_at: float = 0.0

    @property
    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_read_tokens=self.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens,
        )


@value_type
class Delivery:
    """An outbound obligation (DESIGN §7): a reply some channel still owes the user.

    ``pending`` = never attempted (safe to send); ``attempting`` = a send started and its
    outcome is unknown (may have been sent); ``delivered`` / ``failed`` / ``abandoned`` are
    final. ``target`` holds channel routing data (chat id, thread id) — never credentials.
    """

    id: str
    session_key: str
    text: str
    status: DeliveryStatus = "pending"
    admission_id: str | None = None
    channel: str = ""
    target: Mapping[str, Any] = field(default_factory=dict)
    attempts: int = 0
    last_error: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0


@runtime_checkable
class SessionStore(Protocol):
    """What the kernel needs from a session store. All methods are coroutines unless noted.

    Errors: a write that did not land raises :class:`talaria.errors.PersistenceError`; a
    fenced write whose lease is no longer held raises :class:`talaria.errors.LeaseLost` and
    writes nothing. Reads of missing rows return ``None`` (or an empty list).
    """

    # ------------------------------------------------------------------ lifecycle
    async def open(self) -> None:
        """Open (creating and migrating when needed). Cheap: no full-table scans."""

    async def aclose(self) -> None:
        """Close; idempotent."""

    # ------------------------------------------------------------------ sessions
    async def create_session(self, row: SessionRow) -> SessionRow:
        """Insert a session row (its id must be new) and return it as stored."""

    async def get_session(self, session_id: str) -> SessionRow | None:
        """Return the session or None."""

    async def resolve_session_id(self, prefix: str) -> list[str]:
        """Return up to two session ids starting with ``prefix`` (exact match first)."""

    async def list_sessions(
        self, *, limit: int = 50, workspace: str | None = None, source: str | None = None
    ) -> list[SessionRow]:
        """Newest first, with ``message_count``; filters match ``cwd`` and ``source`` exactly."""

    async def current_session(self, session_key: str) -> SessionRow | None:
        """The newest session of ``session_key`` that has not ended, or None."""

    async def end_session(self, session_id: str, reason: str) -> None:
        """Mark the session ended (first end wins; ending twice keeps the first reason)."""

    async def set_title(self, session_id: str, title: str | None) -> None:
        """Set or clear the display title."""

    async def delete_session(self, session_id: str) -> bool:
        """Delete the session, its messages, usage and locks; True when it existed."""

    # ------------------------------------------------------------------ prompts
    async def put_system_prompt(self, text: str) -> str:
        """Store ``text`` once and return its sha256 hex digest (idempotent)."""

    async def get_system_prompt(self, prompt_hash: str) -> str | None:
        """Return the prompt text for a hash, or None."""

    # ------------------------------------------------------------------ messages
    async def append_messages(
        self,
        session_id: str,
        messages: Sequence[Message],
        *,
        fence: Lease | None,
        usage: Sequence[UsageEntry] = (),
    ) -> None:
        """Append in order, in one transaction; fenced by ``fence`` when given. ``usage`` of
        the model calls that produced the messages is added in the same transaction."""

    async def get_messages(
        self, session_id: str, *, include_inactive: bool = False
    ) -> list[Message]:
        """The transcript in append order; every :class:`Message` field round-trips."""

    async def current_transcript(self, session_key: str) -> tuple[SessionRow | None, list[Message]]:
        """``current_session(key)`` and its active messages, read together."""

    async def stored_messages(
        self, session_id: str, *, include_inactive: bool = True
    ) -> list[StoredMessage]:
        """Like :meth:`get_messages`, with ``seq``, active/compacted flags and timestamps."""

    async def deactivate_messages(
        self,
        session_id: str,
        uids: Sequence[str],
        *,
        compacted: bool = False,
        fence: Lease | None = None,
    ) -> int:
        """Mark messages inactive (hidden from :meth:`get_messages`); returns how many."""

    async def search_messages(
        self, query: str, *, limit: int = 10, exclude_session: str | None = None
    ) -> list[SearchHit]:
        """Full-text search over active messages; any user string is safe as ``query``."""

    # ------------------------------------------------------------------ admissions
    async def admit(
        self, principal: str, session_key: str, request_id: str, payload: Mapping[str, Any]
    ) -> tuple[Admission, bool]:
        """Queue a request; ``(row, True)`` when new, ``(existing row, False)`` on resubmit."""

    async def get_admission(self, admission_id: str) -> Admission | None:
        """Return the admission or None."""

    async def next_admission(self, session_key: str) -> Admission | None:
        """The oldest ``queued`` admission of the key (FIFO), or None."""

    async def start_admission(self, admission_id: str, owner: str) -> Admission:
        """``queued → started`` by ``owner``; PersistenceError if it is not queued."""

    async def finish_admission(self, admission_id: str, end_reason: str) -> Admission:
        """Make it ``terminal`` with ``end_reason`` (a terminal row is left unchanged)."""

    async def begin_turn(
        self, principal: str, session_key: str, request_id: str, payload: Mapping[str, Any], *,
        owner: str, ttl: float,
    ) -> tuple[Admission, bool, Lease | None]:
        """``admit`` and, when new, first in line and the lease is free, take the lease and
        start the admission, in one transaction; ``lease`` None means: wait as usual."""

    async def end_turn(self, admission_id: str, end_reason: str, lease: Lease | None) -> Admission:
        """``finish_admission`` and ``release_lease(lease)`` in one transaction."""

    async def stale_admissions(
        self, is_owner_alive: Callable[[str], bool]
    ) -> list[Admission]:
        """Turn ``started`` rows with dead owners into ``unknown``; return all ``unknown``."""

    async def resolve_unknown(self, admission_id: str, end_reason: str) -> bool:
        """``unknown → terminal``; True when this call resolved it."""

    # ------------------------------------------------------------------ leases
    async def try_acquire_lease(self, session_key: str, owner: str, ttl: float) -> Lease | None:
        """Take the key's lease if free, expired or its owner is provably gone; else None."""

    async def get_lease(self, session_key: str) -> Lease | None:
        """The current holder (even if expired), or None when nobody holds it."""

    async def refresh_lease(self, lease: Lease, ttl: float) -> Lease:
        """Extend a held lease to now + ``ttl``; LeaseLost if it was taken over or revoked."""

    async def release_lease(self, lease: Lease) -> None:
        """Give the lease up (no-op when it is no longer ours)."""

    def revoke_lease(self, lease: Lease, *, expire_row: bool = True) -> None:
        """Synchronous and thread-safe: no later fenced write with ``lease`` lands; with
        ``expire_row`` the stored lease is also expired so another owner can take it."""

    # ------------------------------------------------------------------ compression locks
    async def try_lock_compression(self, session_id: str, holder: str, ttl: float) -> bool:
        """Take the session's compression lock (free, expired or already ours)."""

    async def unlock_compression(self, session_id: str, holder: str) -> None:
        """Release the lock if ``holder`` has it."""

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
        """Add one call's usage (and cost) to the session × provider × model totals."""

    async def session_usage(self, session_id: str) -> list[UsageRow]:
        """Totals per provider × model for the session."""

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
        """Record a reply that must be delivered (status ``pending``)."""

    async def mark_delivery(self, delivery_id: str, status: str, error: str | None = None) -> None:
        """Move a delivery to ``status``; ``attempting`` also counts an attempt."""

    async def pending_deliveries(self, session_key: str | None = None) -> list[Delivery]:
        """Deliveries still ``pending`` or ``attempting``, oldest first."""
