"""Transcript builders and invariant checks shared by the context-engine tests."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from talaria import Compaction, Message, ToolCall

_ids = itertools.count(1)


def user(text: str = "please do the thing") -> Message:
    return Message(role="user", content=text)


def assistant(text: str = "", calls: Sequence[ToolCall] = ()) -> Message:
    return Message(role="assistant", content=text, tool_calls=tuple(calls))


def call(name: str = "read_file", **arguments: object) -> ToolCall:
    return ToolCall(id=f"call_{next(_ids)}", name=name, arguments=arguments or {"path": "src/app.py"})


def result(for_call: ToolCall, content: str) -> Message:
    return Message(role="tool", content=content, tool_call_id=for_call.id, name=for_call.name, status="ok")


def tool_round(sizes: Sequence[int], text: str = "") -> list[Message]:
    """One assistant message with ``len(sizes)`` parallel calls and their results."""
    calls = [call("read_file", path=f"src/mod_{next(_ids)}.py") for _ in sizes]
    out: list[Message] = [assistant(text, calls)]
    out += [result(c, f"line {i}: " + "x" * max(0, size - 10)) for i, (c, size) in enumerate(zip(calls, sizes))]
    return out


def exchange(rounds: Sequence[Sequence[int]], ask: str = "fix the bug", answer: str = "done") -> list[Message]:
    """A user message, tool rounds, and a final assistant answer."""
    out = [user(ask)]
    for sizes in rounds:
        out += tool_round(sizes, text="let me look")
    out.append(assistant(answer))
    return out


def random_transcript(seed: int, exchanges: int = 30, *, in_flight: bool | None = None) -> list[Message]:
    """A realistic random session: exchanges with 0–4 tool rounds of 1–4 parallel calls.

    The last exchange is either finished (ends with an assistant answer), waiting on the
    model (ends with a tool result: an in-flight chain) or a fresh user message.
    """
    rng = random.Random(seed)
    messages: list[Message] = []
    for _ in range(exchanges):
        rounds = [[rng.choice((50, 400, 2_000, 8_000, 30_000)) for _ in range(rng.randint(1, 4))]
                  for _ in range(rng.choice((0, 1, 1, 2, 4)))]
        messages += exchange(rounds, ask="u" * rng.randint(20, 800), answer="a" * rng.randint(20, 3_000))
    ending = rng.choice(("done", "in_flight", "user")) if in_flight is None else ("in_flight" if in_flight else "user")
    if ending == "in_flight":
        messages.append(user("now run the tests"))
        for _ in range(rng.randint(1, 6)):
            messages += tool_round([rng.choice((100, 5_000, 20_000)) for _ in range(rng.randint(1, 3))])
    elif ending == "user":
        messages.append(user("what next?"))
    return messages


# --------------------------------------------------------------------------- invariants


def assert_pairs_intact(messages: Sequence[Message]) -> None:
    """Every call has exactly one result after it; every result has an earlier call."""
    open_calls: dict[str, int] = {}
    answered: dict[str, int] = {}
    for i, m in enumerate(messages):
        if m.role == "assistant":
            for c in m.tool_calls:
                open_calls[c.id] = i
        if m.role == "tool":
            assert m.tool_call_id in open_calls, f"tool result {m.tool_call_id} at {i} has no earlier call"
            answered[m.tool_call_id] = answered.get(m.tool_call_id, 0) + 1
    for cid in open_calls:
        assert answered.get(cid) == 1, f"tool call {cid} has {answered.get(cid, 0)} results"


def check_compaction(before: Sequence[Message], out: Compaction, *, head: int) -> None:
    """The invariants every engine output must keep (``head`` = messages kept verbatim first)."""
    after = list(out.messages)
    by_uid = {m.uid: m for m in before}
    assert_pairs_intact(after)
    assert after[-1] is before[-1], "the output must end with the input's last message"
    assert [m for m in after[:head]] == list(before[:head]) and all(a is b for a, b in zip(after, before[:head]))
    kept_positions = []
    for m in after:
        if m.uid in by_uid:
            assert by_uid[m.uid] is m, "a kept message must be the same object"
            kept_positions.append(before.index(m))
        else:
            assert m.meta.get("summary") or m.meta.get("cleared"), f"new message without marker: {m}"
    assert kept_positions == sorted(kept_positions), "kept messages changed order"
    after_uids = {m.uid for m in after}
    expected = [m.uid for m in before if m.uid not in after_uids]
    assert list(out.dropped) == expected, "dropped must list exactly the uids no longer present"
    assert len(after_uids) == len(after), "uids must be unique"


def verbatim_tail(before: Sequence[Message], after: Sequence[Message]) -> int:
    """Length of the longest common suffix made of the very same objects."""
    k = 0
    while k < min(len(before), len(after)) and before[-1 - k] is after[-1 - k]:
        k += 1
    return k


class ScriptedSummarizer:
    """Records every call; returns a canned summary of about ``fill`` × max_tokens tokens."""

    def __init__(self, text: str | None = None, *, fill: float = 0.8, error: BaseException | None = None) -> None:
        self.text, self.fill, self.error = text, fill, error
        self.prompts: list[str] = []
        self.max_tokens: list[int] = []

    async def __call__(self, prompt: str, max_tokens: int = 1000) -> str:
        self.prompts.append(prompt)
        self.max_tokens.append(max_tokens)
        if self.error is not None:
            raise self.error
        if self.text is not None:
            return self.text
        body = "## Goal\nship it\n## Done\n" + "- step\n" * (int(max_tokens * 4 * self.fill) // 7)
        return body

    @property
    def calls(self) -> int:
        return len(self.prompts)
