"""SIGTERM and SIGHUP end a terminal command the way Ctrl-C does.

Contract (``talaria run`` and ``talaria chat``): while a turn's body runs, a signal
interrupts it through ``Runtime.interrupt`` — the turn ends ``interrupted``, every tool call
keeps its paired result, running tool processes are killed and reaped. Outside a turn's body
(waiting for the session lease, reading the next prompt, running a slash command) the
awaited work is cancelled instead. Either way the command then leaves its ``async with
runtime`` block (the store is closed) and exits with the ``interrupted`` exit code (5).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["TERMINATING", "Stopper"]

T = TypeVar("T")

#: Signals that end a terminal command like Ctrl-C (SIGINT is handled by each command).
TERMINATING: tuple[signal.Signals, ...] = tuple(
    sig for sig in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if sig is not None
)


class Stopper:
    """Routes stop signals to the right target: the running turn, or the awaited work.

    Pass events through :meth:`watch` (it learns when a turn's body runs), set
    :attr:`runtime`, install handlers with :meth:`installed`, and await work with
    :meth:`run`. :attr:`signal` is the first signal received (None until then).
    """

    def __init__(self) -> None:
        self.signal: signal.Signals | None = None
        self.runtime: Any = None
        self.in_turn = False
        self._work: asyncio.Future[Any] | None = None

    @property
    def name(self) -> str:
        return self.signal.name if self.signal is not None else ""

    def watch(self, sink: Callable[[Any], None]) -> Callable[[Any], None]:
        """Wrap an ``emit`` sink so ``turn_started``/``turn_ended`` events update :attr:`in_turn`."""
        def emit(event: Any) -> None:
            if event.kind == "turn_started":
                self.in_turn = True
            elif event.kind == "turn_ended":
                self.in_turn = False
            sink(event)
        return emit

    @contextmanager
    def installed(self, signals: Iterable[signal.Signals] = TERMINATING) -> Iterator[Stopper]:
        """Handle ``signals`` on the running loop for the duration of the block."""
        loop = asyncio.get_running_loop()
        added = []
        for sig in signals:
            try:
                loop.add_signal_handler(sig, self.stop, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals
                continue
            added.append(sig)
        try:
            yield self
        finally:
            for sig in added:
                loop.remove_signal_handler(sig)

    def stop(self, sig: signal.Signals) -> None:
        """Handle one signal (see the module docstring)."""
        if self.signal is None:
            self.signal = signal.Signals(sig)
        if self.in_turn and self.runtime is not None:
            self.runtime.interrupt()
        elif self._work is not None and not self._work.done():
            self._work.cancel()

    async def run(self, work: Awaitable[T]) -> T:
        """Await ``work``; a signal outside a turn body cancels it (``CancelledError`` here).

        Use :meth:`stopped_by_signal` in the ``except asyncio.CancelledError`` to tell a
        signal from a cancellation of the caller itself.
        """
        self._work = asyncio.ensure_future(work)
        try:
            return await self._work
        finally:
            self._work = None
            self.in_turn = False

    def stopped_by_signal(self) -> bool:
        """True when a signal (not a cancellation of the current task) stopped :meth:`run`."""
        task = asyncio.current_task()
        return self.signal is not None and (task is None or task.cancelling() == 0)
