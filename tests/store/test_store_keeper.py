"""LeaseKeeper: waits for the lease, refreshes it, interrupts the turn when it is lost or the
event loop stalls, releases it on exit."""

from __future__ import annotations

import asyncio
import time

import pytest

from talaria import Message
from talaria.errors import LeaseLost
from talaria.store import LeaseInterrupted, LeaseKeeper, LeaseWaitTimeout, SessionRow, SqliteStore

ME = "elsewhere:1:1"  # owners on another host are always "alive": no reclaim by liveness
RIVAL = "elsewhere:2:2"


async def test_holds_refreshes_past_the_ttl_and_releases(store: SqliteStore, session: SessionRow) -> None:
    async with LeaseKeeper(store, session.session_key, ME, ttl=0.8, refresh_every=0.05, watchdog_after=5) as lease:
        assert lease.generation == 1 and lease.owner == ME
        await asyncio.sleep(1.6)  # twice the TTL: only the refresher keeps it ours
        assert await store.try_acquire_lease(session.session_key, RIVAL, ttl=1) is None
        await store.append_messages(session.id, [Message(role="user", content="still mine")], fence=lease)
        assert not lease.lost.is_set() and not lease.watchdog_fired
    assert await store.get_lease(session.session_key) is None  # released
    assert [m.content for m in await store.get_messages(session.id)] == ["still mine"]


async def test_waits_for_the_holder_to_release(store: SqliteStore) -> None:
    held = await store.try_acquire_lease("k", RIVAL, ttl=30)
    assert held is not None

    async def release_soon() -> None:
        await asyncio.sleep(0.2)
        await store.release_lease(held)

    releaser = asyncio.create_task(release_soon())
    started = time.monotonic()
    async with LeaseKeeper(store, "k", ME, ttl=5, refresh_every=1, wait_max=5, poll_max=0.05) as lease:
        waited = time.monotonic() - started
        assert lease.generation == 2
    await releaser
    assert 0.15 < waited < 2


async def test_gives_up_after_wait_max_naming_the_holder(store: SqliteStore) -> None:
    assert await store.try_acquire_lease("k", RIVAL, ttl=30) is not None
    with pytest.raises(LeaseWaitTimeout) as info:
        async with LeaseKeeper(store, "k", ME, ttl=5, refresh_every=1, wait_max=0.2, poll_max=0.05):
            pytest.fail("must not enter")
    assert isinstance(info.value, TimeoutError)
    assert RIVAL in str(info.value) and info.value.holder is not None and info.value.holder.owner == RIVAL


async def test_a_taken_over_lease_interrupts_the_turn(store: SqliteStore, session: SessionRow) -> None:
    key = session.session_key
    keeper = LeaseKeeper(store, key, ME, ttl=3, refresh_every=0.05, task=asyncio.current_task())
    with pytest.raises(LeaseInterrupted) as info:
        async with keeper as lease:
            # someone else takes it over (e.g. after wrongly judging us dead)
            store.revoke_lease(lease.lease)  # type: ignore[arg-type]
            await asyncio.sleep(5)  # the interruption cancels this
            pytest.fail("the turn was not interrupted")
    assert info.value.reason == "lease_lost"
    assert isinstance(info.value, LeaseLost)
    assert keeper.lost.is_set() and keeper.lost_reason == "lease_lost" and not keeper.watchdog_fired
    with pytest.raises(LeaseLost):
        await store.append_messages(session.id, [Message(role="user", content="late")], fence=keeper)
    assert await store.get_messages(session.id) == []
    assert not asyncio.current_task().cancelling()  # type: ignore[union-attr]


async def test_takeover_by_another_owner_is_noticed_at_the_next_refresh(store: SqliteStore, session: SessionRow) -> None:
    key = session.session_key
    keeper = LeaseKeeper(store, key, ME, ttl=3, refresh_every=0.05, task=asyncio.current_task())
    with pytest.raises(LeaseInterrupted):
        async with keeper as lease:
            # expire the row behind the keeper's back and let a rival take it
            import sqlite3

            raw = sqlite3.connect(store.path)
            raw.execute("UPDATE turn_leases SET expires_at = 0")
            raw.commit()
            raw.close()
            rival = await store.try_acquire_lease(key, RIVAL, ttl=30)
            assert rival is not None and rival.generation == lease.generation + 1
            await asyncio.sleep(5)
    assert "generation 2" in keeper.lost_detail
    assert (await store.get_lease(key)).owner == RIVAL  # type: ignore[union-attr]  # exit did not release the rival's


async def test_watchdog_fires_when_the_event_loop_is_blocked(store: SqliteStore, session: SessionRow) -> None:
    key = session.session_key
    keeper = LeaseKeeper(store, key, ME, ttl=0.6, refresh_every=0.1, task=asyncio.current_task())
    with pytest.raises(LeaseInterrupted) as info:
        async with keeper as lease:
            time.sleep(1.5)  # a plugin blocking the loop longer than the TTL allows
            assert keeper.watchdog_fired  # the thread noticed while the loop was stuck
            await store.append_messages(session.id, [Message(role="assistant", content="after stall")], fence=lease)
            pytest.fail("the write must not land")
    assert info.value.reason == "watchdog"
    assert keeper.lost_reason == "watchdog"
    assert await store.get_messages(session.id) == []
    # the watchdog expired the row: another process may take over right away
    rival = await store.try_acquire_lease(key, RIVAL, ttl=30)
    assert rival is not None


async def test_watchdog_without_a_task_still_blocks_writes(store: SqliteStore, session: SessionRow) -> None:
    keeper = LeaseKeeper(store, session.session_key, ME, ttl=0.4, refresh_every=0.1)
    with pytest.raises(LeaseInterrupted):
        async with keeper as lease:
            time.sleep(1.0)
            await asyncio.sleep(0)  # let the watchdog's callback run
            assert keeper.lost.is_set() and keeper.watchdog_fired
            await store.append_messages(session.id, [Message(role="user", content="x")], fence=lease)
    assert await store.get_messages(session.id) == []


async def test_keeper_may_guard_another_task(store: SqliteStore, session: SessionRow) -> None:
    """The engine runs the turn body in its own task and hands it to the keeper after entry."""
    async with LeaseKeeper(store, session.session_key, ME, ttl=3, refresh_every=0.05) as keeper:

        async def body() -> str:
            try:
                await asyncio.sleep(5)
                return "completed"
            except asyncio.CancelledError:
                return keeper.lost_reason or "interrupted"

        task = asyncio.create_task(body())
        keeper.task = task
        await asyncio.sleep(0.01)
        store.revoke_lease(keeper.lease)  # type: ignore[arg-type]
        assert await task == "lease_lost"
    assert not asyncio.current_task().cancelling()  # type: ignore[union-attr]


async def test_outside_cancellation_still_propagates_and_releases(store: SqliteStore) -> None:
    entered = asyncio.Event()

    async def turn() -> None:
        async with LeaseKeeper(store, "k", ME, ttl=1, refresh_every=0.1, task=asyncio.current_task()):
            entered.set()
            await asyncio.sleep(5)

    task = asyncio.create_task(turn())
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.05)
    assert await store.get_lease("k") is None


def test_refresh_must_be_shorter_than_ttl(store: SqliteStore) -> None:
    with pytest.raises(ValueError, match="refresh_every"):
        LeaseKeeper(store, "k", ME, ttl=10, refresh_every=10)


async def test_a_waiter_in_the_same_process_gets_the_lease_as_soon_as_it_is_released(store: SqliteStore) -> None:
    order: list[str] = []

    async def turn(name: str, hold: float) -> None:
        async with LeaseKeeper(store, "k", f"elsewhere:{name}:1", ttl=5, refresh_every=1, poll_min=2, poll_max=2):
            order.append(f"{name}-in")
            await asyncio.sleep(hold)
            order.append(f"{name}-out")

    first = asyncio.create_task(turn("1", 0.1))
    await asyncio.sleep(0.02)
    started = time.monotonic()
    await asyncio.gather(first, turn("2", 0))
    assert order == ["1-in", "1-out", "2-in", "2-out"]
    assert time.monotonic() - started < 1.5  # not the 2 s poll interval


async def test_cancelling_a_waiting_turn_does_not_leak_the_lease(store: SqliteStore) -> None:
    for delay in (0, 0.001, 0.003, 0.01):
        keeper = LeaseKeeper(store, "k", ME, ttl=30, refresh_every=1)
        task = asyncio.create_task(keeper.acquire())
        await asyncio.sleep(delay)
        task.cancel()
        try:
            lease = await task
        except asyncio.CancelledError:
            for _ in range(100):  # the orphaned acquisition is given back soon after
                if await store.get_lease("k") is None:
                    break
                await asyncio.sleep(0.02)
            assert await store.get_lease("k") is None
        else:
            await store.release_lease(lease)
