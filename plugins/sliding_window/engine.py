"""The ``sliding-window`` context engine: forget the oldest exchanges, no model call.

``compress`` keeps the head (the first ``protect_first`` messages, extended to the end of
a tool group it cuts into) and drops whole *exchanges* after it — a user message and
everything up to the next user message — oldest first, until the estimate is under
``target_ratio × window``. If the latest exchange alone is still too big, its oldest
whole tool groups are dropped too, but never the latest user message nor the last
group. One note message (``user`` role, ``meta={"summary": True, "dropped_count": N}``)
replaces what was dropped, right after the head; an earlier note is folded into it.
Tool calls and results are never separated; kept messages are the same objects; the
output ends with the input's last message. Already under the target: returned unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from talaria import Compaction, ConfigError, Message, Summarizer

from .history import estimate_message, estimate_messages, safe_cuts

__all__ = ["SlidingWindowEngine", "note_text"]

_DEFAULTS: dict[str, float | int] = {"threshold": 0.8, "target_ratio": 0.6, "protect_first": 3}


def note_text(count: int) -> str:
    """The content of the note that stands for ``count`` dropped messages."""
    noun = "message was" if count == 1 else "messages were"
    return f"[{count} earlier {noun} dropped to fit the context window.]"


def _parse(config: Mapping[str, Any] | None) -> dict[str, Any]:
    config = dict(config or {})
    unknown = sorted(set(config) - set(_DEFAULTS) - {"enabled"})
    if unknown:
        raise ConfigError(
            f"[context.sliding-window]: unknown option(s) {', '.join(unknown)}; "
            f"known options are {', '.join(sorted(_DEFAULTS))}"
        )
    values = dict(_DEFAULTS)
    for key in ("threshold", "target_ratio"):
        if key in config:
            raw = config[key]
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 < raw <= 1:
                raise ConfigError(f"[context.sliding-window] {key} must be a fraction in (0, 1], got {raw!r}")
            values[key] = float(raw)
    if "protect_first" in config:
        raw = config["protect_first"]
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise ConfigError(f"[context.sliding-window] protect_first must be a whole number >= 0, got {raw!r}")
        values["protect_first"] = raw
    return values


def _is_real_user(message: Message) -> bool:
    return message.role == "user" and not message.meta.get("summary")


def _weight(message: Message) -> int:
    """How many original messages a dropped message stands for (an old note: its count)."""
    if message.meta.get("summary"):
        return int(message.meta.get("dropped_count", 1))
    return 1


class SlidingWindowEngine:
    """Drop-oldest compaction, configured by ``[context.sliding-window]``:
    ``threshold`` (0.8), ``target_ratio`` (0.6), ``protect_first`` (3)."""

    name = "sliding-window"

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        values = _parse(config)
        self.threshold: float = values["threshold"]
        self.target_ratio: float = values["target_ratio"]
        self.protect_first: int = values["protect_first"]

    def should_compress(self, prompt_tokens: int, context_window: int) -> bool:
        """True when ``prompt_tokens`` reached ``threshold × context_window``."""
        return context_window > 0 and prompt_tokens >= int(self.threshold * context_window)

    async def compress(
        self,
        messages: Sequence[Message],
        *,
        context_window: int,
        summarize: Summarizer,  # unused: this engine never calls a model
        focus: str | None = None,
    ) -> Compaction:
        """Drop the oldest exchanges after the head until under the target (see module doc)."""
        messages = list(messages)
        n = len(messages)
        target = int(self.target_ratio * context_window)
        unchanged = Compaction(messages=tuple(messages))
        if n == 0 or estimate_messages(messages) <= target:
            return unchanged
        ok = safe_cuts(messages)
        head_end = min(self.protect_first, n)
        for i in range(head_end):  # an earlier note is replaced, never frozen in the head
            if messages[i].meta.get("summary"):
                head_end = i
                break
        while head_end < n and not ok[head_end]:
            head_end += 1
        cuts = [c for c in range(head_end, n + 1) if ok[c]]
        units = list(zip(cuts, cuts[1:]))  # indivisible [start, end) spans
        if len(units) < 2:
            return unchanged

        exchanges: list[list[tuple[int, int]]] = []
        for unit in units:
            if not exchanges or _is_real_user(messages[unit[0]]):
                exchanges.append([])
            exchanges[-1].append(unit)
        latest = exchanges.pop()  # the exchange holding the latest user message (or the end)
        keep_in_latest = {latest[0] if _is_real_user(messages[latest[0][0]]) else None, latest[-1]}

        drop: set[int] = set()
        tokens = estimate_messages(messages) + estimate_message(Message(role="user", content=note_text(n)))

        def take(unit: tuple[int, int]) -> None:
            nonlocal tokens
            for i in range(*unit):
                drop.add(i)
                tokens -= estimate_message(messages[i])

        for exchange in exchanges:
            if tokens <= target:
                break
            for unit in exchange:
                take(unit)
        for unit in latest:
            if tokens <= target:
                break
            if unit not in keep_in_latest:
                take(unit)
        if not drop:
            return unchanged
        for i in range(head_end, units[-1][0]):  # fold earlier notes into the new one
            if messages[i].meta.get("summary"):
                drop.add(i)

        count = sum(_weight(messages[i]) for i in drop)
        note = Message(role="user", content=note_text(count), meta={"summary": True, "dropped_count": count})
        kept = [m for i, m in enumerate(messages[head_end:], start=head_end) if i not in drop]
        compacted = messages[:head_end] + [note] + kept
        return Compaction(
            messages=tuple(compacted),
            dropped=tuple(messages[i].uid for i in sorted(drop)),
        )

