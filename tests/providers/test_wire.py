"""Wire conversion: deterministic, byte-stable, prefix-extending; Anthropic cache breakpoints."""

from __future__ import annotations

import json

import pytest

from talaria import Message, ModelRequest, PromptSection, ToolCall
from talaria.testing import load_plugin_module

from .conftest import WEATHER

openai_plugin = load_plugin_module("openai")
anthropic_plugin = load_plugin_module("anthropic")

SYSTEM = (
    PromptSection(tier="stable", text="You are Talaria.", source="core"),
    PromptSection(tier="stable", text="Be terse.", source="style"),
    PromptSection(tier="context", text="Workspace: /tmp/project", source="workspace"),
    PromptSection(tier="volatile", text="Today is Monday.", source="time"),
)
CALL_A = ToolCall(id="call_a", name="get_weather", arguments={"city": "Paris", "units": "C"})
CALL_B = ToolCall(id="call_b", name="get_weather", arguments={}, raw_arguments="{oops")
TRANSCRIPT = (
    Message(role="user", content="Weather in Paris and Oslo?"),
    Message(role="assistant", content="Checking.", tool_calls=(CALL_A, CALL_B)),
    Message(role="tool", content="21C", tool_call_id="call_a", name="get_weather"),
    Message(role="tool", content="bad arguments", tool_call_id="call_b", name="get_weather", status="invalid"),
    Message(role="assistant", content="Paris is 21C."),
    Message(role="user", content="Thanks. Tomorrow?"),
)


def payload(mode: str, messages: tuple[Message, ...] = TRANSCRIPT, **kw) -> dict:
    request = ModelRequest(provider="p", model="m", system=SYSTEM, messages=messages, tools=(WEATHER,), **kw)
    if mode == "chat_completions":
        return openai_plugin.chat.build_payload(request, base_url="http://127.0.0.1:1/v1")
    if mode == "responses":
        return openai_plugin.responses.build_payload(request)
    return anthropic_plugin.wire.build_payload(request)


def transcript_of(mode: str, body: dict) -> list:
    return body["input"] if mode == "responses" else body["messages"]


MODES = ("chat_completions", "responses", "anthropic_messages")


@pytest.mark.parametrize("mode", MODES)
def test_same_messages_give_identical_bytes(mode) -> None:
    first = json.dumps(payload(mode))
    rebuilt = tuple(Message(**{f: getattr(m, f) for f in ("role", "content", "tool_calls", "tool_call_id",
                                                          "name", "status")}) for m in TRANSCRIPT)
    assert json.dumps(payload(mode, rebuilt)) == first  # fresh objects, new uids: same bytes
    assert json.dumps(payload(mode)) == first


@pytest.mark.parametrize("mode", ["chat_completions", "responses"])
def test_each_request_extends_the_previous_one(mode) -> None:
    shorter = transcript_of(mode, payload(mode, TRANSCRIPT[:4]))
    longer = transcript_of(mode, payload(mode))
    assert longer[: len(shorter)] == shorter
    assert json.dumps(longer)[: len(json.dumps(shorter)) - 1] == json.dumps(shorter)[:-1]


def test_anthropic_prefix_is_stable_apart_from_moving_breakpoints() -> None:
    def strip(messages: list) -> list:
        return [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]}
                for m in messages]

    shorter = strip(payload("anthropic_messages", TRANSCRIPT[:4])["messages"])
    longer = strip(payload("anthropic_messages")["messages"])
    assert longer[: len(shorter)] == shorter


def test_chat_wire_shape() -> None:
    messages = payload("chat_completions")["messages"]
    assert messages[0] == {"role": "system",
                           "content": "You are Talaria.\n\nBe terse.\n\nWorkspace: /tmp/project\n\nToday is Monday."}
    assert messages[2]["tool_calls"][0]["function"] == {"name": "get_weather",
                                                        "arguments": '{"city":"Paris","units":"C"}'}
    assert messages[2]["tool_calls"][1]["function"]["arguments"] == "{oops"  # what the model sent
    assert messages[3] == {"role": "tool", "tool_call_id": "call_a", "content": "21C"}
    assert messages[4] == {"role": "tool", "tool_call_id": "call_b", "content": "bad arguments"}


def test_chat_uses_max_completion_tokens_only_for_openai() -> None:
    request = ModelRequest(provider="p", model="m", max_tokens=50)
    build = openai_plugin.chat.build_payload
    assert build(request, base_url="https://api.openai.com/v1")["max_completion_tokens"] == 50
    assert build(request, base_url="http://127.0.0.1:11434/v1")["max_tokens"] == 50


def test_responses_wire_shape() -> None:
    body = payload("responses")
    assert body["instructions"].startswith("You are Talaria.")
    assert body["store"] is False
    items = body["input"]
    assert items[1] == {"role": "assistant", "content": "Checking."}
    assert items[2] == {"type": "function_call", "call_id": "call_a", "name": "get_weather",
                        "arguments": '{"city":"Paris","units":"C"}'}
    assert items[4] == {"type": "function_call_output", "call_id": "call_a", "output": "21C"}
    assert body["tools"][0]["strict"] is False


def test_anthropic_tool_results_merge_into_one_user_message() -> None:
    messages = payload("anthropic_messages")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    results = messages[2]["content"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result"]
    assert results[1]["is_error"] is True and "is_error" not in results[0]
    assert messages[1]["content"][2]["input"] == {}  # unparseable arguments: empty object


def _breakpoints(body: dict) -> list[str]:
    where = [f"system:{i}" for i, b in enumerate(body.get("system", [])) if "cache_control" in b]
    for i, message in enumerate(body["messages"]):
        for j, block in enumerate(message["content"]):
            if "cache_control" in block:
                where.append(f"{message['role']}:{i}:{j}")
    return where


def test_anthropic_cache_breakpoints_sit_on_the_stable_prefix() -> None:
    body = payload("anthropic_messages")
    assert [b["text"] for b in body["system"]] == ["You are Talaria.\n\nBe terse.", "Workspace: /tmp/project",
                                                   "Today is Monday."]
    last = len(body["messages"]) - 1
    # stable tier, context tier, the last user turn and the one before it (tool results)
    assert _breakpoints(body) == ["system:0", "system:1", "user:2:1", f"user:{last}:0"]
    assert all(b["cache_control"] == {"type": "ephemeral"} for b in body["system"][:2])


@pytest.mark.parametrize("count", [1, 2, 5, 12])
def test_anthropic_never_uses_more_than_four_breakpoints(count) -> None:
    messages = tuple(Message(role="user" if i % 2 == 0 else "assistant", content=f"turn {i}")
                     for i in range(count))
    body = payload("anthropic_messages", messages)
    assert 1 <= len(_breakpoints(body)) <= 4
    assert _breakpoints(body)[-1].startswith("user:")


def test_anthropic_without_system_prompt_still_caches_the_last_turn() -> None:
    request = ModelRequest(provider="p", model="m", messages=(Message(role="user", content="hi"),))
    body = anthropic_plugin.wire.build_payload(request)
    assert "system" not in body
    assert body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.parametrize("mode", MODES)
def test_api_content_of_another_mode_is_not_replayed(mode) -> None:
    foreign = {"api_mode": "some_other_mode", "wire": {"role": "assistant", "content": "FOREIGN"}}
    messages = (Message(role="user", content="hi"),
                Message(role="assistant", content="hello", api_content=foreign),
                Message(role="user", content="again"))
    body = json.dumps(payload(mode, messages))
    assert "FOREIGN" not in body and "hello" in body


@pytest.mark.parametrize("mode", MODES)
def test_api_content_of_the_same_mode_is_replayed_verbatim(mode) -> None:
    if mode == "chat_completions":
        wire = {"role": "assistant", "content": "hello", "reasoning_content": "REPLAYED"}
    elif mode == "responses":
        wire = [{"type": "reasoning", "id": "rs_1", "encrypted_content": "REPLAYED", "summary": []},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}]
    else:
        wire = {"role": "assistant", "content": [{"type": "thinking", "thinking": "REPLAYED", "signature": "s"},
                                                 {"type": "text", "text": "hello"}]}
    messages = (Message(role="user", content="hi"),
                Message(role="assistant", content="hello", api_content={"api_mode": mode, "wire": wire}),
                Message(role="user", content="again"))
    body = payload(mode, messages)
    replay = transcript_of(mode, body)
    assert "REPLAYED" in json.dumps(body)
    if mode == "responses":
        assert replay[1:3] == wire
    elif mode == "chat_completions":
        assert replay[2] == wire  # after the system message and the first user turn
    else:
        assert replay[1] == wire
