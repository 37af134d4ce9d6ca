"""The state of one running turn, and what the turn's stages use of their runtime.

The stages (sessions, models, compaction, compression on demand) live in their own modules
and are handed the :class:`~talaria.turn.runtime.Runtime` that owns them; they see it as a
:class:`TurnHost`, so none of them imports the runtime module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..types import Event, Message, SessionInfo, TurnRecord, Usage
from .transcript import api_view, estimate_tokens

__all__ = ["TurnHost", "TurnState"]


class TurnHost(Protocol):
    """The parts of the runtime the stages use (the runtime is the one implementation)."""

    kernel: Any
    config: Mapping[str, Any]
    options: Any
    owner: str
    lease_ttl: float
    lease_refresh: float
    lease_wait: float
    models: Any
    sessions: Any
    compactor: Any

    @property
    def store(self) -> Any: ...

    def emit(self, event: Event) -> None: ...

    def _emitter(self, state: TurnState) -> Callable[[Event], None]: ...

    def lease_keeper(self, session_key: str, *, lease: Any = None) -> Any: ...

    def bind_persist(self, state: TurnState, keeper: Any) -> None: ...


class TurnState:
    """Mutable bookkeeping of one running turn."""

    def __init__(self, *, turn_id: str, key: str, text: str) -> None:
        self.turn_id = turn_id
        self.key = key
        self.text = text
        self.session: Any = None
        self.info: SessionInfo | None = None
        self.info_system: tuple[Any, ...] = ()
        self.overflow_routed = False
        self.messages: list[Message] = []
        self.chain: list[Any] = []
        self.served: Any = None
        self.usage = Usage()
        self.iterations = 0
        self.api_calls = 0
        self.compressions = 0
        self.compression_error: str | None = None
        self.last_prompt_tokens: int | None = None
        self.last_prompt_len = 0
        self.persist: Any = None
        self.pending_usage: list[Any] = []
        self._api_source: list[Message] | None = None  # what api_messages() last converted
        self._api_len = 0
        self._api: list[Message] = []  # model calls not yet stored (written with the next append)

    def api_messages(self) -> tuple[Message, ...]:
        """``api_view(self.messages)``, converting only messages added since the last call."""
        if self._api_source is not self.messages or self._api_len > len(self.messages):
            self._api_source, self._api_len, self._api = self.messages, 0, []
        if self._api_len < len(self.messages):
            self._api.extend(api_view(self.messages[self._api_len:]))
            self._api_len = len(self.messages)
        return tuple(self._api)

    def system_chars(self) -> int:
        """Characters of the session's system prompt (all tiers)."""
        return sum(len(section.text) for section in self.info_system)

    def history_tokens(self) -> int:
        """Estimated tokens of the whole request: system prompt plus every message."""
        return estimate_tokens(self.messages, extra_chars=self.system_chars())

    def prompt_estimate(self, extra_chars: int = 0) -> int:
        if self.last_prompt_tokens:
            return self.last_prompt_tokens + estimate_tokens(self.messages[self.last_prompt_len:])
        return estimate_tokens(self.messages, extra_chars=extra_chars)

    def record(self, reason: Any, *, final_text: str = "", error: str | None = None) -> TurnRecord:
        served = self.served or (self.chain[0] if self.chain else None)
        return TurnRecord(
            turn_id=self.turn_id,
            session_id=self.session.id if self.session else "",
            session_key=self.key,
            end_reason=reason,
            final_text=final_text,
            usage=self.usage,
            iterations=self.iterations,
            api_calls=self.api_calls,
            error=error,
            provider=served.provider if served else "",
            model=served.model_id if served else "",
            user_text=self.text,
        )

