"""Sessions and turns: prompt sections, session info, compaction, events, turn records.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from .._values import value_type
from .common import EndReason, PromptTier
from .transcript import Message, Usage


__all__ = ["PromptSection", "SessionInfo", "Compaction", "Event", "TurnRecord"]


@value_type
class PromptSection:
    """A piece of the system prompt in one tier.

    Tiers, in prompt order: ``stable`` (identity, guidance), ``context`` (caller system
    message, project context files, workspace), ``volatile`` (skills index, memory, time).
    Inside a tier sections are sorted by ``order`` then ``source``.
    """

    tier: PromptTier
    text: str
    source: str = ""
    order: int = 100


@value_type
class SessionInfo:
    """A read-only view of a session, passed to session hooks and prompt sections."""

    id: str
    session_key: str
    workspace: Path
    home: Path
    provider: str = ""
    model: str = ""
    source: str = ""
    parent_id: str | None = None
    context_window: int = 128_000
    config: Mapping[str, Any] = field(default_factory=dict)
    trusted_workspace: bool = False
    #: ``(source label, folder)`` of plugin-shipped skill folders, lowest precedence first.
    skill_dirs: tuple[tuple[str, Path], ...] = ()


@value_type
class Compaction:
    """What a context engine returns: the new message list and what it replaced.

    ``messages`` must keep every tool call paired with its result. ``dropped`` lists the
    uids of messages that are not in ``messages`` any more. ``summary`` is the summary
    text, when one was made.
    """

    messages: tuple[Message, ...]
    summary: str | None = None
    dropped: tuple[str, ...] = ()
    made_model_call: bool = False


@value_type
class Event:
    """Something for a channel to render. Events are not the transcript.

    Kinds emitted by the kernel: ``turn_started``, ``text_delta``, ``reasoning_delta``,
    ``model_call``, ``retry``, ``fallback``, ``tool_started``, ``tool_finished``,
    ``approval``, ``compression``, ``progress``, ``warning``, ``turn_ended``.
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    session_id: str = ""
    turn_id: str = ""


@value_type
class TurnRecord:
    """How a turn ended, passed to ``on_turn_end`` and returned to the caller."""

    turn_id: str
    session_id: str
    session_key: str
    end_reason: EndReason
    final_text: str = ""
    usage: Usage = field(default_factory=Usage)
    iterations: int = 0
    api_calls: int = 0
    error: str | None = None
    provider: str = ""
    model: str = ""
    user_text: str = ""

    @property
    def ok(self) -> bool:
        return self.end_reason == "completed"
