"""Admissions: durable, idempotent per (principal, key, request id), FIFO, reconciled after crashes."""

from __future__ import annotations

import sqlite3

import pytest

from talaria import PersistenceError
from talaria.store import SqliteStore


async def test_resubmitting_the_same_request_returns_the_same_row(store: SqliteStore) -> None:
    first, created = await store.admit("alice", "tg:1", "req-1", {"text": "hello"})
    assert created and first.status == "queued" and first.payload == {"text": "hello"}
    again, created_again = await store.admit("alice", "tg:1", "req-1", {"text": "different"})
    assert not created_again and again.id == first.id and again.payload == {"text": "hello"}
    raw = sqlite3.connect(store.path)
    assert raw.execute("SELECT count(*) FROM admissions").fetchone()[0] == 1
    raw.close()
    # any part of the triple differing makes a new admission
    assert (await store.admit("bob", "tg:1", "req-1", {}))[1]
    assert (await store.admit("alice", "tg:2", "req-1", {}))[1]
    assert (await store.admit("alice", "tg:1", "req-2", {}))[1]


async def test_resubmission_after_completion_still_does_not_requeue(store: SqliteStore) -> None:
    adm, _ = await store.admit("alice", "k", "r", {})
    await store.start_admission(adm.id, "host:1:1")
    await store.finish_admission(adm.id, "completed")
    again, created = await store.admit("alice", "k", "r", {})
    assert not created and again.status == "terminal" and again.end_reason == "completed"
    assert await store.next_admission("k") is None


async def test_queue_is_fifo_per_session_key(store: SqliteStore) -> None:
    ids = [(await store.admit("p", "k", f"r{i}", {"i": i}))[0].id for i in range(3)]
    other, _ = await store.admit("p", "other", "r0", {})
    order = []
    while (head := await store.next_admission("k")) is not None:
        order.append(head.id)
        started = await store.start_admission(head.id, "host:1:1")
        assert started.status == "started" and started.owner == "host:1:1" and started.started_at
        done = await store.finish_admission(head.id, "completed")
        assert done.status == "terminal" and done.end_reason == "completed" and done.finished_at
    assert order == ids
    assert (await store.next_admission("other")).id == other.id  # type: ignore[union-attr]
    assert [a.status for a in await store.list_admissions("k")] == ["terminal"] * 3


async def test_an_admission_cannot_be_started_twice(store: SqliteStore) -> None:
    adm, _ = await store.admit("p", "k", "r", {})
    await store.start_admission(adm.id, "host:1:1")
    with pytest.raises(PersistenceError, match="not 'queued'"):
        await store.start_admission(adm.id, "host:2:2")
    with pytest.raises(PersistenceError, match="no admission"):
        await store.start_admission("adm_missing", "host:1:1")


async def test_finishing_is_final(store: SqliteStore) -> None:
    adm, _ = await store.admit("p", "k", "r", {})
    await store.finish_admission(adm.id, "interrupted")
    kept = await store.finish_admission(adm.id, "completed")
    assert kept.end_reason == "interrupted"


async def test_started_admissions_of_dead_owners_become_unknown(store: SqliteStore) -> None:
    alive, _ = await store.admit("p", "k1", "r", {})
    dead, _ = await store.admit("p", "k2", "r", {})
    queued, _ = await store.admit("p", "k3", "r", {})
    await store.start_admission(alive.id, "host:1:1")
    await store.start_admission(dead.id, "host:2:2")
    unknown = await store.stale_admissions(lambda owner: owner != "host:2:2")
    assert [a.id for a in unknown] == [dead.id] and unknown[0].status == "unknown"
    assert (await store.get_admission(alive.id)).status == "started"  # type: ignore[union-attr]
    assert (await store.get_admission(queued.id)).status == "queued"  # type: ignore[union-attr]
    # never silently re-queued: it is not offered as the next admission
    assert await store.next_admission("k2") is None
    # still reported by a later reconciliation until resolved, resolved exactly once
    assert [a.id for a in await store.stale_admissions(lambda owner: True)] == [dead.id]
    assert await store.resolve_unknown(dead.id, "interrupted") is True
    assert await store.resolve_unknown(dead.id, "interrupted") is False
    resolved = await store.get_admission(dead.id)
    assert resolved is not None and resolved.status == "terminal" and resolved.end_reason == "interrupted"
    assert await store.stale_admissions(lambda owner: True) == []


async def test_payload_must_be_json(store: SqliteStore) -> None:
    with pytest.raises(PersistenceError, match="JSON"):
        await store.admit("p", "k", "r", {"x": object()})
    assert await store.next_admission("k") is None
