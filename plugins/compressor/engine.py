"""The ``compressor`` context engine: cheap clearing first, then a model-written summary.

Output shape (``messages`` excludes the system prompt)::

    head (verbatim) · [summary] · tail (verbatim)          — summary phase
    head (verbatim) · middle with old tool output cleared · tail (verbatim) — cheap phase

Guarantees, for any input whose own tool calls are paired:

- the head (the first ``protect_first`` messages, extended to the end of a tool group it
  cuts into, stopped before an earlier summary) and the tail are the very same
  ``Message`` objects, in order; the output ends with the input's last message;
- the tail reaches back at least to the latest user message and never starts inside a
  tool group (an in-flight tool chain is kept whole);
- every tool call keeps its result and no result loses its call;
- messages the engine writes have fresh uids: the summary has ``meta={"summary": True}``,
  a cleared tool result ``meta={"cleared": True, "replaces": <old uid>}``;
- ``dropped`` lists exactly the input uids that are not in the output;
- if ``summarize`` raises (or returns nothing usable) :class:`talaria.CompressionError` is
  raised and nothing is dropped; an input with nothing to compact is returned unchanged
  (``dropped == ()``).

**Summary role.** The summary is a ``user``-role message placed right after the head,
its content starting with :data:`SUMMARY_PREFIX` (reference only, answer the latest user
message). Two user messages in a row may follow from that; OpenAI-style APIs accept it
and API modes for providers that require strict alternation merge consecutive same-role
messages on the wire (Anthropic's API merges them itself).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from talaria import Compaction, CompressionError, Message, Summarizer

from .history import ceil_cut, floor_cut, last_user_index, safe_cuts
from .prompt import build_prompt, serialize, strip_prefix, summary_content
from .settings import CompressorSettings
from .tokens import CHARS_PER_TOKEN, estimate_message, estimate_messages

__all__ = ["CompressorEngine", "cleared_placeholder"]


def cleared_placeholder(chars: int) -> str:
    """The text that replaces a cleared tool output of ``chars`` characters."""
    return f"[tool output cleared to save context: {chars} chars]"


def _unchanged(messages: Sequence[Message]) -> Compaction:
    return Compaction(messages=tuple(messages), dropped=(), made_model_call=False)


def _dropped(before: Sequence[Message], after: Sequence[Message]) -> tuple[str, ...]:
    kept = {m.uid for m in after}
    return tuple(m.uid for m in before if m.uid not in kept)


class CompressorEngine:
    """Hermes-style compaction; configured by ``[context.compressor]`` (see
    :class:`CompressorSettings`)."""

    name = "compressor"

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.settings = CompressorSettings.from_config(config)

    # ------------------------------------------------------------------ decisions

    def should_compress(self, prompt_tokens: int, context_window: int) -> bool:
        """True when ``prompt_tokens`` reached the threshold share of ``context_window``
        (the usable window: the model's window minus the output reserve)."""
        if context_window <= 0:
            return False
        return prompt_tokens >= self.settings.threshold_tokens(context_window)

    def estimate_tokens(self, messages: Sequence[Message]) -> int:
        """The engine's fast token estimate of ``messages`` (used before real usage exists)."""
        return estimate_messages(messages)

    def boundaries(self, messages: Sequence[Message], context_window: int) -> tuple[int, int]:
        """``(head_end, tail_start)``: the head is ``messages[:head_end]``, the tail
        ``messages[tail_start:]``; both are safe cuts and ``head_end <= tail_start``."""
        s = self.settings
        n = len(messages)
        ok = safe_cuts(messages)
        head_end = min(s.protect_first, n)
        for i in range(head_end):  # an earlier summary is updated, so it is never head
            if messages[i].meta.get("summary"):
                head_end = i
                break
        head_end = ceil_cut(ok, head_end)

        budget = int(s.target_ratio * s.threshold_tokens(context_window))
        tail_start, tokens = n, 0
        while tail_start > head_end and (tail_start == n or n - tail_start < s.protect_last):
            cost = estimate_message(messages[tail_start - 1])
            if tail_start < n and tokens + cost > budget:
                break
            tokens += cost
            tail_start -= 1
        tail_start = floor_cut(ok, tail_start)
        latest_user = last_user_index(messages)
        if latest_user is not None and latest_user < tail_start:
            tail_start = floor_cut(ok, latest_user)
        return head_end, max(head_end, tail_start)

    # ------------------------------------------------------------------ compaction

    async def compress(
        self,
        messages: Sequence[Message],
        *,
        context_window: int,
        summarize: Summarizer,
        focus: str | None = None,
    ) -> Compaction:
        """Compact ``messages`` (see the module docstring for the guarantees).

        The cheap phase (old tool outputs outside the tail replaced by a placeholder) is
        used alone — no model call — when it cleared something and brings the estimate
        under ``goal_ratio × threshold tokens``, unless a ``focus`` asks for a summary.
        """
        s = self.settings
        messages = list(messages)
        head_end, tail_start = self.boundaries(messages, context_window)
        head, middle, tail = messages[:head_end], messages[head_end:tail_start], messages[tail_start:]
        if not middle:
            return _unchanged(messages)

        cleared_middle = [self._clear(m) for m in middle]
        cheap = head + cleared_middle + tail
        goal = int(s.goal_ratio * s.threshold_tokens(context_window))
        if not focus and any(a is not b for a, b in zip(middle, cleared_middle)):
            if estimate_messages(cheap) <= goal:
                return Compaction(messages=tuple(cheap), dropped=_dropped(messages, cheap))

        previous = [m for m in middle if m.meta.get("summary")]
        fresh = [m for m in middle if not m.meta.get("summary")]
        if not fresh:
            return _unchanged(messages)
        previous_summary = "\n\n".join(strip_prefix(m.content) for m in previous) or None
        target = s.summary_budget(estimate_messages(middle), context_window)
        transcript = serialize(
            fresh,
            message_chars=s.message_chars,
            args_chars=s.tool_args_chars,
            budget_chars=int(s.summary_input_ratio * context_window * CHARS_PER_TOKEN),
        )
        prompt = build_prompt(transcript, previous_summary=previous_summary, focus=focus, target_tokens=target)
        try:
            text = await summarize(prompt, max_tokens=target)
        except Exception as exc:  # any failure of the model call: keep everything
            raise CompressionError(
                f"the summary call failed ({type(exc).__name__}: {exc}); nothing was dropped"
            ) from exc
        if not isinstance(text, str) or not text.strip():
            raise CompressionError("the summarizer returned an empty summary; nothing was dropped")

        summary = Message(role="user", content=summary_content(text), meta={"summary": True})
        compacted = head + [summary] + tail
        if estimate_messages(compacted) >= estimate_messages(messages):
            raise CompressionError(
                "the summary is not smaller than the messages it would replace; nothing was "
                "dropped (lower [context.compressor] summary_max_tokens or use a model that "
                "follows length limits)"
            )
        return Compaction(
            messages=tuple(compacted),
            summary=text.strip(),
            dropped=_dropped(messages, compacted),
            made_model_call=True,
        )

    def _clear(self, message: Message) -> Message:
        """``message`` itself, or a fresh tool message with its output replaced."""
        if (
            message.role != "tool"
            or message.meta.get("cleared")
            or len(message.content) < self.settings.clear_min_chars
        ):
            return message
        return Message(
            role="tool",
            content=cleared_placeholder(len(message.content)),
            tool_call_id=message.tool_call_id,
            name=message.name,
            status=message.status,
            meta={"cleared": True, "replaces": message.uid},
        )
