"""Normalized request → Anthropic Messages JSON (a pure, deterministic function).

- The system prompt becomes one text block per tier (stable, context, volatile); the
  stable and context blocks carry ``cache_control`` breakpoints (they are the prefix shared
  across sessions).
- Tool results become ``tool_result`` blocks in a user message; consecutive same-role
  messages are merged (tool results of a parallel round land in one user message).
- The last two user messages carry breakpoints too (the latest, and the previous one, which
  is exactly where the previous request wrote its cache), never more than four in total.
- An assistant message produced by this API mode is replayed from ``api_content``
  (thinking blocks with signatures included).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from talaria import Message, ModelRequest, json_plain, replay_wire

__all__ = ["MAX_BREAKPOINTS", "NAME", "build_payload", "system_blocks", "wire_messages"]

NAME = "anthropic_messages"
MAX_BREAKPOINTS = 4
EPHEMERAL = {"type": "ephemeral"}
_TIERS = ("stable", "context", "volatile")
_CACHED_TIERS = ("stable", "context")


def system_blocks(request: ModelRequest) -> list[dict[str, Any]]:
    """One text block per non-empty tier, in tier order; stable/context ones cached."""
    texts: dict[str, list[str]] = {tier: [] for tier in _TIERS}
    for section in request.system:
        if section.text:
            texts[section.tier if section.tier in texts else "volatile"].append(section.text)
    blocks = []
    for tier in _TIERS:
        if texts[tier]:
            block: dict[str, Any] = {"type": "text", "text": "\n\n".join(texts[tier])}
            if tier in _CACHED_TIERS:
                block["cache_control"] = dict(EPHEMERAL)
            blocks.append(block)
    return blocks


def _tool_use(call: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": json_plain(call.arguments)}


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """(role, content blocks) of one stored message."""
    if message.role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id or "",
                                 "content": message.content}
        if message.status not in (None, "ok"):
            block["is_error"] = True
        return "user", [block]
    if message.role == "assistant":
        blocks = [{"type": "text", "text": message.content}] if message.content else []
        return "assistant", blocks + [_tool_use(c) for c in message.tool_calls]
    return "user", ([{"type": "text", "text": message.content}] if message.content else [])


def _append(out: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if not blocks:
        return
    if out and out[-1]["role"] == role:
        out[-1]["content"].extend(blocks)
    else:
        out.append({"role": role, "content": list(blocks)})


def _replay(out: list[dict[str, Any]], stored: Any) -> None:
    for item in stored if isinstance(stored, list) else [stored]:
        content = item.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
        _append(out, str(item.get("role", "assistant")), blocks)


def wire_messages(request: ModelRequest, *, breakpoints: int = 2) -> list[dict[str, Any]]:
    """The ``messages`` array with ``cache_control`` on the last ``breakpoints`` user turns."""
    out: list[dict[str, Any]] = []
    for message in request.messages:
        stored = replay_wire(message, NAME)
        if stored is not None:
            _replay(out, stored)
        else:
            _append(out, *_blocks(message))
    marked = 0
    for wire in reversed(out):
        if marked >= breakpoints:
            break
        if wire["role"] == "user" and wire["content"]:
            wire["content"][-1] = {**wire["content"][-1], "cache_control": dict(EPHEMERAL)}
            marked += 1
    return out


def build_payload(request: ModelRequest, *, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body for ``POST /v1/messages`` (without ``extra_body``)."""
    config = config or {}
    system = system_blocks(request) if config.get("prompt_caching", True) else [
        {"type": "text", "text": request.system_text}] if request.system_text else []
    budget = MAX_BREAKPOINTS - sum(1 for b in system if "cache_control" in b)
    if not config.get("prompt_caching", True):
        budget = 0
    payload: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens or int(config.get("max_tokens", 8192)),
    }
    if system:
        payload["system"] = system
    payload["messages"] = wire_messages(request, breakpoints=min(2, budget))
    if request.tools:
        payload["tools"] = [{"name": t.name, "description": t.description,
                             "input_schema": json_plain(t.parameters)} for t in request.tools]
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.stream:
        payload["stream"] = True
    return payload
