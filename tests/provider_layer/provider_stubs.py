"""Helpers for provider-layer tests: profiles, a fake clock, a scripted API mode."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from talaria import (
    Credential,
    Delta,
    ErrorKind,
    ModelInfo,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderProfile,
    Usage,
)


def make_registry() -> dict[str, ProviderProfile]:
    """Profiles shaped like the bundled ones (the real ones live in plugins)."""
    return {
        "openai": ProviderProfile(
            name="openai", api_mode="responses", base_url="https://api.openai.com/v1",
            key_env=("OPENAI_API_KEY",), default_model="gpt-4.1-mini",
            models=(ModelInfo(id="gpt-4.1-mini", context_window=1_047_576, max_output=32_768,
                              aliases=("mini",)),
                    ModelInfo(id="gpt-4.1", context_window=1_047_576, max_output=32_768)),
        ),
        "anthropic": ProviderProfile(
            name="anthropic", api_mode="anthropic_messages", base_url="https://api.anthropic.com",
            key_env=("ANTHROPIC_API_KEY",), aliases=("claude",), default_model="claude-sonnet-4-5",
            models=(ModelInfo(id="claude-sonnet-4-5", context_window=200_000, max_output=64_000,
                              aliases=("claude-sonnet", "sonnet"),
                              input_price=3.0, output_price=15.0, cache_read_price=0.3,
                              cache_write_price=3.75),),
        ),
        "openrouter": ProviderProfile(
            name="openrouter", base_url="https://openrouter.ai/api/v1",
            key_env=("OPENROUTER_API_KEY",), default_model="anthropic/claude-sonnet-4.5",
            context_window=200_000,
            models=(ModelInfo(id="anthropic/claude-sonnet-4.5", context_window=1_000_000),),
        ),
        "ollama": ProviderProfile(
            name="ollama", base_url="http://127.0.0.1:11434/v1", keyless=True,
            default_model="llama3.2",
        ),
    }






class FakeClock:
    """Wall clock for the pool plus an ``async sleep`` that advances it and records delays."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)
        self.now += delay




Step = ProviderError | ModelResponse | Callable[[ModelRequest, Credential], ModelResponse]


class ScriptedApiMode:
    """An ApiMode that plays a script: each call takes the next step (error or response).

    Records every call as ``(request, credential)``; streams the response text as one delta.
    """

    def __init__(self, name: str, steps: Iterable[Step] = ()) -> None:
        self.name = name
        self.steps = list(steps)
        self.calls: list[tuple[ModelRequest, Credential]] = []

    async def complete(self, request: ModelRequest, credential: Credential,
                       on_delta: Callable[[Delta], None]) -> ModelResponse:
        self.calls.append((request, credential))
        if not self.steps:
            raise AssertionError(f"{self.name}: unexpected extra call")
        step = self.steps.pop(0)
        if isinstance(step, ProviderError):
            on_delta(Delta(kind="text", text="partial"))
            raise step
        if callable(step):
            step = step(request, credential)
        on_delta(Delta(kind="text", text=step.text))
        return step

    async def aclose(self) -> None:
        return None


def ok(text: str = "hello", **kw) -> ModelResponse:
    return ModelResponse(text=text, usage=Usage(input_tokens=10, output_tokens=2), **kw)


def err(kind: str, *, status: int | None = None, retry_after: float | None = None,
        usage: Usage | None = None) -> ProviderError:
    e = ProviderError(ErrorKind(kind), f"scripted {kind}", status=status, retry_after=retry_after)
    if usage is not None:
        e.usage = usage  # an API mode may attach the usage of a failed (e.g. truncated) call
    return e
