"""Behaviour of the bundled ``compressor`` context engine (pure transformation)."""

from __future__ import annotations

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
    verbatim_tail,
)

import talaria
from talaria import CompressionError, ConfigError, ErrorKind, ProviderError
from talaria.kernel import load_kernel
from talaria.testing import load_plugin_module

mod = load_plugin_module("compressor")
Engine = mod.CompressorEngine


def chatty_session(exchanges: int = 40, answer_chars: int = 8_000) -> list[talaria.Message]:
    """Mostly assistant prose: clearing tool output cannot shrink it enough."""
    messages = [user("hello, I am working on talaria"), assistant("hi! what can I do?"), user("start with the parser")]
    for i in range(exchanges):
        messages += exchange([[300]], ask=f"question {i}", answer=f"answer {i} " + "p" * answer_chars)
    messages.append(user("and now the lexer"))
    return messages


def tool_heavy_session(rounds: int = 12) -> list[talaria.Message]:
    """Big tool outputs, little prose: the cheap phase alone is enough."""
    messages = [user("hello"), assistant("hi"), user("read the whole repo")]
    for i in range(rounds):
        messages += exchange([[20_000, 20_000]], ask=f"look at part {i}", answer="ok")
    messages += exchange([[500]], ask="last look", answer="all good")
    return messages


def test_registers_a_context_engine_named_compressor(tmp_path: Path) -> None:
    kernel = load_kernel(home=tmp_path, workspace=tmp_path, config={})
    factory = kernel.registries.context_engines.get("compressor")
    assert factory is not None and factory.name == "compressor"
    engine = factory({"threshold": 0.6})
    assert type(engine) is Engine and engine.should_compress(600_000, 1_000_000)
    assert engine.name == "compressor"
    assert isinstance(engine, talaria.ContextEngine)


@pytest.mark.parametrize(
    ("config", "window", "fires_at"),
    [
        ({}, 1_000_000, 500_000),  # 0.50 on a large window
        ({}, 512_000, 256_000),  # 512 K is not "under 512 K"
        ({}, 200_000, 150_000),  # raised to 0.75 under 512 K
        ({"threshold": 0.6}, 200_000, 150_000),  # a lower user value is raised too
        ({"threshold": 0.9}, 200_000, 180_000),  # a higher user value is kept
        ({"threshold": 0.6}, 1_000_000, 600_000),
    ],
)
def test_threshold(config: dict, window: int, fires_at: int) -> None:
    engine = Engine(config)
    assert engine.should_compress(fires_at, window)
    assert not engine.should_compress(fires_at - 1, window)


def test_no_window_never_fires() -> None:
    assert not Engine({}).should_compress(10**9, 0)


@pytest.mark.parametrize(
    ("config", "key"),
    [({"treshold": 0.5}, "treshold"), ({"threshold": 1.5}, "threshold"), ({"protect_last": "20"}, "protect_last"),
     ({"protect_first": 2.5}, "protect_first")],
)
def test_bad_config_names_the_key(config: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        Engine(config)


async def test_summary_phase_keeps_head_tail_and_pairs() -> None:
    messages = chatty_session()
    summarizer = ScriptedSummarizer()
    out = await Engine({}).compress(messages, context_window=100_000, summarize=summarizer)

    check_compaction(messages, out, head=3)
    assert out.made_model_call and summarizer.calls == 1
    summaries = [m for m in out.messages if m.meta.get("summary")]
    assert len(summaries) == 1 and out.messages[3] is summaries[0]
    summary = summaries[0]
    assert summary.role == "user" and summary.meta == {"summary": True}
    assert "summary of earlier conversation" in summary.content.lower() and "reference only" in summary.content
    assert out.summary and out.summary in summary.content
    assert summary.uid not in {m.uid for m in messages}
    # The tail is verbatim and reaches back at least to the latest user message.
    assert verbatim_tail(messages, out.messages) >= 1
    assert out.messages[-1] is messages[-1]
    # The structured template was asked for.
    prompt = summarizer.prompts[0]
    for section in ("Goal", "Constraints & preferences", "Done", "Current state", "Open questions",
                    "Relevant files", "Next step"):
        assert f"## {section}" in prompt
    assert "question 5" in prompt  # middle content reached the summarizer
    mod_estimate = Engine({}).estimate_tokens
    assert mod_estimate(out.messages) < mod_estimate(messages) / 2


async def test_summary_target_is_a_fifth_of_what_it_replaces_within_bounds() -> None:
    messages = chatty_session(exchanges=20)
    summarizer = ScriptedSummarizer()
    engine = Engine({})
    # A forced compression (/compress with a focus) on a large window: no bound applies.
    out = await engine.compress(messages, context_window=1_000_000, summarize=summarizer, focus="parser")
    replaced = engine.estimate_tokens([m for m in messages if m.uid in set(out.dropped)])
    assert 2_000 < replaced // 5 < 10_000
    assert abs(summarizer.max_tokens[0] - replaced // 5) <= 1
    small = ScriptedSummarizer()
    await engine.compress(chatty_session(), context_window=60_000, summarize=small)
    assert small.max_tokens[0] <= 0.05 * 60_000  # upper bound: 5 % of the window


async def test_cheap_phase_alone_makes_no_model_call() -> None:
    messages = tool_heavy_session()
    summarizer = ScriptedSummarizer(error=AssertionError("the model must not be called"))
    engine = Engine({})
    out = await engine.compress(messages, context_window=200_000, summarize=summarizer)

    assert summarizer.calls == 0 and out.made_model_call is False and out.summary is None
    check_compaction(messages, out, head=3)
    cleared = [m for m in out.messages if m.meta.get("cleared")]
    assert cleared, "old tool outputs should have been cleared"
    originals = {m.uid: m for m in messages}
    for m in cleared:
        original = originals[m.meta["replaces"]]
        assert m.role == "tool" and m.tool_call_id == original.tool_call_id and m.name == original.name
        assert m.content == f"[tool output cleared to save context: {len(original.content)} chars]"
        assert original.uid in out.dropped
    assert set(out.dropped) == {m.meta["replaces"] for m in cleared}
    # Messages other than cleared tool outputs are all still there, same objects.
    assert len(out.messages) == len(messages)
    assert engine.estimate_tokens(out.messages) <= 0.5 * 150_000


async def test_cheap_phase_not_enough_falls_through_to_summary() -> None:
    messages = chatty_session() + exchange([[20_000]] * 3, ask="grep", answer="found")
    summarizer = ScriptedSummarizer()
    out = await Engine({}).compress(messages, context_window=100_000, summarize=summarizer)
    assert out.made_model_call and summarizer.calls == 1
    check_compaction(messages, out, head=3)


@pytest.mark.parametrize(
    "error",
    [ProviderError(ErrorKind.RATE_LIMIT, "slow down", status=429), RuntimeError("boom"), TimeoutError()],
)
async def test_summarizer_failure_raises_compression_error_and_drops_nothing(error: Exception) -> None:
    messages = chatty_session()
    snapshot = list(messages)
    with pytest.raises(CompressionError, match="nothing was dropped"):
        await Engine({}).compress(messages, context_window=100_000, summarize=ScriptedSummarizer(error=error))
    assert len(messages) == len(snapshot) and all(a is b for a, b in zip(messages, snapshot))


@pytest.mark.parametrize("text", ["", "   \n"])
async def test_empty_summary_is_a_failure(text: str) -> None:
    with pytest.raises(CompressionError):
        await Engine({}).compress(chatty_session(), context_window=100_000, summarize=ScriptedSummarizer(text))


async def test_summary_bigger_than_what_it_replaces_is_refused() -> None:
    huge = ScriptedSummarizer("x" * 2_000_000)
    with pytest.raises(CompressionError, match="not smaller"):
        await Engine({}).compress(chatty_session(), context_window=100_000, summarize=huge)


async def test_second_compression_updates_the_summary_instead_of_stacking() -> None:
    engine = Engine({})
    first = await engine.compress(chatty_session(), context_window=100_000, summarize=ScriptedSummarizer("FIRST-SUMMARY"))
    continued = list(first.messages)
    for i in range(40):
        continued += exchange([[300]], ask=f"later question {i}", answer="q" * 8_000)
    continued.append(user("wrap up"))

    second_summarizer = ScriptedSummarizer("SECOND-SUMMARY")
    second = await engine.compress(continued, context_window=100_000, summarize=second_summarizer)

    prompt = second_summarizer.prompts[0]
    assert "FIRST-SUMMARY" in prompt and "previous summary" in prompt.lower()
    summaries = [m for m in second.messages if m.meta.get("summary")]
    assert [m.content.endswith("SECOND-SUMMARY") for m in summaries] == [True]
    old_summary = next(m for m in first.messages if m.meta.get("summary"))
    assert old_summary.uid in second.dropped
    check_compaction(continued, second, head=3)


async def test_focus_steers_the_summary_and_forces_one() -> None:
    messages = tool_heavy_session()  # the cheap phase alone would suffice here
    summarizer = ScriptedSummarizer()
    out = await Engine({}).compress(messages, context_window=200_000, summarize=summarizer, focus="the database schema")
    assert summarizer.calls == 1 and "the database schema" in summarizer.prompts[0]
    assert out.made_model_call
    check_compaction(messages, out, head=3)


async def test_in_flight_tool_chain_is_kept_whole() -> None:
    messages = chatty_session(exchanges=20)
    messages += tool_round([30_000, 30_000]) + tool_round([30_000]) + tool_round([25_000, 1_000, 20_000])
    last_user = max(i for i, m in enumerate(messages) if m.role == "user")
    out = await Engine({}).compress(messages, context_window=100_000, summarize=ScriptedSummarizer())
    check_compaction(messages, out, head=3)
    assert verbatim_tail(messages, out.messages) >= len(messages) - last_user
    assert out.messages[-1].role == "tool"


async def test_tail_boundary_inside_parallel_group_moves_back_to_the_call() -> None:
    messages = chatty_session(exchanges=20)
    # Last exchange: one parallel round of 4 results, the tail budget (0.2 × 75 K = 15 K) ends mid-group.
    messages += [user("check everything")] + tool_round([20_000, 20_000, 20_000, 20_000]) + [assistant("ok")]
    engine = Engine({"protect_last": 3})
    head_end, tail_start = engine.boundaries(messages, 100_000)
    assert messages[tail_start].role in ("user", "assistant") and messages[tail_start].role != "tool"
    out = await engine.compress(messages, context_window=100_000, summarize=ScriptedSummarizer())
    check_compaction(messages, out, head=3)


async def test_head_extends_over_a_tool_group_it_cuts_into() -> None:
    messages = [user("go"), *tool_round([10_000, 10_000, 10_000])]  # head of 3 would split the group
    messages += chatty_session()[3:]
    out = await Engine({}).compress(messages, context_window=100_000, summarize=ScriptedSummarizer())
    check_compaction(messages, out, head=5)


async def test_short_history_is_returned_unchanged() -> None:
    messages = [user("hi"), assistant("hello"), user("bye")]
    out = await Engine({}).compress(messages, context_window=100_000, summarize=ScriptedSummarizer())
    assert out.messages == tuple(messages) and out.dropped == () and not out.made_model_call


@pytest.mark.parametrize("seed", range(40))
async def test_random_sessions_keep_every_invariant(seed: int) -> None:
    messages = random_transcript(seed)
    window = (32_000, 128_000, 200_000, 1_000_000)[seed % 4]
    summarizer = ScriptedSummarizer()
    engine = Engine({"protect_first": 1 + seed % 4, "protect_last": (4, 8, 20)[seed % 3]})
    out = await engine.compress(messages, context_window=window, summarize=summarizer)
    check_compaction(messages, out, head=0)
    head_end, tail_start = engine.boundaries(messages, window)
    assert all(a is b for a, b in zip(out.messages[:head_end], messages[:head_end]))
    assert verbatim_tail(messages, out.messages) >= len(messages) - tail_start
    last_user = max(i for i, m in enumerate(messages) if m.role == "user")
    assert tail_start <= max(last_user, head_end)
    assert out.made_model_call == (summarizer.calls == 1)
    assert sum(1 for m in out.messages if m.meta.get("summary")) == (1 if out.made_model_call else 0)
    # Compressing the result again still keeps the invariants (iterative use).
    again = await engine.compress(out.messages, context_window=window, summarize=ScriptedSummarizer())
    assert_pairs_intact(again.messages)
    assert sum(1 for m in again.messages if m.meta.get("summary")) <= 1


@pytest.mark.parametrize("config", [{"protect_last": 0}, {"protect_first": 0, "protect_last": 0}])
async def test_the_last_message_survives_even_with_nothing_protected(config: dict) -> None:
    # No user message at all to anchor the tail.
    messages = [m for m in chatty_session() if m.role != "user"] + [assistant("thinking"), assistant("still")]
    out = await Engine(config).compress(messages, context_window=100_000, summarize=ScriptedSummarizer())
    check_compaction(messages, out, head=config.get("protect_first", 3))
    assert out.messages[-1] is messages[-1]


@pytest.mark.parametrize("size", [0, 1, 2])
async def test_tiny_inputs_are_returned_unchanged(size: int) -> None:
    messages = [user("a"), assistant("b")][:size]
    out = await Engine({}).compress(messages, context_window=1_000, summarize=ScriptedSummarizer())
    assert out.messages == tuple(messages) and out.dropped == ()


@pytest.mark.parametrize("window", [32_000, 128_000])
async def test_summarizer_input_is_bounded_by_the_window(window: int) -> None:
    messages = random_transcript(3, exchanges=60)
    summarizer = ScriptedSummarizer()
    await Engine({}).compress(messages, context_window=window, summarize=summarizer, focus="everything")
    assert len(summarizer.prompts[0]) <= 0.5 * window * 4 + 4_000
    assert "chars omitted" in summarizer.prompts[0]  # long messages keep their start and end
