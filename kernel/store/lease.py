"""``LeaseKeeper``: hold a session key's lease for the length of a turn.

::

    async with LeaseKeeper(store, key, current_owner(), task=asyncio.current_task()) as lease:
        ...  # fenced writes: store.append_messages(sid, msgs, fence=lease)

``async with`` yields the keeper itself, which is *lease-like*: it has the held lease's
``session_key``, ``owner``, ``generation``, ``expires_at`` and ``fence_key``, so it can be
passed as ``fence=`` directly, and it also carries ``lost``, ``watchdog_fired``, ``lease``
and ``task`` (which may be assigned after entry, e.g. to a turn body task).

On entry it waits for the lease (polling with backoff, at most ``wait_max`` seconds, then
:class:`LeaseWaitTimeout` naming the holder). While inside, a background task refreshes the
lease every ``refresh_every`` seconds. If a refresh fails (taken over, store error) the keeper
loses the lease: ``keeper.lost`` is set, the lease is revoked in the store (no more fenced
writes land) and ``task`` is cancelled; ``async with`` then raises :class:`LeaseInterrupted`
(a :class:`~talaria.errors.LeaseLost`) with ``reason = "lease_lost"``.

A liveness watchdog — one daemon thread per process watching every active keeper, so it
runs while the event loop is blocked — checks that refreshes keep happening. When none succeeded for ``watchdog_after`` seconds (default:
half-way between the refresh period and the TTL), it sets ``keeper.watchdog_fired``, revokes
the lease (also expiring the row, so another process can take over) and, once the loop runs
again, interrupts the turn the same way with ``reason = "watchdog"``.

On exit the lease is released (a no-op when another owner has taken it over) — unless
``release_on_exit`` was set False by a caller that frees it itself in a combined write
(``store.end_turn``). A keeper can also be given a lease its caller already took
(``lease=``, e.g. from ``store.begin_turn``); then entry does not wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Any

from ..errors import LeaseLost, StoreError
from .base import Lease, SessionStore

__all__ = ["LeaseInterrupted", "LeaseKeeper", "LeaseWaitTimeout"]

log = logging.getLogger("talaria.store")


class LeaseWaitTimeout(StoreError, TimeoutError):
    """The lease stayed taken for ``wait_max`` seconds. ``holder`` is who has it."""

    def __init__(self, message: str, *, session_key: str, holder: Lease | None) -> None:
        super().__init__(message)
        self.session_key = session_key
        self.holder = holder


class LeaseInterrupted(LeaseLost):
    """The keeper lost its lease during the turn; ``reason`` is the turn's end reason:
    ``lease_lost`` (refresh failed / taken over) or ``watchdog`` (event loop stalled)."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class LeaseKeeper:
    """Acquire, refresh, watch and release one session key's lease (see module docs).

    :param task: the task to cancel when the lease is lost (usually
        ``asyncio.current_task()``); None only flags ``lost`` and revokes the lease.
    :param poll_min: / :param poll_max: first and largest wait between acquisition attempts.
    :param watchdog_after: seconds without a successful refresh before the watchdog fires.
    :param watchdog_interval: how often the watchdog thread looks.
    """

    def __init__(
        self,
        store: SessionStore,
        session_key: str,
        owner: str,
        *,
        ttl: float = 300.0,
        refresh_every: float = 60.0,
        wait_max: float = 1800.0,
        task: asyncio.Task[Any] | None = None,
        poll_min: float = 0.05,
        poll_max: float = 2.0,
        watchdog_after: float | None = None,
        watchdog_interval: float | None = None,
        lease: Lease | None = None,
    ) -> None:
        if not 0 < refresh_every < ttl:
            raise ValueError(f"refresh_every ({refresh_every}) must be > 0 and below ttl ({ttl})")
        self.store = store
        self.session_key = session_key
        self.owner = owner
        self.ttl = ttl
        self.refresh_every = refresh_every
        self.wait_max = wait_max
        self.task = task
        self.poll_min = poll_min
        self.poll_max = poll_max
        self.watchdog_after = watchdog_after or (ttl + refresh_every) / 2
        self.watchdog_interval = watchdog_interval or min(refresh_every, self.watchdog_after) / 4
        #: Set when the lease was lost (refresh failed, taken over, or watchdog).
        self.lost = asyncio.Event()
        #: ``lease_lost`` or ``watchdog`` once lost; ``lost_detail`` says why.
        self.lost_reason: str | None = None
        self.lost_detail: str = ""
        self._fired = threading.Event()
        self._lease: Lease | None = None
        self._given = lease
        #: Whether leaving the ``async with`` releases the lease (see module docs).
        self.release_on_exit = True
        self._beat = time.monotonic()
        self._refresher: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancelled = False
        self._orphans: set[asyncio.Future[None]] = set()

    @property
    def lease(self) -> Lease | None:
        """The lease as last refreshed (None before entry)."""
        return self._lease

    def _held(self) -> Lease:
        if self._lease is None:
            raise RuntimeError("the lease keeper holds no lease yet: use `async with keeper`")
        return self._lease

    @property
    def generation(self) -> int:
        """Generation of the held lease (lease-like: the keeper can be a write fence)."""
        return self._held().generation

    @property
    def expires_at(self) -> float:
        return self._held().expires_at

    @property
    def host(self) -> str:
        return self._held().host

    @property
    def pid(self) -> int:
        return self._held().pid

    @property
    def fence_key(self) -> tuple[str, str, int]:
        return self._held().fence_key

    @property
    def watchdog_fired(self) -> bool:
        """True once the watchdog saw the refresher stall."""
        return self._fired.is_set()

    # ------------------------------------------------------------------ acquire

    async def acquire(self) -> Lease:
        """Wait for the lease (no refresher/watchdog); raises LeaseWaitTimeout."""
        deadline = time.monotonic() + self.wait_max
        delay = self.poll_min
        while True:
            attempt = asyncio.ensure_future(
                self.store.try_acquire_lease(self.session_key, self.owner, self.ttl)
            )
            try:
                lease = await asyncio.shield(attempt)
            except asyncio.CancelledError:
                # cancelled while the row may already be ours: give it back, do not leak it
                attempt.add_done_callback(self._release_orphan)
                raise
            if lease is not None:
                return lease
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                holder = await self.store.get_lease(self.session_key)
                who = f"{holder.owner} (generation {holder.generation})" if holder else "nobody"
                raise LeaseWaitTimeout(
                    f"session {self.session_key!r} stayed busy for {self.wait_max:.0f} s: its "
                    f"lease is held by {who}. Wait for that turn to finish, or stop that "
                    "process; a dead process's lease is reclaimed at once.",
                    session_key=self.session_key,
                    holder=holder,
                )
            pause = min(delay, remaining)
            wait_for_release = getattr(self.store, "wait_for_release", None)
            if wait_for_release is not None:  # woken at once by a release in this process
                await wait_for_release(self.session_key, pause)
            else:
                await asyncio.sleep(pause)
            delay = min(delay * 1.5, self.poll_max)

    def _release_orphan(self, attempt: asyncio.Future[Lease | None]) -> None:
        if attempt.cancelled() or attempt.exception() is not None or attempt.result() is None:
            return
        task = asyncio.ensure_future(self.store.release_lease(attempt.result()))  # type: ignore[arg-type]
        self._orphans.add(task)
        task.add_done_callback(self._orphans.discard)

    async def __aenter__(self) -> LeaseKeeper:
        lease, self._given = self._given or await self.acquire(), None
        self._lease = lease
        self._loop = asyncio.get_running_loop()
        self._beat = time.monotonic()
        self._refresher = asyncio.create_task(
            self._refresh_loop(), name=f"lease-refresh:{self.session_key}"
        )
        _WATCHDOG.watch(self)
        return self

    # ------------------------------------------------------------------ keep

    async def _refresh_loop(self) -> None:
        assert self._lease is not None
        while True:
            await asyncio.sleep(self.refresh_every)
            if self._fired.is_set():
                self._lose("watchdog", "the event loop stalled; the watchdog revoked the lease")
                return
            try:
                self._lease = await self.store.refresh_lease(self._lease, self.ttl)
            except Exception as exc:  # LeaseLost or a store failure: the lease is gone
                reason = "watchdog" if self._fired.is_set() else "lease_lost"
                self._lose(reason, f"lease refresh failed: {exc}")
                return
            self._beat = time.monotonic()

    def _check_stall(self) -> bool:
        """On the watchdog thread: fire when no refresh succeeded for ``watchdog_after`` s.
        True once fired (the keeper needs no more watching)."""
        stalled = time.monotonic() - self._beat
        if stalled <= self.watchdog_after:
            return False
        self._fired.set()
        detail = (
            f"no lease refresh for {stalled:.2f} s (limit {self.watchdog_after:.2f} s): "
            "the event loop was blocked"
        )
        log.warning("lease watchdog fired for %r: %s", self.session_key, detail)
        if self._lease is not None:
            self.store.revoke_lease(self._lease)
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed
                loop.call_soon_threadsafe(self._lose, "watchdog", detail)
        return True

    def _lose(self, reason: str, detail: str) -> None:
        """On the loop: mark lost, revoke the lease, interrupt the turn (first call wins)."""
        if self.lost.is_set():
            return
        self.lost_reason, self.lost_detail = reason, detail
        self.lost.set()
        if self._lease is not None:
            self.store.revoke_lease(self._lease, expire_row=False)
        task = self.task
        if task is not None and not task.done() and task is not asyncio.current_task():
            self._cancelled = True
            task.cancel(f"lease of {self.session_key!r} lost: {detail}")

    # ------------------------------------------------------------------ release

    async def _shutdown(self) -> None:
        _WATCHDOG.forget(self)
        if self._refresher is not None:
            self._refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._refresher
        if self._lease is not None and self.release_on_exit:  # fenced by generation: a no-op if taken over
            try:
                await self.store.release_lease(self._lease)
            except Exception as exc:  # it expires at the end of its TTL anyway
                log.warning("could not release the lease of %r: %s", self.session_key, exc)

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        me = asyncio.current_task()
        shutdown = asyncio.ensure_future(self._shutdown())
        try:
            await asyncio.shield(shutdown)
        except asyncio.CancelledError:
            if not (self._cancelled and self.task is me):
                raise  # cancelled from outside: the shutdown goes on in the background
            await shutdown  # our own interruption arrived late; finish cleaning up
        interrupted = False
        if self._cancelled and self.task is me and me is not None:
            self._cancelled = False
            if me.uncancel() > 0:
                return False  # also cancelled by someone else: let that propagate
            interrupted = True
        if self.lost.is_set() and exc_type is not None:
            ours = interrupted and issubclass(exc_type, asyncio.CancelledError)
            fenced = issubclass(exc_type, LeaseLost) and not issubclass(exc_type, LeaseInterrupted)
            if ours or fenced:
                raise LeaseInterrupted(
                    f"turn on {self.session_key!r} interrupted: {self.lost_detail}",
                    reason=self.lost_reason or "lease_lost",
                ) from exc
        return False


class _Watchdog:
    """The one watchdog thread of the process; it sleeps while no keeper is active."""

    def __init__(self) -> None:
        self._keepers: set[LeaseKeeper] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, keeper: LeaseKeeper) -> None:
        with self._cond:
            self._keepers.add(keeper)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="talaria-lease-watchdog", daemon=True)
                self._thread.start()
            self._cond.notify()

    def forget(self, keeper: LeaseKeeper) -> None:
        with self._cond:
            self._keepers.discard(keeper)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._keepers:
                    self._cond.wait()
                self._cond.wait(min(k.watchdog_interval for k in self._keepers))
                keepers = list(self._keepers)
            fired = [k for k in keepers if k._check_stall()]
            if fired:
                with self._cond:
                    self._keepers.difference_update(fired)


_WATCHDOG = _Watchdog()
