"""Behaviour of the bundled ``sliding-window`` context engine (no model call)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ctx_transcripts import (
    ScriptedSummarizer,
    assert_pairs_intact,
    assistant,
    check_compaction,
    exchange,
    random_transcript,
    tool_round,
    user,
)

import talaria
from talaria import ConfigError
from talaria.kernel import load_kernel
from talaria.testing import load_plugin_module

mod = load_plugin_module("sliding_window")
Engine = mod.SlidingWindowEngine
NEVER = ScriptedSummarizer(error=AssertionError("sliding-window must never call the model"))


def estimate(messages: list[talaria.Message]) -> int:
    return mod.history.estimate_messages(messages)


def session(exchanges: int = 30) -> list[talaria.Message]:
    messages = [user("hello"), assistant("hi"), user("let us refactor")]
    for i in range(exchanges):
        messages += exchange([[4_000, 4_000], [2_000]], ask=f"step {i}", answer=f"did step {i}")
    messages.append(user("what is left?"))
    return messages


def notes(messages: tuple[talaria.Message, ...]) -> list[talaria.Message]:
    return [m for m in messages if m.meta.get("summary")]


def test_registers_an_engine_named_sliding_window(tmp_path: Path) -> None:
    kernel = load_kernel(home=tmp_path, workspace=tmp_path, config={})
    factory = kernel.registries.context_engines.get("sliding-window")
    assert factory is not None and factory.name == "sliding-window"
    engine = factory({"threshold": 0.5})
    assert type(engine) is Engine and engine.should_compress(50_000, 100_000)
    assert engine.name == "sliding-window" and isinstance(engine, talaria.ContextEngine)


def test_threshold_default_and_config() -> None:
    assert Engine({}).should_compress(80_000, 100_000)
    assert not Engine({}).should_compress(79_999, 100_000)
    assert Engine({"threshold": 0.5}).should_compress(50_000, 100_000)
    with pytest.raises(ConfigError, match="target_ratio"):
        Engine({"target_ratio": 0})
    with pytest.raises(ConfigError, match="windw"):
        Engine({"windw": 3})


async def test_drops_oldest_whole_exchanges_and_inserts_a_note() -> None:
    messages = session()
    engine = Engine({})
    out = await engine.compress(messages, context_window=40_000, summarize=NEVER)

    assert NEVER.calls == 0 and not out.made_model_call and out.summary is None
    check_compaction(messages, out, head=3)
    assert estimate(list(out.messages)) <= 0.6 * 40_000
    [note] = notes(out.messages)
    assert out.messages[3] is note and note.role == "user"
    count = int(re.search(r"(\d+) earlier messages were dropped", note.content).group(1))
    assert count == len(out.dropped) == note.meta["dropped_count"]
    # Whole exchanges: the first kept message after the note starts an exchange.
    assert out.messages[4].role == "user"
    # The oldest go first: what is kept after the note is a contiguous suffix of the input.
    kept = list(out.messages[4:])
    assert kept == messages[len(messages) - len(kept):]


async def test_under_target_is_unchanged() -> None:
    messages = session(exchanges=2)
    out = await Engine({}).compress(messages, context_window=1_000_000, summarize=NEVER)
    assert out.messages == tuple(messages) and out.dropped == ()


async def test_second_compaction_folds_the_earlier_note() -> None:
    engine = Engine({})
    first = await engine.compress(session(), context_window=40_000, summarize=NEVER)
    continued = list(first.messages)
    for i in range(10):
        continued += exchange([[4_000, 4_000]], ask=f"more {i}", answer="ok")
    second = await engine.compress(continued, context_window=40_000, summarize=NEVER)
    check_compaction(continued, second, head=3)
    [note] = notes(second.messages)
    assert note.meta["dropped_count"] == first.messages[3].meta["dropped_count"] + len(second.dropped) - 1


async def test_a_huge_latest_exchange_loses_old_tool_groups_but_not_its_question() -> None:
    messages = [user("hi"), assistant("hello"), user("big job")]
    messages += [user("run everything")]
    for _ in range(12):
        messages += tool_round([8_000, 8_000])
    out = await Engine({}).compress(messages, context_window=40_000, summarize=NEVER)
    check_compaction(messages, out, head=3)
    assert messages[3] in out.messages  # the latest user message stays
    assert out.dropped and out.messages[-1] is messages[-1]


@pytest.mark.parametrize("seed", range(30))
async def test_random_sessions_keep_pairs_head_and_end(seed: int) -> None:
    messages = random_transcript(seed)
    window = (16_000, 64_000, 200_000)[seed % 3]
    engine = Engine({"protect_first": seed % 5})
    out = await engine.compress(messages, context_window=window, summarize=NEVER)
    check_compaction(messages, out, head=seed % 5)
    assert len(notes(out.messages)) == (1 if out.dropped else 0)
    last_user = max(i for i, m in enumerate(messages) if m.role == "user")
    if last_user >= seed % 5:
        assert messages[last_user] in out.messages
    again = await engine.compress(out.messages, context_window=window // 2, summarize=NEVER)
    assert_pairs_intact(again.messages)
    assert len(notes(again.messages)) <= 1


@pytest.mark.parametrize("size", [0, 1, 4])
async def test_tiny_inputs_are_returned_unchanged(size: int) -> None:
    messages = [user("a" * 4_000), assistant("b" * 4_000), user("c" * 4_000), assistant("d" * 4_000)][:size]
    out = await Engine({}).compress(messages, context_window=1_000, summarize=NEVER)
    assert out.messages == tuple(messages) and out.dropped == ()
