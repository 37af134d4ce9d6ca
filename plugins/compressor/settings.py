"""The ``[context.compressor]`` configuration section, parsed and validated once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from talaria import ConfigError

__all__ = ["CompressorSettings"]

_SECTION = "[context.compressor]"
#: Keys of the section read by the kernel, not the engine (accepted and ignored here).
_KERNEL_KEYS = frozenset({"enabled", "model"})


@dataclass(frozen=True, slots=True)
class CompressorSettings:
    """Options of the ``compressor`` engine (defaults follow Hermes' compressor).

    :param threshold: compress when the prompt reaches this share of the usable window.
    :param small_window: windows below this many tokens use at least ``small_window_threshold``.
    :param small_window_threshold: the floor applied to ``threshold`` on small windows.
    :param target_ratio: the verbatim tail gets ``target_ratio × threshold tokens``.
    :param goal_ratio: a compaction aims at ``goal_ratio × threshold tokens``; the cheap
        phase alone is accepted when it gets there.
    :param protect_first: messages at the start kept verbatim (the head).
    :param protect_last: most messages the tail keeps (the token budget may keep fewer,
        but never less than the latest user message and what follows it).
    :param summary_ratio: summary length target as a share of the tokens it replaces.
    :param summary_min_tokens / summary_max_tokens / summary_window_ratio: bounds of that
        target; the upper bound is ``min(summary_max_tokens, summary_window_ratio × window)``.
    :param clear_min_chars: tool outputs shorter than this are not worth clearing.
    :param message_chars: per-message cap when serializing the middle for the summarizer.
    :param tool_args_chars: cap on the JSON arguments of one tool call in that serialization.
    :param summary_input_ratio: the whole serialized middle is kept under this share of the
        window (per-message caps shrink until it fits).
    """

    threshold: float = 0.50
    small_window: int = 512_000
    small_window_threshold: float = 0.75
    target_ratio: float = 0.20
    goal_ratio: float = 0.50
    protect_first: int = 3
    protect_last: int = 20
    summary_ratio: float = 0.20
    summary_min_tokens: int = 2_000
    summary_max_tokens: int = 10_000
    summary_window_ratio: float = 0.05
    clear_min_chars: int = 200
    message_chars: int = 6_000
    tool_args_chars: int = 1_500
    summary_input_ratio: float = 0.50

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> CompressorSettings:
        """Build settings from a config section; unknown keys and bad values raise
        :class:`talaria.ConfigError` naming the key."""
        config = dict(config or {})
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(config) - set(known) - _KERNEL_KEYS)
        if unknown:
            raise ConfigError(
                f"{_SECTION}: unknown option(s) {', '.join(unknown)}; "
                f"known options are {', '.join(sorted(known))}"
            )
        values: dict[str, Any] = {}
        for name, f in known.items():
            if name not in config:
                continue
            default = f.default
            raw = config[name]
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):
                raise ConfigError(f"{_SECTION} {name} must be a number, got {raw!r}")
            if isinstance(default, int) and not isinstance(default, bool):
                if raw != int(raw) or raw < 0:
                    raise ConfigError(f"{_SECTION} {name} must be a whole number >= 0, got {raw!r}")
                values[name] = int(raw)
            else:
                if not 0 < raw <= 1:
                    raise ConfigError(f"{_SECTION} {name} must be a fraction in (0, 1], got {raw!r}")
                values[name] = float(raw)
        return cls(**values)

    def effective_threshold(self, context_window: int) -> float:
        """The share of the window that triggers compression.

        Windows under ``small_window`` tokens are raised to ``small_window_threshold``;
        a higher user setting is kept (the raise never lowers a threshold).
        """
        if context_window < self.small_window:
            return max(self.threshold, self.small_window_threshold)
        return self.threshold

    def threshold_tokens(self, context_window: int) -> int:
        """Prompt tokens at which compression triggers for this window."""
        return int(self.effective_threshold(context_window) * context_window)

    def summary_budget(self, replaced_tokens: int, context_window: int) -> int:
        """Token target of a summary replacing ``replaced_tokens`` tokens.

        ``summary_ratio × replaced``, bounded below by ``summary_min_tokens`` (but never
        more than half of what it replaces) and above by
        ``min(summary_max_tokens, summary_window_ratio × window)``.
        """
        upper = max(1, min(self.summary_max_tokens, int(self.summary_window_ratio * context_window)))
        lower = min(self.summary_min_tokens, max(1, replaced_tokens // 2), upper)
        return max(lower, min(upper, int(self.summary_ratio * replaced_tokens)))
