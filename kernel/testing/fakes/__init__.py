"""A local fake LLM server speaking the OpenAI Chat Completions, OpenAI Responses and
Anthropic Messages wire formats, streaming included, with scripted replies and faults.

::

    from talaria.testing.fakes import FakeLLMServer, FakeToolCall, Reply

    with FakeLLMServer([Reply(tool_calls=[FakeToolCall(name="get_weather",
                                                       arguments={"city": "Paris"})]),
                        Reply(text="It is sunny.")]) as srv:
        ...  # point an SDK at srv.openai_base_url or srv.anthropic_base_url
        srv.requests[-1].json  # what reached the wire

Standalone: ``python -m talaria.testing.fakes --port 8765 [--script replies.json]``.
"""

from __future__ import annotations

from .app import FakeLLMApp, RecordedRequest
from .script import DEFAULT_TEXT, FakeToolCall, FakeUsage, Fault, Reply, load_script
from .server import FakeLLMServer

__all__ = [
    "DEFAULT_TEXT",
    "FakeLLMApp",
    "FakeLLMServer",
    "FakeToolCall",
    "FakeUsage",
    "Fault",
    "RecordedRequest",
    "Reply",
    "load_script",
]
