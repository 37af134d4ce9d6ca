"""The model-call stage: resolve the chain, build requests, call through the policy.

The engine hands :func:`talaria.providers.policy.call_with_policy` a ``build_request``
closure that runs preflight (compression) for the target model and builds its request
from the stored transcript — so a fallback to another provider goes back to preflight
and rebuilds wire messages for the new model (DESIGN §4, invariant 5).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..types import Delta, Event, Message, ModelRequest, ModelResponse, PromptSection, Tool

if TYPE_CHECKING:
    from .state import TurnHost, TurnState

__all__ = ["ModelLayer"]

DEFAULT_MAX_TOKENS = 8192


class ModelLayer:
    """Provider access for one runtime (API-mode instances are cached and closed here)."""

    def __init__(self, runtime: TurnHost) -> None:
        self.runtime = runtime
        self._modes: dict[str, Any] = {}
        self._pool: Any = None

    # ------------------------------------------------------------------ resolution

    @property
    def profiles(self) -> Mapping[str, Any]:
        return dict(self.runtime.kernel.registries.providers.items())

    def _stored_providers(self) -> set[str]:
        from ..providers.auth_store import load_keys

        try:
            return {k.provider for k in load_keys(self.runtime.kernel.home)}
        except Exception:
            return set()

    def chain(self, override: str | None = None) -> list[Any]:
        """The model to use followed by its fallbacks."""
        from ..providers.resolve import default_model_chain

        config = dict(self.runtime.config)
        if override:
            config["model"] = override
        return default_model_chain(
            config,
            os.environ,
            self.profiles,
            stored=self._stored_providers(),
            api_modes=self.runtime.kernel.registries.api_modes.names(),
        )

    def resolve(self, spec: str) -> Any:
        from ..providers.resolve import resolve_model

        return resolve_model(spec, self.profiles, self.runtime.config, os.environ,
                             api_modes=self.runtime.kernel.registries.api_modes.names())

    @property
    def pool(self) -> Any:
        if self._pool is None:
            from ..providers.credentials import CredentialPool

            self._pool = CredentialPool(self.runtime.kernel.home, self.runtime.config)
        return self._pool

    def api_mode(self, name: str) -> Any:
        mode = self._modes.get(name)
        if mode is None:
            factory = self.runtime.kernel.registries.api_modes.get(name)
            if factory is None:
                known = ", ".join(self.runtime.kernel.registries.api_modes.names()) or "none"
                raise ConfigError(f"API mode '{name}' is not registered (known: {known}); is its plugin disabled?")
            section = self.runtime.config.get("api_modes", {}).get(name, {})
            mode = self._modes[name] = factory(section)
        return mode

    async def aclose(self) -> None:
        for mode in self._modes.values():
            close = getattr(mode, "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception:
                    pass
        self._modes.clear()

    # ------------------------------------------------------------------ requests

    def build(self, resolved: Any, system: Sequence[PromptSection], messages: Sequence[Message],
              tools: Sequence[Tool], *, purpose: str = "turn", session_id: str | None = None,
              max_tokens: int | None = None) -> ModelRequest:
        turn_cfg = self.runtime.config.get("turn", {})
        limit = max_tokens or int(turn_cfg.get("max_tokens", DEFAULT_MAX_TOKENS))
        if resolved.max_output:
            limit = min(limit, resolved.max_output)
        profile = resolved.profile
        return ModelRequest(
            provider=resolved.provider,
            model=resolved.model_id,
            system=tuple(system),
            messages=tuple(messages),
            tools=tuple(t.spec for t in tools),
            max_tokens=limit,
            base_url=profile.base_url,
            headers=dict(profile.default_headers),
            extra_body=dict(profile.extra_body),
            timeout=float(turn_cfg.get("request_timeout", 600)),
            stall_timeout=float(turn_cfg.get("stall_timeout", 60)),
            purpose=purpose,
            session_id=session_id,
        )

    async def call(self, state: TurnState, offered: Mapping[str, Tool]) -> Any:
        """One model call for the turn, with retry, rotation, fallback and overflow handling."""
        from ..providers.policy import RetrySettings, call_with_policy

        runtime = self.runtime
        tools = list(offered.values())

        async def build_request(resolved: Any) -> ModelRequest:
            await runtime.compactor.preflight(state, resolved)
            return self.build(resolved, state.info_system, state.api_messages(), tools, session_id=state.session.id)

        def on_delta(delta: Delta) -> None:
            kind = "text_delta" if delta.kind == "text" else f"{delta.kind}_delta"
            runtime.emit(Event(kind=kind, session_id=state.session.id, turn_id=state.turn_id,
                               data={"text": delta.text, "index": delta.index, "name": delta.name}))

        async def on_overflow(resolved: Any) -> bool:
            return await runtime.compactor.on_overflow(state, resolved)

        async def on_attempt(request: ModelRequest) -> None:
            runtime.emit(Event(kind="model_call", session_id=state.session.id, turn_id=state.turn_id,
                               data={"provider": request.provider, "model": request.model}))
            await runtime.kernel.hooks.notify("pre_llm_call", request=request)

        outcome = await call_with_policy(
            state.chain,
            build_request=build_request,
            get_api_mode=self.api_mode,
            pool=self.pool,
            on_delta=on_delta,
            emit=runtime._emitter(state),
            on_overflow=on_overflow,
            settings=RetrySettings.from_config(runtime.config),
            on_attempt=on_attempt,
        )
        await runtime.kernel.hooks.notify("post_llm_call", request=outcome.request, response=outcome.response)
        state.pending_usage.append(usage_entry(outcome.served_by, outcome.response))
        return outcome

    # ------------------------------------------------------------------ plugin access

    async def complete_for_plugin(
        self,
        messages: Sequence[Message] | str,
        *,
        system: str = "",
        model: str | None = None,
        max_tokens: int = 1024,
        purpose: str = "plugin",
    ) -> ModelResponse:
        """Ask a model outside a turn (summaries, MCP sampling). Retries and fallback apply."""
        from ..providers.policy import RetrySettings, call_with_policy

        if isinstance(messages, str):
            messages = [Message(role="user", content=messages)]
        chain = [self.resolve(model)] if model else self.chain(self.runtime.config.get("aux_model"))
        sections = (PromptSection(tier="stable", text=system, source="caller"),) if system else ()

        async def build_request(resolved: Any) -> ModelRequest:
            return self.build(resolved, sections, list(messages), (), purpose=purpose, max_tokens=max_tokens)

        outcome = await call_with_policy(
            chain,
            build_request=build_request,
            get_api_mode=self.api_mode,
            pool=self.pool,
            on_delta=lambda delta: None,
            emit=self.runtime.emit,
            on_overflow=None,
            settings=RetrySettings.from_config(self.runtime.config),
        )
        return outcome.response


def usage_entry(resolved: Any, response: ModelResponse) -> tuple[str, str, Any, float | None]:
    """``(provider, model, usage, cost)`` of one call, stored with the message it produced."""
    from ..providers.cost import cost_of

    try:
        cost = cost_of(response.usage, resolved.model_info, model=resolved.model_id)
    except Exception:
        cost = None
    return resolved.provider, resolved.model_id, response.usage, cost
