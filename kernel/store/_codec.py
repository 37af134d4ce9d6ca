"""Encoding between value types and SQLite rows, and safe FTS5 query building.

JSON columns (``api_content``, ``tool_calls``, ``meta``, payloads) hold compact UTF-8 JSON;
``None`` / empty values are stored as SQL ``NULL``. JSON has no tuples, so a tuple inside
``api_content``, ``meta`` or tool-call arguments comes back as a list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..types import Message, ToolCall

__all__ = ["MESSAGE_COLUMNS", "decode_message", "dumps", "encode_message", "fts_query", "loads"]

#: Columns read by :func:`decode_message`, in order.
MESSAGE_COLUMNS = "role, content, api_content, tool_calls, tool_call_id, name, status, uid, meta"

_MAX_TERMS = 32


def dumps(value: Any) -> str:
    """Compact JSON; raises TypeError for values JSON cannot hold."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def loads(text: str | None, default: Any = None) -> Any:
    return default if text is None else json.loads(text)


def _encode_call(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"id": call.id, "name": call.name, "arguments": dict(call.arguments)}
    if call.raw_arguments is not None:
        out["raw_arguments"] = call.raw_arguments
    return out


def encode_message(msg: Message) -> tuple[Any, ...]:
    """``(role, content, api_content, tool_calls, tool_call_id, name, status, uid, meta)``."""
    try:
        return (
            msg.role,
            msg.content,
            None if msg.api_content is None else dumps(msg.api_content),
            dumps([_encode_call(c) for c in msg.tool_calls]) if msg.tool_calls else None,
            msg.tool_call_id,
            msg.name,
            msg.status,
            msg.uid,
            dumps(dict(msg.meta)) if msg.meta else None,
        )
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"message {msg.uid} cannot be stored: api_content, meta and tool-call arguments "
            f"must be JSON-serializable ({exc})"
        ) from exc


def decode_message(row: tuple[Any, ...]) -> Message:
    """Inverse of :func:`encode_message` for a row of :data:`MESSAGE_COLUMNS`."""
    role, content, api_content, tool_calls, tool_call_id, name, status, uid, meta = row
    calls = tuple(
        ToolCall(
            id=c["id"],
            name=c["name"],
            arguments=c.get("arguments") or {},
            raw_arguments=c.get("raw_arguments"),
        )
        for c in loads(tool_calls, ())
    )
    return Message(
        role=role,
        content=content,
        tool_calls=calls,
        tool_call_id=tool_call_id,
        name=name,
        status=status,
        api_content=loads(api_content),
        uid=uid,
        meta=loads(meta, {}),
    )


def fts_query(text: str) -> str | None:
    """Turn free user text into an FTS5 MATCH expression that cannot be a syntax error.

    Every whitespace-separated term becomes a quoted phrase (so ``AND``, ``-``, ``(``, ``"``
    and ``*`` are plain text); terms are ANDed. A term ending in ``*`` keeps prefix matching.
    Terms without any letter or digit are dropped; returns None when nothing is left.
    """
    terms: list[str] = []
    for raw in text.split():
        prefix = raw.endswith("*")
        word = raw.rstrip("*")
        if not any(ch.isalnum() for ch in word):
            continue
        terms.append('"' + word.replace('"', '""') + '"' + ("*" if prefix else ""))
        if len(terms) >= _MAX_TERMS:
            break
    return " ".join(terms) or None


def json_mapping(text: str | None) -> Mapping[str, Any]:
    value = loads(text, {})
    return value if isinstance(value, dict) else {"value": value}
