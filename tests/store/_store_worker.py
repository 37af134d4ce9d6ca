"""Child process for the multi-process store tests (run as a script, not collected).

Modes:
  contend DB KEY NAME ROUNDS HOLD  – take the lease ROUNDS times; inside, append NAME-enter,
                                     hold HOLD s, append NAME-exit (fenced writes).
  hold DB KEY                      – admit + start an admission, take the lease, print
                                     "ready <admission id>", then sleep until killed.
"""

from __future__ import annotations

import asyncio
import sys
import time

from talaria import Message
from talaria.store import LeaseKeeper, SqliteStore, current_owner


async def contend(db: str, key: str, name: str, rounds: int, hold: float) -> None:
    async with SqliteStore(db) as store:
        session = await store.current_session(key)
        assert session is not None
        for _ in range(rounds):
            async with LeaseKeeper(store, key, current_owner(), ttl=10, refresh_every=1,
                                   wait_max=30, poll_min=0.01, poll_max=0.05) as lease:
                await store.append_messages(session.id, [Message(role="user", content=f"{name}-enter")], fence=lease)
                await asyncio.sleep(hold)
                await store.append_messages(session.id, [Message(role="user", content=f"{name}-exit")], fence=lease)
            await asyncio.sleep(0.01)


async def hold(db: str, key: str) -> None:
    async with SqliteStore(db) as store:
        admission, _ = await store.admit("tester", key, "req-killed", {"text": "hi"})
        await store.start_admission(admission.id, current_owner())
        lease = await store.try_acquire_lease(key, current_owner(), 300)
        assert lease is not None
        print("ready", admission.id, lease.generation, flush=True)
        while True:
            time.sleep(1)


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    if mode == "contend":
        asyncio.run(contend(args[0], args[1], args[2], int(args[3]), float(args[4])))
    elif mode == "hold":
        asyncio.run(hold(args[0], args[1]))
    else:
        raise SystemExit(f"unknown mode {mode}")
