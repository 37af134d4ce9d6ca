"""The kernel side of compression (engines stay pure transformations).

The gate before every model call: enabled? more than one message? attempts this turn
under the limit? no failure cool-down? does the engine want to? Then: the per-session
compression lock, the engine's ``compress``, a check that nothing was lost or unpaired,
and **session rotation** — the compacted history continues in a new child session
(``parent_session_id``) with a rebuilt system prompt; the parent's transcript is never
touched. A failing engine drops nothing: the turn continues uncompressed when the history
still fits, else ends ``compression_failed``; a cool-down keeps a failing summarizer from
being hammered.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..errors import CompressionError
from ..types import Compaction, Event, Message, new_id
from .transcript import unpaired_calls

if TYPE_CHECKING:
    from .state import TurnHost, TurnState

__all__ = ["Compactor", "check_compaction"]

log = logging.getLogger("talaria.compaction")
DEFAULT_ENGINE = "compressor"
COOLDOWN_HOLDER = "cooldown"


def check_compaction(before: list[Message], compaction: Compaction) -> str | None:
    """Why ``compaction`` is unacceptable (lost or unpaired messages), or None."""
    after = list(compaction.messages)
    if not after:
        return "the engine returned no messages"
    if unpaired_calls(after):
        return "the engine split a tool call from its result"
    answered = {m.tool_call_id for m in after if m.role == "tool"}
    called = {c.id for m in after for c in m.tool_calls}
    if answered - called:
        return "the engine kept a tool result without its call"
    before_uids = {m.uid for m in before}
    kept = {m.uid for m in after} & before_uids
    missing = before_uids - kept - set(compaction.dropped)
    if missing:
        return f"{len(missing)} message(s) vanished without being listed as dropped"
    if before and after[-1].uid != before[-1].uid:
        return "the engine did not keep the latest message"
    return None


class Compactor:
    def __init__(self, runtime: TurnHost) -> None:
        self.runtime = runtime
        cfg = runtime.config.get("context", {})
        self.enabled = bool(cfg.get("enabled", True))
        self.max_attempts = int(cfg.get("max_attempts", 3))
        self.cooldown = float(cfg.get("failure_cooldown", 600))
        self.engine_name, self.engine = self._select(cfg)

    def _select(self, cfg: Any) -> tuple[str, Any]:
        registry = self.runtime.kernel.registries.context_engines
        wanted = cfg.get("engine", DEFAULT_ENGINE)
        for name in (wanted, DEFAULT_ENGINE):
            factory = registry.get(name)
            if factory is None:
                if name == wanted and wanted != DEFAULT_ENGINE:
                    self._warn(f"context engine '{wanted}' is not installed (known: {', '.join(registry.names()) or 'none'}); using '{DEFAULT_ENGINE}'")
                continue
            try:
                return name, factory(cfg.get(name, {}))
            except Exception as exc:
                self._warn(f"context engine '{name}' failed to start: {exc}")
        default = registry.get(DEFAULT_ENGINE)
        if default is not None:
            try:
                self._warn(f"using '{DEFAULT_ENGINE}' with its default settings")
                return DEFAULT_ENGINE, default({})
            except Exception as exc:
                self._warn(f"context engine '{DEFAULT_ENGINE}' failed with default settings: {exc}")
        return "", None

    def _warn(self, message: str) -> None:
        log.warning("talaria: %s", message)
        self.runtime.emit(Event(kind="warning", data={"message": message}))

    # ------------------------------------------------------------------ gates

    def _wants(self, state: TurnState, resolved: Any) -> bool:
        if not self.enabled or self.engine is None or len(state.messages) <= 1:
            return False
        if state.compressions >= self.max_attempts:
            return False
        tokens = state.prompt_estimate(extra_chars=state.system_chars())
        try:
            return bool(self.engine.should_compress(tokens, resolved.context_window))
        except Exception as exc:
            self._warn(f"context engine '{self.engine_name}' failed in should_compress: {exc}")
            return False

    async def preflight(self, state: TurnState, resolved: Any) -> None:
        """Before each model call (and again for a fallback model's window)."""
        if self._wants(state, resolved):
            await self.compress(state, resolved)

    async def after_tool_round(self, state: TurnState) -> None:
        """Tool results may have pushed the context over the threshold."""
        resolved = state.served or state.chain[0]
        if self._wants(state, resolved):
            await self.compress(state, resolved)

    async def on_overflow(self, state: TurnState, resolved: Any) -> bool:
        """A provider said the context is too long: compress once, then fail closed."""
        if state.overflow_routed or self.engine is None:
            return False
        state.overflow_routed = True
        return await self.compress(state, resolved, must_fit=True)

    # ------------------------------------------------------------------ compression

    async def compress(self, state: TurnState, resolved: Any, *, focus: str | None = None, must_fit: bool = False) -> bool:
        """Compress the session's history; True when it rotated to a compacted child."""
        store = self.runtime.store
        session_id = state.session.id
        holder = f"{self.runtime.owner}:{state.turn_id}"
        if not await store.try_lock_compression(session_id, holder, 600):
            # another process is compressing, or a failure cool-down is active
            if must_fit or state.history_tokens() >= resolved.context_window:
                raise CompressionError("the history does not fit the context window and compression is "
                                       "unavailable (cooling down after a failure, or another process holds the lock)")
            return False
        state.compressions += 1
        state.api_calls += 1  # the attempt counts; refunded below when no provider call was made
        calls = 0

        async def summarize(prompt: str, *, max_tokens: int = 2048) -> str:
            nonlocal calls
            calls += 1
            response = await self.runtime.models.complete_for_plugin(
                prompt, model=self.runtime.config.get("aux_model"), max_tokens=max_tokens, purpose="summary")
            return response.text

        before = list(state.messages)
        try:
            if self.runtime.sessions is not None and self.runtime.sessions.memory is not None:
                try:
                    await self.runtime.sessions.memory.on_pre_compress(before)
                except Exception as exc:
                    self._warn(f"memory provider failed before compression: {exc}")
            compaction = await self.engine.compress(before, context_window=resolved.context_window,
                                                    summarize=summarize, focus=focus)
            problem = check_compaction(before, compaction)
            if problem:
                raise CompressionError(f"context engine '{self.engine_name}' returned an invalid history: {problem}")
        except Exception as exc:
            await self._fail(state, resolved, holder, exc, must_fit=must_fit)
            return False
        finally:
            if calls == 0:
                state.api_calls -= 1
        try:
            if not compaction.dropped:  # nothing to compact: no rotation, no prompt rebuild
                return False
            await self._rotate(state, resolved, compaction)
        finally:
            await store.unlock_compression(session_id, holder)
        return True

    async def _fail(self, state: TurnState, resolved: Any, holder: str, exc: BaseException, *, must_fit: bool) -> None:
        store = self.runtime.store
        session_id = state.session.id
        await store.unlock_compression(session_id, holder)
        await store.try_lock_compression(session_id, COOLDOWN_HOLDER, self.cooldown)
        reason = f"{type(exc).__name__}: {exc}"
        state.compression_error = reason
        self.runtime.emit(Event(kind="compression", session_id=session_id, turn_id=state.turn_id,
                                data={"ok": False, "error": reason, "cooldown": self.cooldown}))
        if must_fit or state.history_tokens() >= resolved.context_window:
            raise CompressionError(f"compression failed and the history does not fit the context window: {reason}") from exc
        log.warning("talaria: compression failed (%s); continuing uncompressed", reason)

    async def _rotate(self, state: TurnState, resolved: Any, compaction: Compaction) -> None:
        """Continue in a child session holding the compacted history; the parent stays intact."""
        assert self.runtime.sessions is not None
        parent = state.session
        copies = [
            Message(role=m.role, content=m.content, tool_calls=m.tool_calls, tool_call_id=m.tool_call_id,
                    name=m.name, status=m.status, api_content=m.api_content, uid=new_id(),
                    meta={**dict(m.meta), "origin_uid": m.uid})
            for m in compaction.messages
        ]
        old_info = state.info
        await self.runtime.sessions.create(state, state.key, resolved, parent_id=parent.id)
        state.messages = []
        await state.persist(copies)
        await self.runtime.sessions.end(parent.id, "compressed", old_info)
        state.last_prompt_tokens = None
        state.last_prompt_len = 0
        self.runtime.emit(Event(kind="compression", session_id=state.session.id, turn_id=state.turn_id, data={
            "ok": True, "engine": self.engine_name, "parent": parent.id, "dropped": len(compaction.dropped),
            "kept": len(copies), "summary": bool(compaction.summary), "model_call": compaction.made_model_call}))
