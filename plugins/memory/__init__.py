"""Built-in memory: ``MEMORY.md`` (agent notes) and ``USER.md`` (user profile).

Always on (not the memory-provider slot). Contributes:

- ``prompt_sections``: a volatile-tier snapshot of both files taken the first time a
  session's prompt is built and **frozen per session id** — a rebuild for the same session
  (after compression) returns the identical text; writes made during the session show from
  the next session (prefix-cache stability). The cache is bounded (LRU).
- ``register_tools``: the ``memory`` tool (add / replace / remove; see :mod:`.store`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import talaria

from .store import FILES, MemoryStore

__all__ = ["MemoryStore", "memory_tool", "snapshot_text"]

_SNAPSHOTS: OrderedDict[str, str | None] = OrderedDict()
_SNAPSHOTS_MAX = 256
_TITLES = {
    "memory": ("Memory", "your notes from earlier sessions"),
    "user": ("User profile", "what you know about the user"),
}


def snapshot_text(store: MemoryStore) -> str | None:
    """The prompt text for the files as they are now; None when both are empty."""
    parts: list[str] = []
    for target in ("memory", "user"):
        entries = store.read(target)  # type: ignore[arg-type]
        if not entries:
            continue
        title, what = _TITLES[target]
        usage = store.usage(target, entries)  # type: ignore[arg-type]
        body = "\n§\n".join(entries)
        parts.append(f"## {title}\n{what.capitalize()} ({FILES[target]}, {usage}; edit with the memory tool):\n{body}")
    return "\n\n".join(parts) if parts else None


@talaria.hookimpl
def prompt_sections(session: talaria.SessionInfo) -> talaria.PromptSection | None:
    """The memory snapshot for ``session``, frozen at its first build."""
    if session.id in _SNAPSHOTS:
        _SNAPSHOTS.move_to_end(session.id)
        text = _SNAPSHOTS[session.id]
    else:
        text = snapshot_text(MemoryStore(session.home, session.config))
        _SNAPSHOTS[session.id] = text
        while len(_SNAPSHOTS) > _SNAPSHOTS_MAX:
            _SNAPSHOTS.popitem(last=False)
    if text is None:
        return None
    return talaria.PromptSection(tier="volatile", text=text, source="memory", order=60)


def _handle(arguments: Mapping[str, Any], ctx: talaria.ToolContext) -> str:
    store = MemoryStore(ctx.home, ctx.config)
    action = arguments.get("action")
    target = arguments.get("target", "memory")
    if action == "add":
        return store.add(target, arguments.get("content", ""))
    if action == "replace":
        return store.replace(target, arguments.get("match", ""), arguments.get("content", ""))
    if action == "remove":
        return store.remove(target, arguments.get("match", ""))
    raise talaria.ToolError(f"unknown action '{action}'; use add, replace or remove")


def memory_tool() -> talaria.Tool:
    """The ``memory`` tool (terse schema: it is sent on every request)."""
    return talaria.Tool(
        name="memory",
        description=(
            "Persist notes across sessions. target: memory (your notes) or user (user profile). "
            "replace/remove pick the entry containing `match`."
        ),
        parameters={
            "type": "object",
            "properties": {
                "action": {"enum": ["add", "replace", "remove"]},
                "target": {"enum": ["memory", "user"]},
                "content": {"type": "string"},
                "match": {"type": "string"},
            },
            "required": ["action", "target"],
            "additionalProperties": False,
        },
        handler=_handle,
        toolset="memory",
        parallel_safe=False,
    )


@talaria.hookimpl
def register_tools(register: talaria.Registrar[Any]) -> None:
    register(memory_tool())
