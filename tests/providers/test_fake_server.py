"""The fake LLM server itself: defaults, scripting, recording, control endpoints, standalone run."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
import pytest

from talaria.testing.fakes import DEFAULT_TEXT, FakeLLMServer, FakeToolCall, FakeUsage, Fault, Reply, load_script

pytestmark = pytest.mark.slow  # servers and processes

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_default_reply_on_every_wire_format(fake) -> None:
    with httpx.Client(base_url=fake.base_url) as client:
        chat = client.post("/v1/chat/completions", json=CHAT).json()
        responses = client.post("/v1/responses", json={"model": "m", "input": "hi"}).json()
        messages = client.post("/v1/messages", json={"model": "m", "max_tokens": 5, "messages": CHAT["messages"]}).json()
    assert chat["choices"][0]["message"]["content"] == DEFAULT_TEXT
    assert responses["output"][0]["content"][0]["text"] == DEFAULT_TEXT
    assert messages["content"][0]["text"] == DEFAULT_TEXT
    assert [r.wire for r in fake.requests] == ["chat", "responses", "anthropic"]


def test_requests_are_recorded_with_headers_body_and_arrival_time(fake) -> None:
    before = time.time()
    with httpx.Client(base_url=fake.base_url) as client:
        client.post("/v1/chat/completions", json=CHAT, headers={"X-Probe": "1"})
    seen = fake.last_request
    assert seen.headers["x-probe"] == "1"
    assert seen.json == CHAT and json.loads(seen.body) == CHAT
    assert before <= fake.first_request_at <= time.time()


def test_chat_stream_has_usage_chunk_and_done(fake) -> None:
    fake.queue(Reply(text="a b", usage=FakeUsage(input_tokens=5, cache_read_tokens=3)))
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
    with httpx.Client(base_url=fake.base_url) as client:
        text = client.post("/v1/chat/completions", json=body).text
    events = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    usage = json.loads(events[-2])["usage"]
    assert usage["prompt_tokens"] == 8 and usage["prompt_tokens_details"]["cached_tokens"] == 3


def test_anthropic_stream_event_sequence(fake) -> None:
    fake.queue(Reply(text="hi there", tool_calls=[FakeToolCall(name="f", arguments={"a": 1})]))
    body = {"model": "m", "max_tokens": 5, "messages": CHAT["messages"], "stream": True}
    with httpx.Client(base_url=fake.base_url) as client:
        text = client.post("/v1/messages", json=body).text
    kinds = [line[7:] for line in text.splitlines() if line.startswith("event: ")]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert "input_json_delta" in text and kinds.count("content_block_start") == 2


def test_reply_function_sees_the_request() -> None:
    seen = []

    def reply(request_json):
        seen.append(request_json["model"])
        return Reply(text=f"echo {request_json['model']}")

    with FakeLLMServer(reply=reply) as server, httpx.Client(base_url=server.base_url) as client:
        data = client.post("/v1/chat/completions", json=CHAT).json()
    assert data["choices"][0]["message"]["content"] == "echo m" and seen == ["m"]


def test_queued_replies_come_first_in_order(fake) -> None:
    fake.queue(Reply(text="one"), Reply(text="two"))
    with httpx.Client(base_url=fake.base_url) as client:
        texts = [client.post("/v1/chat/completions", json=CHAT).json()["choices"][0]["message"]["content"]
                 for _ in range(3)]
    assert texts == ["one", "two", DEFAULT_TEXT]


def test_status_fault_body_and_headers(fake) -> None:
    fake.queue(Reply.rate_limited(retry_after=2), Reply.context_overflow())
    with httpx.Client(base_url=fake.base_url) as client:
        limited = client.post("/v1/messages", json=CHAT)
        overflow = client.post("/v1/messages", json=CHAT)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert limited.json()["error"]["type"] == "rate_limit_error"
    assert overflow.status_code == 400
    assert overflow.json()["error"]["message"].startswith("prompt is too long")


def test_control_endpoints(fake) -> None:
    with httpx.Client(base_url=fake.base_url) as client:
        queued = client.post("/_fake/replies", json=[{"text": "scripted"}]).json()
        assert queued == {"queued": 1, "pending": 1}
        answer = client.post("/v1/chat/completions", json=CHAT).json()
        recorded = client.get("/_fake/requests").json()
        client.post("/_fake/reset")
        after = client.get("/_fake/requests").json()
    assert answer["choices"][0]["message"]["content"] == "scripted"
    assert recorded[0]["json"] == CHAT and recorded[0]["path"] == "/v1/chat/completions"
    assert after == []


def test_reply_json_round_trip(tmp_path) -> None:
    reply = Reply(text="t", tool_calls=(FakeToolCall(name="f", arguments={"x": 1}, id="c1"),),
                  usage=FakeUsage(input_tokens=3, cache_read_tokens=2), delay=0.1,
                  fault=Fault(kind="status", status=429, retry_after=1.0))
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [reply.to_json(), "just text"]}))
    assert load_script(script) == [reply, Reply(text="just text")]
    with pytest.raises(ValueError, match="unknown reply field"):
        Reply.from_json({"txt": "typo"})


def test_standalone_server_runs_a_script(tmp_path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "from the script"}]))
    proc = subprocess.Popen([sys.executable, "-m", "talaria.testing.fakes", "--port", "0", "--script", str(script)],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("fake-llm listening on http://127.0.0.1:")
        base = line.rsplit(" ", 1)[1]
        with httpx.Client(base_url=base, timeout=10) as client:
            first = client.post("/v1/chat/completions", json=CHAT).json()
            second = client.post("/v1/chat/completions", json=CHAT).json()
        assert first["choices"][0]["message"]["content"] == "from the script"
        assert second["choices"][0]["message"]["content"] == DEFAULT_TEXT
    finally:
        proc.terminate()
        proc.wait(10)
