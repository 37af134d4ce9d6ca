"""Event helpers shared by ``run`` and ``chat``: JSON form and one-line summaries."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["event_json", "short_args", "tool_line"]

_ARG_WIDTH = 60


def event_json(event: Any) -> str:
    """One JSON line for an event: ``{"type": "event", "kind", "session_id", "turn_id", "data"}``."""
    return json.dumps(
        {"type": "event", "kind": event.kind, "session_id": event.session_id, "turn_id": event.turn_id,
         "data": dict(event.data)},
        default=str, ensure_ascii=False,
    )


def short_args(arguments: Mapping[str, Any] | None, width: int = _ARG_WIDTH) -> str:
    """A one-line, width-capped rendering of tool arguments (the most telling value first)."""
    if not arguments:
        return ""
    for key in ("command", "path", "query", "url", "name", "pattern"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            text = value
            break
    else:
        text = json.dumps(dict(arguments), default=str, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def tool_line(tool: str, args: str, *, duration: float | None = None, status: str | None = None) -> str:
    """``⚙ tool short-args …`` while running; ``⚙ tool short-args 0.3s ok`` when finished."""
    head = f"⚙ {tool} {args}".rstrip()
    if status is None:
        return f"{head} …"
    return f"{head} {duration or 0:.1f}s {status}"
