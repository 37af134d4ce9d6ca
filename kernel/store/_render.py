"""Plain-text and Markdown renderings of a stored session (used by ``talaria sessions``)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from typing import Any

from ..types import Message
from .base import SessionRow, StoredMessage, UsageRow

__all__ = ["render_markdown", "render_show", "to_jsonable"]


def to_jsonable(msg: Message) -> dict[str, Any]:
    """Every field of ``msg`` as JSON-ready values (tool calls as objects)."""
    return {
        "role": msg.role,
        "content": msg.content,
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": dict(c.arguments), "raw_arguments": c.raw_arguments}
            for c in msg.tool_calls
        ],
        "tool_call_id": msg.tool_call_id,
        "name": msg.name,
        "status": msg.status,
        "api_content": msg.api_content,
        "uid": msg.uid,
        "meta": dict(msg.meta),
    }


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) if ts else "-"


def _args(call: Any) -> str:
    if call.raw_arguments is not None and not call.arguments:
        return call.raw_arguments
    return json.dumps(dict(call.arguments), ensure_ascii=False)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines()) if text else ""


def _header(row: SessionRow, usage: Sequence[UsageRow] = ()) -> list[str]:
    model = f"{row.provider}/{row.model}" if row.provider else (row.model or "-")
    lines = [
        f"Session   {row.id}",
        f"Key       {row.session_key}",
        f"Title     {row.title or '-'}",
        f"Source    {row.source or '-'}",
        f"Model     {model}",
        f"Workspace {row.cwd or '-'}",
        f"Created   {_when(row.created_at)}",
    ]
    if row.ended_at is not None:
        lines.append(f"Ended     {_when(row.ended_at)} ({row.end_reason or 'no reason'})")
    if row.parent_session_id:
        lines.append(f"Parent    {row.parent_session_id}")
    for u in usage:
        cost = f", ${u.cost:.4f}" if u.cost is not None else ""
        lines.append(
            f"Usage     {u.provider}/{u.model}: {u.calls} call(s), {u.input_tokens} in, "
            f"{u.output_tokens} out, {u.cache_read_tokens} cache read{cost}"
        )
    return lines


def render_show(
    row: SessionRow, msgs: Sequence[StoredMessage], usage: Sequence[UsageRow] = ()
) -> str:
    """The ``sessions show`` text: header, then each message with its tool calls/results."""
    lines = _header(row, usage)
    lines.append("")
    if not msgs:
        lines.append("(no messages)")
    for sm in msgs:
        m = sm.message
        flags = "" if sm.active else (" (compacted)" if sm.compacted else " (inactive)")
        if m.role == "tool":
            head = f"[{sm.seq}] tool {m.name or '?'} [{m.status or 'ok'}] ← {m.tool_call_id}{flags}"
        else:
            head = f"[{sm.seq}] {m.role}{flags}"
        lines.append(head)
        if m.content:
            lines.append(_indent(m.content))
        for call in m.tool_calls:
            lines.append(f"    → {call.name} {_args(call)}  (call {call.id})")
        lines.append("")
    return "\n".join(lines) + "\n"


def _fence(text: str, info: str = "") -> str:
    """A Markdown code block whose fence is longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def render_markdown(row: SessionRow, msgs: Sequence[StoredMessage], prompt: str | None) -> str:
    """The ``sessions export --format md`` document."""
    title = row.title or f"Session {row.id}"
    out = [f"# {title}", ""]
    out += [f"- {line.split(None, 1)[0].lower()}: {line.split(None, 1)[1]}" for line in _header(row)]
    out.append("")
    if prompt:
        out += ["<details><summary>System prompt</summary>", "", _fence(prompt), "", "</details>", ""]
    for sm in msgs:
        m = sm.message
        note = "" if sm.active else " *(compacted)*" if sm.compacted else " *(inactive)*"
        if m.role == "tool":
            out.append(f"### Tool result: `{m.name or '?'}` ({m.status or 'ok'}){note}")
            out += ["", _fence(m.content), ""]
            continue
        out.append(f"## {m.role.capitalize()}{note}")
        out.append("")
        if m.content:
            out += [m.content, ""]
        for call in m.tool_calls:
            out += [f"**Tool call** `{call.name}` (`{call.id}`):", "", _fence(_args(call), "json"), ""]
    return "\n".join(out).rstrip("\n") + "\n"
