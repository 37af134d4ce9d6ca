"""``session_search``: full-text search over past sessions (toolset ``session_search``).

Contract: calls ``await ctx.store.search_messages(query, limit=…, exclude_session=ctx.session_id)``
(the store's FTS index) and returns hits grouped by session — session id, title and
date, then one ``role: excerpt`` line per hit (excerpts cut to 300 characters). Hits may be
mappings or objects with ``session_id``, ``uid``, ``role``, ``snippet``, ``created_at``,
``title``. The current session is excluded (it is already in context). No store, or a
query the index cannot parse, is a :class:`ToolError` that says what to do.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import Any

import talaria
from talaria import Tool, ToolContext, ToolError, Toolset

__all__ = ["TOOLS", "session_search"]

MAX_LIMIT = 50
EXCERPT_CHARS = 300


def _field(hit: Any, name: str) -> Any:
    if isinstance(hit, Mapping):
        return hit.get(name)
    return getattr(hit, name, None)


def _when(value: Any) -> str:
    if isinstance(value, int | float) and value > 0:
        return _dt.datetime.fromtimestamp(value, tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
    if isinstance(value, _dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)[:16].replace("T", " ") if value else ""


def _excerpt(text: Any) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


async def session_search(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    query = str(arguments["query"]).strip()
    if not query:
        raise ToolError("query is empty: give words to search for.")
    limit = max(1, min(int(arguments.get("limit") or 10), MAX_LIMIT))
    search = getattr(ctx.store, "search_messages", None)
    if search is None:
        raise ToolError("session search is unavailable here (no session store).")
    try:
        hits = list(await search(query, limit=limit, exclude_session=ctx.session_id))
    except Exception as exc:  # the store's FTS parser rejects some syntax
        raise ToolError(f"search failed for {query!r}: {exc}. Try plain words without operators.") from exc
    if not hits:
        return f"No past sessions mention {query!r}."
    groups: dict[str, list[Any]] = {}
    for hit in hits[:limit]:
        groups.setdefault(str(_field(hit, "session_id")), []).append(hit)
    blocks = []
    for session_id, items in groups.items():
        first = items[0]
        title = _field(first, "title") or "(untitled)"
        when = _when(_field(first, "created_at"))
        lines = [f"session {session_id} — {title}" + (f" ({when})" if when else "")]
        lines += [f"  {_field(h, 'role') or '?'}: {_excerpt(_field(h, 'snippet'))}" for h in items]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


TOOLS = (
    Tool(
        name="session_search",
        description="Full-text search of past sessions; returns excerpts with session ids.",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["query"],
        },
        handler=session_search,
        toolset="session_search",
        max_output=20_000,
    ),
)


@talaria.hookimpl
def register_tools(register: talaria.Registrar[Any]) -> None:
    for tool in TOOLS:
        register(tool)
    register(Toolset(name="session_search", tools=("session_search",), description="Recall past sessions."))
