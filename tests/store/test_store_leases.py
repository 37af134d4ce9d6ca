"""Leases: one holder per key, generations fence stale holders, dead owners are reclaimed at once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

from talaria import Message
from talaria.errors import LeaseLost, PersistenceError
from talaria.store import SessionRow, SqliteStore, current_owner, owner_alive
from talaria.store.owner import parse_owner, process_start_time

HOST = current_owner().split(":")[0]


def _other(n: int) -> str:
    """An owner on another host: always considered alive."""
    return f"elsewhere-{n}:{1000 + n}:1"


async def test_one_holder_at_a_time_and_generations_grow(store: SqliteStore) -> None:
    a = await store.try_acquire_lease("k", _other(1), ttl=30)
    assert a is not None and a.generation == 1
    assert await store.try_acquire_lease("k", _other(2), ttl=30) is None
    assert await store.try_acquire_lease("k", _other(1), ttl=30) is None  # not re-entrant
    holder = await store.get_lease("k")
    assert holder is not None and holder.owner == _other(1)
    await store.release_lease(a)
    assert await store.get_lease("k") is None
    b = await store.try_acquire_lease("k", _other(2), ttl=30)
    assert b is not None and b.generation == 2
    # other keys are independent
    c = await store.try_acquire_lease("k2", _other(1), ttl=30)
    assert c is not None and c.generation == 1


async def test_an_expired_lease_can_be_taken_over(store: SqliteStore) -> None:
    a = await store.try_acquire_lease("k", _other(1), ttl=0.05)
    assert a is not None
    await asyncio.sleep(0.08)
    b = await store.try_acquire_lease("k", _other(2), ttl=30)
    assert b is not None and b.generation == a.generation + 1


async def test_a_stale_lease_writes_nothing(store: SqliteStore, session: SessionRow) -> None:
    old = await store.try_acquire_lease(session.session_key, _other(1), ttl=0.4)
    assert old is not None
    await store.append_messages(session.id, [Message(role="user", content="while held")], fence=old)
    await asyncio.sleep(0.45)
    new = await store.try_acquire_lease(session.session_key, _other(2), ttl=30)
    assert new is not None
    with pytest.raises(LeaseLost, match="generation 1"):
        await store.append_messages(session.id, [Message(role="assistant", content="late")], fence=old)
    with pytest.raises(LeaseLost):
        await store.deactivate_messages(session.id, ["x"], fence=old)
    with pytest.raises(LeaseLost):
        await store.refresh_lease(old, ttl=30)
    await store.release_lease(old)  # a no-op: it is not ours any more
    assert (await store.get_lease(session.session_key)).owner == _other(2)  # type: ignore[union-attr]
    await store.append_messages(session.id, [Message(role="assistant", content="new owner")], fence=new)
    assert [m.content for m in await store.get_messages(session.id)] == ["while held", "new owner"]


async def test_an_expired_but_untaken_lease_does_not_fence_writes(store: SqliteStore, session: SessionRow) -> None:
    lease = await store.try_acquire_lease(session.session_key, _other(1), ttl=0.05)
    assert lease is not None
    await asyncio.sleep(0.08)
    with pytest.raises(LeaseLost, match="expired"):
        await store.append_messages(session.id, [Message(role="user", content="x")], fence=lease)
    refreshed = await store.refresh_lease(lease, ttl=30)  # nobody took it: still ours
    assert refreshed.expires_at > time.time() + 20
    await store.append_messages(session.id, [Message(role="user", content="y")], fence=lease)
    assert [m.content for m in await store.get_messages(session.id)] == ["y"]


async def test_a_lease_of_another_key_cannot_fence(store: SqliteStore, session: SessionRow) -> None:
    other = await store.try_acquire_lease("some:other:key", _other(1), ttl=30)
    assert other is not None
    with pytest.raises(PersistenceError, match="own key"):
        await store.append_messages(session.id, [Message(role="user", content="x")], fence=other)


async def test_a_revoked_lease_writes_nothing_and_frees_the_key(store: SqliteStore, session: SessionRow) -> None:
    lease = await store.try_acquire_lease(session.session_key, _other(1), ttl=30)
    assert lease is not None
    store.revoke_lease(lease)
    with pytest.raises(LeaseLost, match="revoked"):
        await store.append_messages(session.id, [Message(role="user", content="x")], fence=lease)
    assert await store.get_messages(session.id) == []
    taker = await store.try_acquire_lease(session.session_key, _other(2), ttl=30)
    assert taker is not None and taker.generation == 2


async def test_an_owner_whose_process_is_gone_is_reclaimed_at_once(store: SqliteStore) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    gone = f"{HOST}:{proc.pid}:{12345}"
    assert not owner_alive(gone)
    assert await store.try_acquire_lease("k", gone, ttl=300) is not None
    taken = await store.try_acquire_lease("k", current_owner(), ttl=300)
    assert taken is not None and taken.generation == 2


async def test_compression_lock(store: SqliteStore) -> None:
    assert await store.try_lock_compression("s", _other(1), ttl=30)
    assert not await store.try_lock_compression("s", _other(2), ttl=30)
    assert await store.try_lock_compression("s", _other(1), ttl=30)  # the holder may extend
    await store.unlock_compression("s", _other(2))  # not the holder: nothing happens
    assert not await store.try_lock_compression("s", _other(2), ttl=30)
    await store.unlock_compression("s", _other(1))
    assert await store.try_lock_compression("s", _other(2), ttl=0.05)
    await asyncio.sleep(0.08)
    assert await store.try_lock_compression("s", _other(1), ttl=30)  # expired


# --------------------------------------------------------------------------- owner identity


def test_current_owner_names_this_process() -> None:
    owner = parse_owner(current_owner())
    assert owner is not None and owner.pid == os.getpid()
    assert owner.start == (process_start_time(os.getpid()) or 0)
    assert owner_alive(current_owner())
    assert owner_alive(current_owner() + ":turn-7")  # a tag after the third ':' is ignored


def test_liveness_is_false_only_when_provable() -> None:
    assert owner_alive("other-host:1:1")  # another machine: cannot know
    assert owner_alive("not an owner id")
    me = parse_owner(current_owner())
    assert me is not None
    if me.start:  # same pid, different start time: an earlier process that had our pid
        assert not owner_alive(f"{me.host}:{me.pid}:{me.start + 1}")
    parent = os.getppid()
    start = process_start_time(parent)
    if start:
        assert owner_alive(f"{me.host}:{parent}:{start}")
        assert not owner_alive(f"{me.host}:{parent}:{start + 1}")  # pid reused by another process


# --------------------------------------------------------------------------- several processes

WORKER = os.path.join(os.path.dirname(__file__), "_store_worker.py")


@pytest.mark.slow
async def test_a_sigkilled_owner_is_reclaimed_at_once_and_its_admission_reconciled(store: SqliteStore) -> None:
    proc = subprocess.Popen([sys.executable, WORKER, "hold", str(store.path), "cli:killed"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = await asyncio.to_thread(proc.stdout.readline)  # type: ignore[union-attr]
        assert line.startswith("ready"), line
        admission_id = line.split()[1]
        assert await store.try_acquire_lease("cli:killed", current_owner(), ttl=300) is None  # alive: held
    finally:
        proc.kill()
        proc.wait()
    started = time.monotonic()
    lease = await store.try_acquire_lease("cli:killed", current_owner(), ttl=300)
    assert lease is not None and lease.generation == 2
    assert time.monotonic() - started < 5  # not after the 300 s TTL
    unknown = await store.stale_admissions(owner_alive)
    assert [a.id for a in unknown] == [admission_id] and unknown[0].status == "unknown"


@pytest.mark.slow
async def test_two_processes_never_hold_the_lease_together(store: SqliteStore) -> None:
    await store.create_session(SessionRow(id="shared", session_key="cli:shared"))
    procs = [
        subprocess.Popen([sys.executable, WORKER, "contend", str(store.path), "cli:shared", name, "3", "0.15"])
        for name in ("A", "B")
    ]
    codes = [await asyncio.to_thread(p.wait, 60) for p in procs]
    assert codes == [0, 0]
    contents = [m.content for m in await store.get_messages("shared")]
    assert len(contents) == 12
    # every enter is directly followed by the same worker's exit: the holds never overlapped
    pairs = [(contents[i], contents[i + 1]) for i in range(0, len(contents), 2)]
    assert all(enter.endswith("-enter") and leave == enter.replace("enter", "exit") for enter, leave in pairs)
    assert {enter[0] for enter, _ in pairs} == {"A", "B"}  # the waiter got the lease after release
    final = await store.try_acquire_lease("cli:shared", current_owner(), ttl=30)
    assert final is not None and final.generation == 7  # 6 holds, all released
