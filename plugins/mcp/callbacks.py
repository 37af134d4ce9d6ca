"""Answers to server-initiated requests: sampling, elicitation, roots.

Contracts:

- **Sampling** (``sampling/createMessage``) is answered by ``services.complete`` with the
  server's configured model (or one of ``allowed_models`` the server hints at), at most
  ``max_tokens`` tokens, at most ``rpm`` requests per rolling minute. Disabled sampling is
  not advertised at all; no model, a limit hit or a failed call is an error to the server.
- **Elicitation** (form mode) is asked through ``services.elicit``; no one to ask, a
  ``None`` answer or URL mode is a ``decline``.
- **Roots** is the workspace, as one ``file://`` root.

Only called after ``mcp`` is imported (on connect), so importing it here is lazy enough.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from talaria import Message, Services

from .config import ServerConfig

__all__ = ["RateLimiter", "make_callbacks"]

log = logging.getLogger(__name__)


class RateLimiter:
    """At most ``limit`` events per rolling ``window`` seconds (``limit <= 0``: unlimited)."""

    def __init__(self, limit: int, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self._clock = limit, window, clock
        self._stamps: deque[float] = deque()

    def try_acquire(self) -> bool:
        """Record one event and return True, or return False when the limit is reached."""
        if self.limit <= 0:
            return True
        now = self._clock()
        while self._stamps and now - self._stamps[0] >= self.window:
            self._stamps.popleft()
        if len(self._stamps) >= self.limit:
            return False
        self._stamps.append(now)
        return True


def _content_text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    parts = []
    for block in blocks:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')} omitted]")
    return "\n".join(parts)


def _pick_model(cfg: ServerConfig, params: Any) -> str | None:
    allowed = cfg.sampling.allowed_models
    if allowed:
        hints = getattr(getattr(params, "model_preferences", None), "hints", None) or []
        for hint in hints:
            name = getattr(hint, "name", None) or ""
            for model in allowed:
                if name and name in model:
                    return model
        if cfg.sampling.model and cfg.sampling.model not in allowed:
            return allowed[0]
    return cfg.sampling.model


def make_callbacks(
    cfg: ServerConfig, services: Services, limiter: RateLimiter
) -> dict[str, Callable[..., Awaitable[Any]]]:
    """Build the ``ClientSession`` callbacks for one server (keys are its keyword names)."""
    import mcp_types as types

    def refuse(message: str) -> Any:
        log.info("MCP server %s: sampling refused: %s", cfg.name, message)
        return types.ErrorData(code=types.INVALID_REQUEST, message=message)

    async def sampling(context: Any, params: Any) -> Any:
        if services.complete is None:
            return refuse("sampling is not available: Talaria has no model configured")
        if not limiter.try_acquire():
            return refuse(f"sampling rate limit reached ({cfg.sampling.rpm} requests per minute)")
        messages = [
            Message(role="assistant" if m.role == "assistant" else "user", content=_content_text(m.content))
            for m in params.messages
        ]
        max_tokens = max(1, min(int(params.max_tokens or cfg.sampling.max_tokens), cfg.sampling.max_tokens))
        model = _pick_model(cfg, params)
        try:
            response = await services.complete(
                messages, system=params.system_prompt or "", model=model, max_tokens=max_tokens
            )
        except Exception as exc:  # a failed model call is the server's error, not ours
            return refuse(f"sampling failed: {exc}")
        served = "/".join(p for p in (response.provider, response.model) if p) or (model or "talaria")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=response.text),
            model=served,
            stop_reason="maxTokens" if response.finish_reason == "length" else "endTurn",
        )

    async def elicitation(context: Any, params: Any) -> Any:
        schema = getattr(params, "requested_schema", None)
        if services.elicit is None or getattr(params, "mode", "form") == "url" or schema is None:
            return types.ElicitResult(action="decline")
        message = f"[MCP server {cfg.name}] {params.message}"
        answers = await services.elicit(message, dict(schema))
        if answers is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=dict(answers))

    async def list_roots(context: Any) -> Any:
        workspace = services.workspace.resolve()
        return types.ListRootsResult(roots=[types.Root(uri=workspace.as_uri(), name=workspace.name or "workspace")])

    callbacks: dict[str, Callable[..., Awaitable[Any]]] = {
        "elicitation_callback": elicitation,
        "list_roots_callback": list_roots,
    }
    if cfg.sampling.enabled:
        callbacks["sampling_callback"] = sampling
    return callbacks
