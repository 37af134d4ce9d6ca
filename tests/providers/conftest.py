"""Fixtures for the provider plugin tests: the fake LLM server and the three API modes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from talaria import Credential, Delta, Message, ModelRequest, PromptSection, ToolSpec
from talaria.testing import load_plugin_module
from talaria.testing.fakes import FakeLLMServer

WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture(autouse=True)
def _home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TALARIA_HOME", str(tmp_path))


@pytest.fixture(scope="session")
def fake_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def fake(fake_server: FakeLLMServer) -> Iterator[FakeLLMServer]:
    """The shared fake server, emptied before and after each test."""
    fake_server.reset()
    yield fake_server
    fake_server.reset()


@dataclass
class ModeCase:
    """One API mode under test, pointed at the fake server."""

    name: str
    mode: Any
    base_url: str
    deltas: list[Delta]

    def request(self, *messages: Message, **overrides: Any) -> ModelRequest:
        fields: dict[str, Any] = {
            "provider": "fakeprov", "model": "fake-model", "base_url": self.base_url,
            "system": (PromptSection(tier="stable", text="You are a test assistant."),),
            "messages": messages or (Message(role="user", content="Hello?"),),
            "stall_timeout": 5.0, "timeout": 20.0,
        }
        fields.update(overrides)
        return ModelRequest(**fields)

    async def complete(self, request: ModelRequest, key: str | None = "sk-test-key") -> Any:
        return await self.mode.complete(request, Credential(provider="fakeprov", key=key, id="k1"),
                                        self.deltas.append)


def make_mode(name: str, config: dict[str, Any] | None = None) -> Any:
    if name == "anthropic_messages":
        return load_plugin_module("anthropic").AnthropicMessagesMode(config or {})
    module = load_plugin_module("openai")
    cls = module.ChatCompletionsMode if name == "chat_completions" else module.ResponsesMode
    return cls(config or {})


MODES = ("chat_completions", "responses", "anthropic_messages")


@pytest.fixture(params=MODES)
async def case(request: pytest.FixtureRequest, fake: FakeLLMServer) -> Any:
    name = request.param
    base = fake.anthropic_base_url if name == "anthropic_messages" else fake.openai_base_url
    mode = make_mode(name)
    yield ModeCase(name=name, mode=mode, base_url=base, deltas=[])
    await mode.aclose()
