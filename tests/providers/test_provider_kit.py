"""The public building blocks for provider and API-mode plugins (``talaria.profiles_from_toml``,
``run_model_call``, ``stall_bounded``, ``SdkClientCache`` and the wire conversions), used the
way a third-party API mode uses them: with a toy SDK, no server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from talaria import (
    Credential,
    Delta,
    ErrorKind,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    RegistrationError,
    SdkClientCache,
    ToolCall,
    json_plain,
    parse_tool_arguments,
    profiles_from_toml,
    replay_wire,
    run_model_call,
    sdk_field,
    stall_bounded,
    tool_arguments_json,
    tool_call_from_wire,
)


def request(**overrides: Any) -> ModelRequest:
    fields: dict[str, Any] = {"provider": "toy", "model": "toy-1", "messages": (Message(role="user", content="hi"),),
                              "timeout": 5.0, "stall_timeout": 5.0}
    fields.update(overrides)
    return ModelRequest(**fields)


class ToyStream:
    """An SDK-like async stream: yields ``items`` with ``gap`` seconds before each."""

    def __init__(self, items: list[Any], gap: float = 0.0) -> None:
        self.items, self.gap, self.closed = list(items), gap, False

    def __aiter__(self) -> ToyStream:
        return self

    async def __anext__(self) -> Any:
        if not self.items:
            raise StopAsyncIteration
        await asyncio.sleep(self.gap)
        return self.items.pop(0)

    async def close(self) -> None:
        self.closed = True


# ------------------------------------------------------------------ profiles_from_toml

def test_profiles_from_toml_builds_profiles_in_file_order(tmp_path) -> None:
    table = tmp_path / "profiles.toml"
    table.write_text(
        '[acme]\napi_mode = "chat_completions"\nbase_url = "https://api.acme.test/v1"\nkey_env = "ACME_API_KEY"\n'
        'default_model = "acme-large"\ncontext_window = 131072\ndefault_headers = { "X-Client" = "talaria" }\n'
        'models = [{ id = "acme-large", aliases = ["large"], capabilities = ["tools"], input_price = 0.5 }]\n'
        '[acme-local]\nbase_url = "http://127.0.0.1:9000/v1"\nkeyless = true\n', encoding="utf-8")
    acme, local = profiles_from_toml(table)
    assert (acme.name, local.name) == ("acme", "acme-local")
    assert acme.key_env == ("ACME_API_KEY",) and acme.default_headers == {"X-Client": "talaria"}
    model = acme.model_info("large")
    assert model is not None and model.id == "acme-large" and model.capabilities == frozenset({"tools"})
    assert local.keyless and local.models == ()


@pytest.mark.parametrize("text,needle", [
    ('[acme]\nbase_ulr = "x"\n', "base_ulr"),
    ('[acme]\nmodels = [{ id = "m", windoww = 3 }]\n', "windoww"),
    ('[acme]\nmodels = ["just-an-id"]\n', "id ="),
    ('[acme]\nkey_env = 3\n', "key_env"),
    ('[acme\n', "cannot read"),
])
def test_profiles_from_toml_reports_mistakes_by_name(tmp_path, text, needle) -> None:
    table = tmp_path / "profiles.toml"
    table.write_text(text, encoding="utf-8")
    with pytest.raises(RegistrationError, match=needle):
        profiles_from_toml(table)


def test_profiles_from_toml_missing_file_is_a_registration_error(tmp_path) -> None:
    with pytest.raises(RegistrationError, match="nope.toml"):
        profiles_from_toml(tmp_path / "nope.toml")


# ------------------------------------------------------------------ run_model_call

async def test_run_model_call_forwards_deltas_and_returns_the_response() -> None:
    seen: list[Delta] = []

    async def call(emit):
        emit(Delta(kind="text", text="he"))
        emit(Delta(kind="text", text="llo"))
        return ModelResponse(text="hello", provider="toy", model="toy-1")

    response = await run_model_call(request(), seen.append, call)
    assert response.text == "hello" and "".join(d.text for d in seen) == "hello"


async def test_run_model_call_classifies_sdk_failures_and_keeps_the_cause() -> None:
    class APIStatusError(Exception):
        status_code = 529
        body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

    async def call(emit):
        raise APIStatusError("boom")

    with pytest.raises(ProviderError) as info:
        await run_model_call(request(), None, call)
    assert info.value.kind is ErrorKind.OVERLOADED and info.value.provider == "toy"
    assert isinstance(info.value.__cause__, APIStatusError)


async def test_run_model_call_bounds_the_whole_call() -> None:
    async def call(emit):
        await asyncio.sleep(30)

    with pytest.raises(ProviderError) as info:
        await run_model_call(request(timeout=0.05), None, call)
    assert info.value.kind is ErrorKind.TIMEOUT and "0.05 s" in str(info.value)


async def test_run_model_call_lets_the_observers_own_errors_through() -> None:
    class ObserverBug(Exception):
        pass

    def on_delta(delta: Delta) -> None:
        raise ObserverBug("not the provider's fault")

    async def call(emit):
        emit(Delta(kind="text", text="x"))
        return ModelResponse(text="x")

    with pytest.raises(ObserverBug):
        await run_model_call(request(), on_delta, call)


# ------------------------------------------------------------------ stall_bounded

async def test_stall_bounded_yields_items_and_closes_the_stream() -> None:
    stream = ToyStream(["a", "b", "c"])
    async with stall_bounded(stream, request()) as items:
        got = [item async for item in items]
    assert got == ["a", "b", "c"] and stream.closed


async def test_stall_bounded_cuts_a_silent_stream_and_still_closes_it() -> None:
    stream = ToyStream(["a", "b"], gap=0.3)
    got = []
    with pytest.raises(ProviderError) as info:
        async with stall_bounded(stream, request(stall_timeout=0.05)) as items:
            async for item in items:
                got.append(item)
    assert info.value.kind is ErrorKind.TIMEOUT and "stalled" in str(info.value)
    assert stream.closed and got == []


async def test_stall_bounded_bounds_each_gap_not_the_whole_stream() -> None:
    stream = ToyStream(list(range(6)), gap=0.03)
    async with stall_bounded(stream, request(stall_timeout=0.1)) as items:
        assert [i async for i in items] == list(range(6))  # 0.18 s in total, every gap < 0.1 s


# ------------------------------------------------------------------ SdkClientCache

async def test_sdk_client_cache_reuses_a_client_per_url_and_key_and_closes_all() -> None:
    made: list[Any] = []

    class Client:
        def __init__(self, base_url: str, key: str) -> None:
            self.base_url, self.key, self.closed = base_url, key, False
            made.append(self)

        async def close(self) -> None:
            self.closed = True

    cache = SdkClientCache(Client)
    one = cache.get("http://a/v1", Credential(provider="p", key="k1"))
    assert cache.get("http://a/v1", Credential(provider="p", key="k1")) is one
    other_key = cache.get("http://a/v1", Credential(provider="p", key="k2"))
    keyless = cache.get("http://b/v1", Credential(provider="p", key=None))
    assert len(made) == 3 and other_key is not one and keyless.key == "no-key"
    await cache.aclose()
    assert all(c.closed for c in made)
    assert cache.get("http://a/v1", Credential(provider="p", key="k1")) is not one  # a fresh one after aclose


# ------------------------------------------------------------------ wire conversions

def test_tool_arguments_round_trip_and_broken_json_is_kept_verbatim() -> None:
    assert parse_tool_arguments('{"city": "Paris"}') == ({"city": "Paris"}, None)
    assert parse_tool_arguments("") == ({}, None) and parse_tool_arguments(None) == ({}, None)
    assert parse_tool_arguments('{"city": "Par') == ({}, '{"city": "Par')
    assert parse_tool_arguments("[1, 2]") == ({}, "[1, 2]")
    good = tool_call_from_wire("call_1", "get_weather", '{"city":"Paris"}', "call_0")
    assert good == ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
    assert tool_arguments_json(good) == '{"city":"Paris"}'
    broken = tool_call_from_wire(None, "get_weather", '{"city": "Par', "call_7")
    assert broken.id == "call_7" and broken.raw_arguments == '{"city": "Par'
    assert tool_arguments_json(broken) == '{"city": "Par'  # replayed as the model sent it


def test_replay_wire_only_for_the_mode_that_produced_it() -> None:
    wire = ({"type": "reasoning", "encrypted_content": "…"},)
    message = Message(role="assistant", content="", api_content={"api_mode": "responses", "wire": wire})
    assert replay_wire(message, "responses") == [{"type": "reasoning", "encrypted_content": "…"}]
    assert replay_wire(message, "chat_completions") is None
    assert replay_wire(Message(role="assistant", content="hi"), "responses") is None


def test_sdk_field_reads_models_extras_and_mappings() -> None:
    class Model:
        content = "text"
        missing = None
        model_extra = {"reasoning_content": "because"}

    assert sdk_field(Model(), "content") == "text"
    assert sdk_field(Model(), "reasoning_content") == "because"
    assert sdk_field(Model(), "missing", "default") == "default"
    assert sdk_field({"a": None}, "a", 0) == 0 and sdk_field(None, "a", 1) == 1
    assert json_plain({"t": (1, {"x": (2,)})}) == {"t": [1, {"x": [2]}]}
    nested = {"a": None, "b": [{"c": None, "d": 1}, None], "e": {"f": None}}
    assert json_plain(nested) == {"a": None, "b": [{"c": None, "d": 1}, None], "e": {"f": None}}
    assert json_plain(nested, drop_none=True) == {"b": [{"d": 1}, None], "e": {}}  # list items stay in place


def test_plaintext_client_options_only_for_http_endpoints() -> None:
    import openai

    from talaria import plaintext_client_options

    assert plaintext_client_options(openai, "https://api.openai.com/v1") == {}
    options = plaintext_client_options(openai, "HTTP://127.0.0.1:11434/v1")
    assert set(options) == {"http_client"} and options["http_client"].follow_redirects is False
