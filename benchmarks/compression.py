"""Benchmark: compacting a 200-message session with tool calls.

Builds a deterministic, realistically sized session (user asks, assistant prose, rounds of
1–3 parallel tool calls whose outputs range from a short ``ls`` to a whole source file),
then compacts it with each engine using a scripted summarizer that answers instantly with
a canned summary of the size it was asked for. Prints, per scenario: the median time of
several runs, tokens before/after (the engine's estimate), tokens saved, and the ratio of
the kept tokens to the engine's target.

Run: ``python benchmarks/compression.py [--runs N] [--window TOKENS]``
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence

from talaria import Compaction, Message, ToolCall
from talaria.testing import load_plugin_module

TOOL_OUTPUTS: dict[str, tuple[int, int]] = {  # tool name -> output size range (chars)
    "read_file": (3_000, 24_000),
    "search_files": (300, 6_000),
    "terminal": (200, 10_000),
    "list_dir": (100, 1_500),
    "web_fetch": (4_000, 24_000),
}


def build_session(size: int = 200, seed: int = 7) -> list[Message]:
    """A session of exactly ``size`` messages ending with a user question."""
    rng = random.Random(seed)
    words = "the parser token lexer config session tool call result error fix test file module".split()

    def prose(lo: int, hi: int) -> str:
        n = rng.randint(lo, hi)
        text = " ".join(rng.choice(words) for _ in range(n // 5 + 1))
        return text[:n]

    messages: list[Message] = []
    counter = 0
    while len(messages) < size - 1:
        messages.append(Message(role="user", content=prose(80, 600)))
        for _ in range(rng.choice((0, 1, 2, 2, 3))):
            calls = []
            for _ in range(rng.choice((1, 1, 2, 3))):
                counter += 1
                name = rng.choice(list(TOOL_OUTPUTS))
                calls.append(ToolCall(id=f"call_{counter}", name=name, arguments={"path": f"src/m{counter}.py"}))
            messages.append(Message(role="assistant", content=prose(0, 300), tool_calls=tuple(calls)))
            for c in calls:
                lo, hi = TOOL_OUTPUTS[c.name]
                messages.append(Message(role="tool", content=prose(lo, hi), tool_call_id=c.id, name=c.name))
        messages.append(Message(role="assistant", content=prose(200, 2_500)))
    messages = messages[: size - 1]
    while messages[-1].role == "assistant" and messages[-1].tool_calls:  # never end mid-group
        messages.pop()
    while len(messages) < size - 1:
        messages.append(Message(role="assistant", content=prose(200, 1_000)))
    messages.append(Message(role="user", content="ok, what is left to do?"))
    return messages


async def canned_summary(prompt: str, max_tokens: int = 1_000) -> str:
    """The scripted summarizer: instantly returns about ``max_tokens`` tokens."""
    line = "- kept a decision, a path or a number here\n"
    return "## Goal\nfinish the refactor\n" + line * max(1, (max_tokens * 4) // len(line))


async def median_time(run: Callable[[], Awaitable[Compaction]], runs: int) -> tuple[float, Compaction]:
    """Median wall time of ``runs`` awaits of ``run()`` (one event loop, compress only)."""
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out = await run()
        times.append(time.perf_counter() - start)
    assert out is not None
    return statistics.median(times), out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per scenario (median reported)")
    parser.add_argument("--window", type=int, default=200_000, help="usable context window in tokens")
    args = parser.parse_args(argv)

    compressor_mod = load_plugin_module("compressor")
    sliding_mod = load_plugin_module("sliding_window")
    estimate = compressor_mod.tokens.estimate_messages
    session = build_session()
    before = estimate(session)
    window = args.window
    compressor = compressor_mod.CompressorEngine({})
    sliding = sliding_mod.SlidingWindowEngine({})
    threshold = compressor.settings.threshold_tokens(window)
    goal = int(compressor.settings.goal_ratio * threshold)
    tools = sum(1 for m in session if m.role == "tool")
    print(f"session: {len(session)} messages ({tools} tool results), ~{before:,} tokens; "
          f"window {window:,}; compressor threshold {threshold:,} "
          f"(fires: {compressor.should_compress(before, window)}), goal {goal:,}")

    scenarios = [
        ("compressor (auto)", compressor, None, goal),
        ("compressor (summary, /compress focus)", compressor, "the refactor", goal),
        ("sliding-window", sliding, None, int(sliding.target_ratio * window)),
    ]
    header = f"{'scenario':40} {'median ms':>10} {'before':>9} {'after':>9} {'saved':>9} {'saved %':>8} {'kept/target':>11} {'model':>6}"
    print(header)
    print("-" * len(header))
    for label, engine, focus, target in scenarios:
        def run(engine=engine, focus=focus) -> Awaitable[Compaction]:
            return engine.compress(session, context_window=window, summarize=canned_summary, focus=focus)

        seconds, out = asyncio.run(median_time(run, args.runs))
        after = estimate(out.messages)
        print(f"{label:40} {seconds * 1000:10.2f} {before:9,} {after:9,} {before - after:9,} "
              f"{100 * (before - after) / before:7.1f}% {after / target:11.2f} {str(out.made_model_call):>6}")


if __name__ == "__main__":
    main()
