"""Sessions and system prompts: lifecycle, current session per key, listing, deletion."""

from __future__ import annotations

import hashlib

import pytest

from talaria import Message, PersistenceError, Usage
from talaria.store import SessionRow, SqliteStore


async def test_create_get_and_end(store: SqliteStore, session: SessionRow) -> None:
    got = await store.get_session(session.id)
    assert got is not None
    assert (got.session_key, got.source, got.provider, got.model, got.cwd) == ("cli:main", "cli", "openai", "gpt-test", "/work/project")
    assert got.ended_at is None
    await store.end_session(session.id, "completed")
    await store.end_session(session.id, "interrupted")  # the first end wins
    ended = await store.get_session(session.id)
    assert ended is not None and ended.end_reason == "completed" and ended.ended_at is not None
    assert await store.get_session("nope") is None


async def test_duplicate_session_id_is_refused(store: SqliteStore, session: SessionRow) -> None:
    with pytest.raises(PersistenceError):
        await store.create_session(SessionRow(id=session.id, session_key="other"))


async def test_current_session_is_the_newest_open_one(store: SqliteStore) -> None:
    assert await store.current_session("tg:1") is None
    first = await store.create_session(SessionRow(id="s1", session_key="tg:1", created_at=100.0))
    second = await store.create_session(SessionRow(id="s2", session_key="tg:1", parent_session_id="s1", created_at=200.0))
    await store.create_session(SessionRow(id="s3", session_key="tg:2", created_at=300.0))
    current = await store.current_session("tg:1")
    assert current is not None and current.id == second.id and current.parent_session_id == first.id
    await store.end_session(second.id, "compressed")
    current = await store.current_session("tg:1")
    assert current is not None and current.id == first.id


async def test_list_sessions_filters_counts_and_previews(store: SqliteStore) -> None:
    await store.create_session(SessionRow(id="a", session_key="k", source="cli", cwd="/p1", created_at=1.0))
    await store.create_session(SessionRow(id="b", session_key="k", source="telegram", cwd="/p2", created_at=2.0))
    await store.create_session(SessionRow(id="c", session_key="k", source="cli", cwd="/p2", created_at=3.0))
    await store.append_messages("c", [Message(role="system", content="sys"), Message(role="user", content="first question"),
                                      Message(role="user", content="second")], fence=None)
    assert [r.id for r in await store.list_sessions()] == ["c", "b", "a"]
    assert [r.id for r in await store.list_sessions(limit=1)] == ["c"]
    assert [r.id for r in await store.list_sessions(source="cli")] == ["c", "a"]
    assert [r.id for r in await store.list_sessions(workspace="/p2")] == ["c", "b"]
    newest = (await store.list_sessions())[0]
    assert newest.message_count == 3 and newest.preview == "first question"


async def test_titles(store: SqliteStore, session: SessionRow) -> None:
    await store.set_title(session.id, "Refactor plan")
    assert (await store.get_session(session.id)).title == "Refactor plan"  # type: ignore[union-attr]
    await store.set_title(session.id, None)
    assert (await store.get_session(session.id)).title is None  # type: ignore[union-attr]


async def test_system_prompts_are_stored_once_by_hash(store: SqliteStore) -> None:
    text = "You are Talaria.\n\nBe brief."
    digest = await store.put_system_prompt(text)
    assert digest == hashlib.sha256(text.encode()).hexdigest()
    assert await store.put_system_prompt(text) == digest
    assert await store.get_system_prompt(digest) == text
    assert await store.get_system_prompt("0" * 64) is None


async def test_delete_removes_everything_of_the_session(store: SqliteStore) -> None:
    prompt = await store.put_system_prompt("only used by doomed")
    shared = await store.put_system_prompt("shared prompt")
    await store.create_session(SessionRow(id="doomed", session_key="k", system_prompt_hash=prompt))
    await store.create_session(SessionRow(id="child", session_key="k", parent_session_id="doomed", system_prompt_hash=shared))
    await store.append_messages("doomed", [Message(role="user", content="zebra crossing")], fence=None)
    await store.record_usage("doomed", "openai", "m", Usage(input_tokens=3), 0.01)
    assert await store.delete_session("doomed") is True
    assert await store.delete_session("doomed") is False
    assert await store.get_session("doomed") is None
    assert await store.get_messages("doomed", include_inactive=True) == []
    assert await store.search_messages("zebra") == []
    assert await store.session_usage("doomed") == []
    assert await store.get_system_prompt(prompt) is None
    assert await store.get_system_prompt(shared) == "shared prompt"
    child = await store.get_session("child")
    assert child is not None and child.parent_session_id is None


async def test_id_prefixes_resolve_when_unique(store: SqliteStore) -> None:
    for sid in ("ses_abc1", "ses_abc2", "ses_xyz"):
        await store.create_session(SessionRow(id=sid, session_key="k"))
    assert await store.resolve_session_id("ses_x") == ["ses_xyz"]
    assert await store.resolve_session_id("ses_abc1") == ["ses_abc1"]
    assert len(await store.resolve_session_id("ses_abc")) == 2
    assert await store.resolve_session_id("nope") == []
    assert await store.resolve_session_id("%") == []


async def test_sqlite_store_implements_the_interface(store: SqliteStore, home) -> None:
    from talaria.store import SessionStore, default_store_path

    assert isinstance(store, SessionStore)
    missing = [name for name in dir(SessionStore) if not name.startswith("_") and not hasattr(store, name)]
    assert missing == []
    assert default_store_path() == home / "state.db"
    assert store.path == default_store_path()
