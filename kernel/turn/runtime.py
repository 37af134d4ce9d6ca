"""The runtime: runs turns as transactions over the session store.

``submit → admission → lease → context → [preflight compression] → model call
→ tool round → … → finalize`` (DESIGN §4). One :class:`Runtime` serves one process; it
owns the store connection, the tool box, API-mode instances and per-session tool state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from .._values import value_type
from ..errors import CompressionError, ConfigError, LeaseLost, PersistenceError, ProviderError
from ..store.owner import current_owner, owner_alive
from ..tools import ToolBox
from ..types import (
    ApprovalRequest,
    Event,
    Message,
    Services,
    ToolCall,
    ToolContext,
    TurnRecord,
    new_id,
)
from .compaction import Compactor
from .models import ModelLayer
from .sessions import SessionManager
from .state import TurnState
from .tool_round import ToolRound
from .transcript import UNKNOWN_OUTCOME, last_turn_start, unpaired_calls

__all__ = ["Runtime", "TurnOptions"]

log = logging.getLogger("talaria.turn")
_STATE_CACHE = 256  # per-session tool state kept in memory (bounded)


@value_type
class TurnOptions:
    """Per-runtime choices of the host (channel)."""

    channel: str = "api"
    model: str | None = None
    toolsets: Sequence[str] | None = None
    yolo: bool = False
    max_iterations: int | None = None
    max_api_calls: int | None = None
    caller_system: str | None = None
    #: Start tool sources (MCP servers) when the runtime opens; False for hosts that run
    #: no turns (``talaria sessions compress``) — a later turn still starts them.
    start_tool_sources: bool = True


class _Interrupt(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Runtime:
    """Runs turns for one process. Use ``async with Runtime(kernel) as rt:``.

    :param emit: receives every :class:`Event` (a channel renders them).
    :param ask: the channel's approver, or None (then approval means deny).
    """

    def __init__(
        self,
        kernel: Any,
        *,
        options: TurnOptions | None = None,
        emit: Callable[[Event], None] | None = None,
        ask: Callable[[ApprovalRequest], Any] | None = None,
        elicit: Callable[..., Any] | None = None,
        store: Any = None,
    ) -> None:
        self.kernel = kernel
        self.options = options or TurnOptions()
        self._emit = emit or (lambda event: None)
        self.ask = ask
        self.elicit = elicit
        self.config = kernel.config
        turn_cfg = self.config.get("turn", {})
        self.max_iterations = self.options.max_iterations or int(turn_cfg.get("max_iterations", 50))
        self.max_api_calls = self.options.max_api_calls or int(turn_cfg.get("max_api_calls", 100))
        self.lease_ttl = float(turn_cfg.get("lease_ttl", 300))
        self.lease_refresh = float(turn_cfg.get("lease_refresh", 60))
        self.lease_wait = float(turn_cfg.get("lease_wait", 1800))
        self.owner = current_owner()
        self._store = store
        self._own_store = store is None
        self._tool_state: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._current: asyncio.Task[Any] | None = None
        self._interrupt_reason: str | None = None
        self.models = ModelLayer(self)
        self.sessions: SessionManager | None = None
        self.compactor: Compactor | None = None
        self.toolbox: ToolBox | None = None
        self.services: Services | None = None
        self._sources_started = False
        self._sources_awaited = False
        self._source_tasks: list[asyncio.Task[Any]] = []

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> Runtime:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def store(self) -> Any:
        return self._store

    async def open(self) -> None:
        """Open the store, reconcile crashed admissions, start tool sources in the background."""
        if self._store is None:
            from ..store.sqlite import SqliteStore

            self.kernel.home.mkdir(parents=True, exist_ok=True)
            self._store = SqliteStore(self.kernel.state_db)
            await self._store.open()
        for admission in await self._store.stale_admissions(owner_alive):
            await self._store.resolve_unknown(admission.id, "interrupted")
            log.info("admission %s was started by a process that is gone; reconciled as interrupted", admission.id)
        self.services = Services(
            config=self.config,
            home=self.kernel.home,
            workspace=self.kernel.workspace,
            emit=self.emit,
            complete=self.models.complete_for_plugin,
            elicit=self.elicit,
            store=self._store,
        )
        self.sessions = SessionManager(self)
        await self.sessions.start_memory()
        self.toolbox = ToolBox(
            self.kernel.registries, self.config, selection=self.options.toolsets, extra_tools=self.sessions.memory_tools()
        )
        self.compactor = Compactor(self)
        if self.options.start_tool_sources:
            self._start_sources()

    def _start_sources(self) -> None:
        if self._sources_started:
            return
        self._sources_started = True
        for name, source in self.kernel.registries.tool_sources.items():
            task = asyncio.get_running_loop().create_task(self._start_source(name, source))
            self._source_tasks.append(task)

    async def _start_source(self, name: str, source: Any) -> None:
        try:
            await source.start(self.services)
        except Exception as exc:
            self.emit(Event(kind="warning", data={"message": f"tool source '{name}' failed to start: {exc}"}))

    async def _sources_ready(self) -> None:
        """Bounded wait for tool sources, once per runtime (later turns use what is connected)."""
        if self._sources_awaited:
            return
        self._start_sources()
        self._sources_awaited = True
        wait = float(self.config.get("mcp", {}).get("startup_wait", 5.0))
        for _, source in self.kernel.registries.tool_sources.items():
            ready = getattr(source, "ready", None)
            if ready is None:
                continue
            try:
                async with asyncio.timeout(wait + 1):
                    await ready(wait)
            except Exception:
                continue

    async def aclose(self) -> None:
        for _, source in self.kernel.registries.tool_sources.items():
            close = getattr(source, "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception as exc:
                    log.debug("tool source close failed: %s", exc)
        for task in self._source_tasks:
            task.cancel()
        if self.sessions is not None:
            await self.sessions.stop_memory()
        await self.models.aclose()
        if self._own_store and self._store is not None:
            await self._store.aclose()
            self._store = None

    def emit(self, event: Event) -> None:
        try:
            self._emit(event)
        except Exception as exc:  # a renderer's bug must not break the turn
            log.debug("event sink failed: %s", exc)

    def interrupt(self, reason: str = "interrupted") -> None:
        """Interrupt the running turn (Ctrl-C); it ends ``interrupted`` with a valid transcript."""
        self._interrupt_reason = reason
        if self._current is not None and not self._current.done():
            self._current.cancel()

    async def compress_session(self, session_key: str, *, focus: str | None = None) -> Any:
        """Compress ``session_key``'s current session now; returns a ``CompressionReport``.

        For ``/compress [focus]`` and ``talaria sessions compress ID``: takes the session's
        lease (never races a turn), then runs the same path as the preflight gate.
        """
        from .manual import compress_session

        return await compress_session(self, session_key, focus=focus)

    def tool_state(self, session_id: str) -> dict[str, Any]:
        state = self._tool_state.get(session_id)
        if state is None:
            state = self._tool_state[session_id] = {}
            while len(self._tool_state) > _STATE_CACHE:
                self._tool_state.popitem(last=False)
        else:
            self._tool_state.move_to_end(session_id)
        return state

    # ------------------------------------------------------------------ submit

    async def run_turn(
        self,
        text: str,
        *,
        session_key: str,
        request_id: str | None = None,
        principal: str = "local",
        new_session: bool = False,
    ) -> TurnRecord:
        """Admit ``text`` durably, then run it as one turn on ``session_key``.

        Resubmitting the same ``(principal, session_key, request_id)`` does not run again:
        the earlier turn's record is returned.
        """
        assert self._store is not None and self.sessions is not None, "use `async with Runtime(...)`"
        request_id = request_id or new_id("req_")
        payload = {"text": text, "new_session": new_session, "submitter": self.owner}
        # the common case in one write: admitted, first in line, lease taken, started
        admission, created, lease = await self._store.begin_turn(
            principal, session_key, request_id, payload, owner=self.owner, ttl=self.lease_ttl)
        if not created:
            return TurnRecord(turn_id=admission.id, session_id="", session_key=session_key,
                              end_reason=admission.end_reason or "completed", error="duplicate request; not run again",
                              user_text=text)
        keeper = self.lease_keeper(session_key, lease=lease)
        self._interrupt_reason = None
        if lease is None:  # queued behind another turn, or the lease is busy: wait our turn
            await self._wait_for_turn(admission)
            try:
                await keeper.__aenter__()
            except Exception as exc:  # the session stayed busy: record it, never leave it queued
                await self._store.start_admission(admission.id, self.owner)
                await self._store.finish_admission(admission.id, "lease_lost")
                return TurnRecord(turn_id=admission.id, session_id="", session_key=session_key,
                                  end_reason="lease_lost", error=str(exc), user_text=text)
        else:
            await keeper.__aenter__()
        record: TurnRecord | None = None
        try:
            if lease is None:
                await self._store.start_admission(admission.id, self.owner)
            body = asyncio.get_running_loop().create_task(self._turn(admission, text, keeper, new_session))
            keeper.task = body
            self._current = body
            try:
                record = await asyncio.shield(body)
            except asyncio.CancelledError:
                if not body.done():  # our caller was cancelled: stop the turn, then propagate
                    self.interrupt("interrupted")
                    await asyncio.wait({body})
                raise
            finally:
                self._current = None
        finally:
            keeper.release_on_exit = record is None  # else freed below, with the admission's end
            await keeper.__aexit__(None, None, None)
            if record is None:  # cancelled or failed before the body could answer: never leave it started
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.shield(self._store.finish_admission(admission.id, "interrupted"))
        await self._store.end_turn(admission.id, record.end_reason, keeper.lease)
        await self.kernel.hooks.notify("on_turn_end", turn=record)
        self.emit(Event(kind="turn_ended", session_id=record.session_id, turn_id=record.turn_id,
                        data={"end_reason": record.end_reason, "error": record.error, "text": record.final_text}))
        return record

    def lease_keeper(self, session_key: str, *, lease: Any = None) -> Any:
        """A :class:`~talaria.store.lease.LeaseKeeper` for ``session_key`` with this runtime's
        lease settings (``lease``: one already taken, e.g. by ``store.begin_turn``)."""
        from ..store.lease import LeaseKeeper

        return LeaseKeeper(self._store, session_key, self.owner, ttl=self.lease_ttl,
                           refresh_every=self.lease_refresh, wait_max=self.lease_wait, lease=lease)

    def bind_persist(self, state: TurnState, keeper: Any) -> None:
        """Give ``state`` its ``persist(messages)``: a fenced append to the state's session
        (with the usage of model calls not yet stored), then the in-memory transcript. A
        store failure other than a lost lease becomes :class:`PersistenceError`."""

        async def persist(messages: Sequence[Message]) -> None:
            try:
                await self._store.append_messages(state.session.id, messages, fence=keeper.lease,
                                                  usage=state.pending_usage)
            except LeaseLost:
                raise
            except Exception as exc:
                raise PersistenceError(str(exc)) from exc
            state.messages.extend(messages)
            state.pending_usage = []

        state.persist = persist

    async def _wait_for_turn(self, admission: Any) -> None:
        """Keep admission order: wait while an older queued admission on this key is pending."""
        while True:
            head = await self._store.next_admission(admission.session_key)
            if head is None or head.id == admission.id:
                return
            submitter = (head.payload or {}).get("submitter", "")
            if submitter and not owner_alive(submitter):
                await self._store.start_admission(head.id, self.owner)
                await self._store.finish_admission(head.id, "interrupted")
                continue
            await asyncio.sleep(0.05)

    # ------------------------------------------------------------------ the turn body

    async def _turn(self, admission: Any, text: str, keeper: Any, new_session: bool) -> TurnRecord:
        state = TurnState(turn_id=admission.id, key=admission.session_key, text=text)
        try:
            return await self._stages(state, keeper, new_session)
        finally:
            await self._flush_usage(state)

    async def _flush_usage(self, state: TurnState) -> None:
        """Model calls whose usage no later append carried (the turn ended first)."""
        if not state.pending_usage or state.session is None:
            return
        for provider, model, usage, cost in state.pending_usage:
            try:
                await self._store.record_usage(state.session.id, provider, model, usage, cost)
            except Exception as exc:  # usage is bookkeeping: never fail the turn's record on it
                log.warning("talaria: could not record usage of session %s: %s", state.session.id, exc)
        state.pending_usage = []

    async def _stages(self, state: TurnState, keeper: Any, new_session: bool) -> TurnRecord:
        assert self.sessions is not None and self.compactor is not None and self.toolbox is not None
        turn_id, key, text = state.turn_id, state.key, state.text
        self.bind_persist(state, keeper)
        try:
            state.chain = self.models.chain(self.options.model)
            await self.sessions.ensure(state, key, state.chain[0], new_session=new_session)
            self.emit(Event(kind="turn_started", session_id=state.session.id, turn_id=turn_id,
                            data={"model": state.chain[0].spec, "text": text}))
            await self._repair(state)
            recall = await self.sessions.recall(text)
            await state.persist([Message(role="user", content=text, meta={"recall": recall} if recall else {})])
            await self._sources_ready()
            return await self._loop(state)
        except asyncio.CancelledError:
            reason = keeper.lost_reason or self._interrupt_reason or "interrupted"
            return state.record(reason, error="turn interrupted" if reason == "interrupted" else reason)
        except LeaseLost as exc:
            return state.record("lease_lost", error=str(exc))
        except PersistenceError as exc:
            return state.record("persistence_failed", error=str(exc))
        except ProviderError as exc:
            return state.record("provider_error", error=str(exc))
        except ConfigError as exc:
            return state.record("provider_error", error=str(exc))
        except CompressionError as exc:
            return state.record("compression_failed", error=str(exc))
        except _Interrupt as exc:
            return state.record(exc.reason, error=str(exc))

    async def _repair(self, state: TurnState) -> None:
        """After a crash: give every call without a result an honest 'unknown outcome' result."""
        missing = unpaired_calls(state.messages[last_turn_start(state.messages):])
        if missing:
            await state.persist([
                Message(role="tool", content=UNKNOWN_OUTCOME, tool_call_id=c.id, name=c.name, status="unknown")
                for c in missing
            ])  # the crash left the calls last, so appended results follow them directly

    async def _loop(self, state: TurnState) -> TurnRecord:
        assert self.toolbox is not None and self.compactor is not None
        while True:
            if state.iterations >= self.max_iterations:
                return state.record("budget_exhausted", error=f"iteration budget ({self.max_iterations}) used up")
            if state.api_calls >= self.max_api_calls:
                return state.record("budget_exhausted", error=f"API-call budget ({self.max_api_calls}) used up")
            state.iterations += 1
            offered = {t.name: t for t in self.toolbox.offered()}
            outcome = await self.models.call(state, offered)
            state.api_calls += 1
            response = outcome.response
            state.usage = state.usage + response.usage + outcome.failed_usage
            state.served = outcome.served_by
            state.last_prompt_tokens = response.usage.prompt_tokens or None
            state.last_prompt_len = len(state.messages)
            if response.tool_calls:
                assistant = Message(role="assistant", content=response.text, tool_calls=response.tool_calls,
                                    api_content=response.api_content,
                                    meta={"provider": response.provider, "model": response.model})
                round_ = ToolRound(
                    toolbox=self.toolbox, hooks=self.kernel.hooks, persist=state.persist,
                    make_ctx=lambda call: self._tool_ctx(state, call, offered.get(call.name)), emit=self._emitter(state), home=self.kernel.home,
                    ask_timeout=float(self.config.get("approvals", {}).get("timeout", 300)),
                )
                result = await round_.run(assistant, offered)
                if result.halt:
                    return state.record("guardrail_halt", error=result.halt)
                await self.compactor.after_tool_round(state)
                continue
            if not response.text.strip():
                return state.record("empty_response", error=f"the model returned nothing (finish: {response.raw_finish_reason or response.finish_reason})")
            await state.persist([Message(role="assistant", content=response.text, api_content=response.api_content,
                                         meta={"provider": response.provider, "model": response.model,
                                               "finish": response.finish_reason})])
            return state.record("completed", final_text=response.text)

    def _emitter(self, state: TurnState) -> Callable[[Event], None]:
        def emit(event: Event) -> None:
            self.emit(Event(kind=event.kind, data=event.data, session_id=state.session.id, turn_id=state.turn_id))
        return emit

    def _tool_ctx(self, state: TurnState, call: ToolCall, tool: Any = None) -> ToolContext:
        return ToolContext(
            session_id=state.session.id,
            session_key=state.key,
            workspace=self.kernel.workspace,
            home=self.kernel.home,
            call=call,
            config=self.config,
            channel=self.options.channel,
            emit=self._emitter(state),
            ask=self.ask,
            store=self._store,
            state=self.tool_state(state.session.id),
            yolo=self.options.yolo,
            skill_dirs=state.info.skill_dirs if state.info else (),
            tool=tool,
        )
