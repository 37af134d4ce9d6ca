"""The shape of a transcript that a compaction must respect: tool-call groups.

A *group* is an assistant message that made tool calls plus every tool message that
answers one of those calls (parallel calls give several results). A *cut* ``c`` splits a
list into ``messages[:c]`` and ``messages[c:]``; a cut is *safe* when no group straddles
it, so a call never loses its result and a result never loses its call.
"""

from __future__ import annotations

from collections.abc import Sequence

from talaria import Message

__all__ = ["ceil_cut", "floor_cut", "safe_cuts", "last_user_index"]


def safe_cuts(messages: Sequence[Message]) -> list[bool]:
    """``ok[c]`` (for ``c`` in ``0..len(messages)``) is True when cut ``c`` splits no group.

    A tool message is owned by the closest earlier assistant message that made its call;
    a tool message with no such call (an orphan) and a call with no result yet (an
    in-flight call) form no straddling group, so they never block a cut on their own.
    """
    n = len(messages)
    ok = [True] * (n + 1)
    open_calls: dict[str, int] = {}  # call id -> index of the assistant that made it
    for i, message in enumerate(messages):
        if message.role == "assistant":
            for call in message.tool_calls:
                open_calls[call.id] = i
        elif message.role == "tool" and message.tool_call_id is not None:
            owner = open_calls.get(message.tool_call_id)
            if owner is not None:
                for c in range(owner + 1, i + 1):
                    ok[c] = False
    return ok


def floor_cut(ok: Sequence[bool], c: int) -> int:
    """The largest safe cut at or before ``c`` (cut 0 is always safe)."""
    c = max(0, min(c, len(ok) - 1))
    while c > 0 and not ok[c]:
        c -= 1
    return c


def ceil_cut(ok: Sequence[bool], c: int) -> int:
    """The smallest safe cut at or after ``c`` (the cut at the end is always safe)."""
    last = len(ok) - 1
    c = max(0, min(c, last))
    while c < last and not ok[c]:
        c += 1
    return c


def last_user_index(messages: Sequence[Message]) -> int | None:
    """Index of the latest ``user`` message that is not an engine-made summary, or None."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role == "user" and not message.meta.get("summary"):
            return i
    return None
