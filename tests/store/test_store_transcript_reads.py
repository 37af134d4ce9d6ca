"""Repeated reads of a transcript always show what is stored, whoever wrote it."""

from __future__ import annotations

from pathlib import Path

from talaria import Message, Usage
from talaria.store import SessionRow, SqliteStore


def _msgs(*texts: str) -> list[Message]:
    return [Message(role="user", content=t) for t in texts]


async def test_reads_see_appends_from_another_connection(store: SqliteStore, session: SessionRow, home: Path) -> None:
    await store.append_messages(session.id, _msgs("a", "b"), fence=None)
    assert [m.content for m in await store.get_messages(session.id)] == ["a", "b"]
    async with SqliteStore(home / "state.db") as other:
        await other.append_messages(session.id, _msgs("c"), fence=None)
    await store.append_messages(session.id, _msgs("d"), fence=None)
    assert [m.content for m in await store.get_messages(session.id)] == ["a", "b", "c", "d"]
    assert [m.content for m in await store.get_messages(session.id)] == ["a", "b", "c", "d"]


async def test_reads_see_deactivation_by_another_connection(store: SqliteStore, session: SessionRow, home: Path) -> None:
    first = _msgs("a", "b", "c")
    await store.append_messages(session.id, first, fence=None)
    await store.get_messages(session.id)
    async with SqliteStore(home / "state.db") as other:
        await other.deactivate_messages(session.id, [first[1].uid])
        await other.append_messages(session.id, _msgs("d"), fence=None)
    assert [m.content for m in await store.get_messages(session.id)] == ["a", "c", "d"]
    assert [m.content for m in await store.get_messages(session.id, include_inactive=True)] == ["a", "b", "c", "d"]


async def test_returned_lists_are_the_callers_own(store: SqliteStore, session: SessionRow) -> None:
    await store.append_messages(session.id, _msgs("a"), fence=None)
    mine = await store.get_messages(session.id)
    mine.append(Message(role="user", content="not stored"))
    assert [m.content for m in await store.get_messages(session.id)] == ["a"]


async def test_usage_lands_with_the_messages_it_produced(store: SqliteStore, session: SessionRow) -> None:
    answer = Message(role="assistant", content="hi")
    await store.append_messages(session.id, [answer], fence=None,
                                usage=[("p", "m", Usage(input_tokens=10, output_tokens=3), 0.5)])
    rows = await store.session_usage(session.id)
    assert [(r.provider, r.model, r.calls, r.input_tokens, r.output_tokens, r.cost) for r in rows] == [("p", "m", 1, 10, 3, 0.5)]
    assert await store.get_messages(session.id) == [answer]
