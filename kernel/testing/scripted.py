"""A scripted, in-process model for tests: an :class:`~talaria.ApiMode` that answers
from a queue (or a function of the request) and records every request it got."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ErrorKind, ProviderError
from ..types import Credential, Delta, ModelInfo, ModelRequest, ModelResponse, ProviderProfile, ToolCall, Usage, new_id

__all__ = ["ScriptedModel", "reply", "tool_call"]

Script = ModelResponse | str | Exception | Callable[[ModelRequest], Any]


def tool_call(name: str, arguments: Mapping[str, Any] | None = None, *, id: str | None = None) -> ToolCall:
    """A tool call for a scripted response."""
    return ToolCall(id=id or new_id("call_"), name=name, arguments=dict(arguments or {}))


def reply(text: str = "", *calls: ToolCall, usage: Usage | None = None, finish: str | None = None) -> ModelResponse:
    """A scripted response: text, and/or tool calls."""
    return ModelResponse(
        text=text,
        tool_calls=tuple(calls),
        finish_reason=finish or ("tool_calls" if calls else "stop"),  # type: ignore[arg-type]
        usage=usage or Usage(input_tokens=10, output_tokens=5),
    )


class ScriptedModel:
    """Answers requests in order from ``script`` (responses, texts, exceptions or callables).

    Use :meth:`plugin` to get a plugin object registering the ``scripted`` provider (model
    ``scripted/test``) and this instance as the ``scripted`` API mode. ``requests`` keeps
    every :class:`ModelRequest` received, so tests can check what reached the "wire".
    When the queue is empty, ``default`` answers (a text) — or an error if it is None.
    """

    name = "scripted"

    def __init__(self, *script: Script, default: str | None = "ok", context_window: int = 100_000,
                 delay: float = 0.0) -> None:
        self.queue: deque[Script] = deque(script)
        self.requests: list[ModelRequest] = []
        self.default = default
        self.context_window = context_window
        self.delay = delay

    def add(self, *script: Script) -> None:
        self.queue.extend(script)

    async def complete(self, request: ModelRequest, credential: Credential, on_delta: Callable[[Delta], None]) -> ModelResponse:
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        item: Any = self.queue.popleft() if self.queue else self.default
        if item is None:
            raise ProviderError(ErrorKind.BAD_REQUEST, "scripted model: script exhausted", provider="scripted")
        if callable(item) and not isinstance(item, ModelResponse):
            item = item(request)
            if inspect.isawaitable(item):
                item = await item
        if isinstance(item, Exception):
            raise item
        response = reply(item) if isinstance(item, str) else item
        if response.text:
            on_delta(Delta(kind="text", text=response.text))
        return ModelResponse(
            text=response.text, tool_calls=response.tool_calls, finish_reason=response.finish_reason,
            raw_finish_reason=response.raw_finish_reason, usage=response.usage, provider=request.provider,
            model=request.model, api_mode=self.name, api_content=response.api_content,
        )

    async def aclose(self) -> None:
        return None

    def wire(self, index: int = -1) -> str:
        """A canonical JSON rendering of request ``index`` (system + messages + tools)."""
        request = self.requests[index]
        return json.dumps(_request_json(request), sort_keys=True, ensure_ascii=False)

    def plugin(self, *, name: str = "scripted") -> tuple[str, object]:
        """``(plugin name, plugin object)`` for ``load_kernel(explicit=[...])``."""
        model = self

        class _Plugin:
            from .. import hookimpl as _hookimpl

            @_hookimpl
            def register_providers(self, register: Any) -> None:
                register(ProviderProfile(
                    name="scripted", api_mode="scripted", keyless=True, default_model="test",
                    base_url="http://scripted.invalid",
                    models=(ModelInfo(id="test", context_window=model.context_window, max_output=4096),
                            ModelInfo(id="backup", context_window=model.context_window, max_output=4096)),
                ))

            @_hookimpl
            def register_api_modes(self, register: Any) -> None:
                factory = lambda config: model  # noqa: E731 - one shared instance
                factory.name = "scripted"  # type: ignore[attr-defined]
                factory.complete = model.complete  # type: ignore[attr-defined]
                register(factory)

        return name, _Plugin()


def _request_json(request: ModelRequest) -> dict[str, Any]:
    return {
        "system": [[s.tier, s.text] for s in request.system],
        "messages": [
            {"role": m.role, "content": m.content, "tool_call_id": m.tool_call_id,
             "tool_calls": [[c.id, c.name, dict(c.arguments)] for c in m.tool_calls]}
            for m in request.messages
        ],
        "tools": [[t.name, t.description, dict(t.parameters)] for t in request.tools],
    }
