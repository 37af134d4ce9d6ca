"""Model usage totals and delivery obligations."""

from __future__ import annotations

import sqlite3

import pytest

from talaria import PersistenceError, Usage
from talaria.errors import LeaseLost
from talaria.store import SessionRow, SqliteStore


async def test_usage_accumulates_per_provider_and_model(store: SqliteStore, session: SessionRow) -> None:
    await store.record_usage(session.id, "openai", "gpt-a", Usage(input_tokens=100, output_tokens=10, cache_read_tokens=50), None)
    await store.record_usage(session.id, "openai", "gpt-a", Usage(input_tokens=20, output_tokens=5, cache_write_tokens=7, reasoning_tokens=3), 0.25)
    await store.record_usage(session.id, "openai", "gpt-a", Usage(input_tokens=1), 0.5)
    await store.record_usage(session.id, "anthropic", "claude", Usage(input_tokens=9), None)
    rows = {(r.provider, r.model): r for r in await store.session_usage(session.id)}
    a = rows[("openai", "gpt-a")]
    assert (a.calls, a.input_tokens, a.output_tokens, a.cache_read_tokens, a.cache_write_tokens, a.reasoning_tokens) == (3, 121, 15, 50, 7, 3)
    assert a.cost == pytest.approx(0.75)
    assert a.usage == Usage(input_tokens=121, output_tokens=15, cache_read_tokens=50, cache_write_tokens=7, reasoning_tokens=3)
    assert rows[("anthropic", "claude")].cost is None  # no price known: not a fake zero
    assert await store.session_usage("other") == []


async def test_usage_can_be_fenced(store: SqliteStore, session: SessionRow) -> None:
    lease = await store.try_acquire_lease(session.session_key, "elsewhere:1:1", ttl=30)
    assert lease is not None
    await store.record_usage(session.id, "p", "m", Usage(input_tokens=1), None, fence=lease)
    store.revoke_lease(lease)
    with pytest.raises(LeaseLost):
        await store.record_usage(session.id, "p", "m", Usage(input_tokens=1), None, fence=lease)
    assert (await store.session_usage(session.id))[0].calls == 1


async def test_delivery_lifecycle(store: SqliteStore) -> None:
    d1 = await store.add_delivery("tg:1", "hello", admission_id="adm_1", channel="telegram", target={"chat_id": "42"})
    d2 = await store.add_delivery("tg:2", "second")
    assert d1.status == "pending" and d1.target == {"chat_id": "42"}
    assert [d.id for d in await store.pending_deliveries()] == [d1.id, d2.id]
    assert [d.id for d in await store.pending_deliveries("tg:2")] == [d2.id]
    await store.mark_delivery(d1.id, "attempting")
    pending = {d.id: d for d in await store.pending_deliveries()}
    assert pending[d1.id].status == "attempting" and pending[d1.id].attempts == 1  # ambiguous after a crash
    await store.mark_delivery(d1.id, "failed", error="429 from platform")
    await store.mark_delivery(d1.id, "attempting")
    await store.mark_delivery(d1.id, "delivered")
    done = await store.get_delivery(d1.id)
    assert done is not None and done.status == "delivered" and done.attempts == 2 and done.last_error == "429 from platform"
    assert done.channel == "telegram" and done.admission_id == "adm_1"
    assert [d.id for d in await store.pending_deliveries()] == [d2.id]
    await store.mark_delivery(d2.id, "abandoned")
    assert await store.pending_deliveries() == []


async def test_delivery_errors(store: SqliteStore) -> None:
    with pytest.raises(ValueError, match="status"):
        await store.mark_delivery("x", "sent")
    with pytest.raises(PersistenceError, match="no delivery"):
        await store.mark_delivery("dlv_missing", "delivered")


async def test_no_credentials_in_rows(store: SqliteStore, session: SessionRow) -> None:
    """The store has no column for a credential; a Credential object cannot be stored."""
    from talaria import Credential

    raw = sqlite3.connect(store.path)
    columns = {
        (table, col[1])
        for (table,) in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")
        for col in raw.execute(f"PRAGMA table_info('{table}')")
    }
    raw.close()
    assert not [c for c in columns if any(word in c[1].lower() for word in ("key_value", "api_key", "secret", "token_value", "password"))]
    with pytest.raises(PersistenceError):
        await store.admit("p", "k", "r", {"credential": Credential(provider="openai", key="sk-secret")})
