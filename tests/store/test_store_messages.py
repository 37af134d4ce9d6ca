"""Messages: exact round-trip, order, atomic batches, deactivation, failures → PersistenceError."""

from __future__ import annotations

import sqlite3

import pytest

from talaria import Message, PersistenceError, ToolCall
from talaria.store import SessionRow, SqliteStore


def _every_field() -> list[Message]:
    return [
        Message(role="system", content="You are terse."),
        Message(role="user", content="héllo ✓ \"quotes\" \n newline", meta={"recall": ["a", 1], "n": None}),
        Message(
            role="assistant",
            content="Let me look.",
            tool_calls=(
                ToolCall(id="call_1", name="read_file", arguments={"path": "a.txt", "lines": [1, 2], "deep": {"x": 1.5}}),
                ToolCall(id="call_2", name="terminal", arguments={}, raw_arguments='{"command": "ls'),
            ),
            api_content=[{"type": "reasoning", "encrypted": "abc=="}, {"type": "text", "text": "Let me look."}],
            meta={"finish_reason": "tool_calls"},
        ),
        Message(role="tool", content="file body", tool_call_id="call_1", name="read_file", status="ok"),
        Message(role="tool", content="bad json", tool_call_id="call_2", name="terminal", status="invalid"),
        Message(role="assistant", content="", api_content={"content": None, "empty": ""}),
        Message(role="assistant", content="0", api_content="plain string"),
    ]


async def test_every_message_field_round_trips(store: SqliteStore, session: SessionRow) -> None:
    messages = _every_field()
    await store.append_messages(session.id, messages, fence=None)
    assert await store.get_messages(session.id) == messages


async def test_appends_keep_order_across_calls(store: SqliteStore, session: SessionRow) -> None:
    for i in range(5):
        await store.append_messages(session.id, [Message(role="user", content=str(i))], fence=None)
    await store.append_messages(session.id, [Message(role="user", content="5"), Message(role="user", content="6")], fence=None)
    assert [m.content for m in await store.get_messages(session.id)] == [str(i) for i in range(7)]
    stored = await store.stored_messages(session.id)
    assert [s.seq for s in stored] == list(range(1, 8))


async def test_sessions_do_not_mix(store: SqliteStore, session: SessionRow) -> None:
    other = await store.create_session(SessionRow(id="ses_other", session_key="cli:other"))
    await store.append_messages(session.id, [Message(role="user", content="mine")], fence=None)
    await store.append_messages(other.id, [Message(role="user", content="theirs")], fence=None)
    assert [m.content for m in await store.get_messages(session.id)] == ["mine"]
    assert [m.content for m in await store.get_messages(other.id)] == ["theirs"]


async def test_a_batch_is_all_or_nothing(store: SqliteStore, session: SessionRow) -> None:
    good = Message(role="user", content="fine")
    bad = Message(role="assistant", content="x", api_content={"not json": object()})
    with pytest.raises(PersistenceError, match="JSON"):
        await store.append_messages(session.id, [good, bad], fence=None)
    assert await store.get_messages(session.id) == []


async def test_duplicate_uid_is_a_persistence_error(store: SqliteStore, session: SessionRow) -> None:
    msg = Message(role="user", content="once")
    await store.append_messages(session.id, [msg], fence=None)
    with pytest.raises(PersistenceError):
        await store.append_messages(session.id, [Message(role="user", content="new"), msg], fence=None)
    assert [m.content for m in await store.get_messages(session.id)] == ["once"]


async def test_unknown_session_is_refused(store: SqliteStore) -> None:
    with pytest.raises(PersistenceError, match="create_session first"):
        await store.append_messages("ses_missing", [Message(role="user", content="x")], fence=None)


async def test_a_failing_write_raises_persistence_error(store: SqliteStore, session: SessionRow) -> None:
    # Simulate the disk refusing writes: a trigger aborts every insert into messages.
    raw = sqlite3.connect(store.path)
    raw.execute("CREATE TRIGGER fail_insert BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
    raw.commit()
    raw.close()
    with pytest.raises(PersistenceError, match="disk I/O error"):
        await store.append_messages(session.id, [Message(role="user", content="lost")], fence=None)
    assert await store.get_messages(session.id, include_inactive=True) == []


async def test_deactivated_messages_are_hidden_but_kept(store: SqliteStore, session: SessionRow) -> None:
    msgs = [Message(role="user", content=f"m{i}") for i in range(4)]
    await store.append_messages(session.id, msgs, fence=None)
    changed = await store.deactivate_messages(session.id, [msgs[0].uid, msgs[1].uid, "nope"], compacted=True)
    assert changed == 2
    assert [m.content for m in await store.get_messages(session.id)] == ["m2", "m3"]
    assert await store.get_messages(session.id, include_inactive=True) == msgs
    stored = await store.stored_messages(session.id)
    assert [(s.active, s.compacted) for s in stored] == [(False, True), (False, True), (True, False), (True, False)]
    assert await store.count_messages(session.id) == 2


async def test_store_must_be_open(home) -> None:
    from talaria.errors import StoreError

    closed = SqliteStore(home / "state.db")
    with pytest.raises(StoreError, match="open"):
        await closed.get_messages("x")
