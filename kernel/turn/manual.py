"""Compression on demand: ``/compress [focus]`` and ``talaria sessions compress ID``.

The same kernel path as the preflight gate (lock, engine, the nothing-lost check, rotation
to a child session, cool-down on failure), minus the "does the engine want to?" question:
the user asked. It takes the session key's lease like a turn does, so it never races a
running turn of the same session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._values import value_type
from ..errors import CompressionError, LeaseLost
from ..types import new_id
from .state import TurnState

if TYPE_CHECKING:
    from .state import TurnHost

__all__ = ["CompressionReport", "compress_session"]


@value_type
class CompressionReport:
    """What a forced compression did.

    ``compressed`` is True when the history was compacted into a new child session
    ``session_id`` (its parent, ``parent_id``, is kept intact and ended ``compressed``).
    When False, ``reason`` says why nothing changed (no session, nothing to compact, the
    engine failed — the transcript is untouched either way).
    """

    compressed: bool
    session_id: str
    parent_id: str | None = None
    engine: str = ""
    messages_before: int = 0
    messages_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    reason: str = ""


async def compress_session(runtime: TurnHost, session_key: str, *, focus: str | None = None) -> CompressionReport:
    """Compress the current session of ``session_key`` now (see the module docstring)."""
    store = runtime.store
    sessions, compactor = runtime.sessions, runtime.compactor
    assert store is not None and sessions is not None and compactor is not None, "use `async with Runtime(...)`"
    if compactor.engine is None:
        return CompressionReport(compressed=False, session_id="", reason="no context engine is installed")
    keeper = runtime.lease_keeper(session_key)
    await keeper.__aenter__()
    try:
        row = await store.current_session(session_key)
        if row is None:
            return CompressionReport(compressed=False, session_id="", reason="this session has no history yet")
        state = TurnState(turn_id=new_id("cmp_"), key=session_key, text="")
        runtime.bind_persist(state, keeper)
        state.chain = runtime.models.chain(runtime.options.model)
        resolved = state.chain[0]
        await sessions.ensure(state, session_key, resolved, new_session=False)
        before_tokens = state.history_tokens()
        before = state.session.id
        count = len(state.messages)
        if count <= 1:
            return CompressionReport(compressed=False, session_id=before, engine=compactor.engine_name,
                                     messages_before=count, messages_after=count, tokens_before=before_tokens,
                                     tokens_after=before_tokens, reason="nothing to compress yet")
        try:
            rotated = await compactor.compress(state, resolved, focus=focus or None)
        except CompressionError as exc:
            rotated, state.compression_error = False, str(exc)
        if not rotated:
            reason = (f"the context engine failed (nothing was dropped): {state.compression_error}"
                      if state.compression_error
                      else "another process is compressing this session, or a failure cool-down is active"
                      if state.compressions == 0 else "the engine found nothing to compact")
            return CompressionReport(compressed=False, session_id=before, engine=compactor.engine_name,
                                     messages_before=count, messages_after=count, tokens_before=before_tokens,
                                     tokens_after=before_tokens, reason=reason)
        return CompressionReport(compressed=True, session_id=state.session.id, parent_id=before,
                                 engine=compactor.engine_name, messages_before=count,
                                 messages_after=len(state.messages), tokens_before=before_tokens,
                                 tokens_after=state.history_tokens())
    except LeaseLost as exc:
        return CompressionReport(compressed=False, session_id="", reason=f"lost the session lease: {exc}")
    finally:
        await keeper.__aexit__(None, None, None)

