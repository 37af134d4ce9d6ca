"""The ``[context.compressor]`` configuration section, parsed and validated once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from talaria import ConfigError

__all__ = ["CompressorSettings"]

_SECTION = "[context.compressor]"
#: Keys of the section read by the kernel, not the engine (accepted and ignored here).
_KERNEL_KEYS = frozenset({"enabled", "model"})


class CompressorSettings:
    """Options of the ``compressor`` engine (defaults follow Hermes' compressor); immutable,
    compared and hashed by value. Built with keywords (``CompressorSettings(threshold=0.6)``,
    unnamed options keep their class default) or from a config section (:meth:`from_config`).
    A plain class rather than a dataclass: generating a 15-field frozen dataclass costs
    milliseconds on every start.

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

    def __init__(self, **values: float) -> None:
        unknown = sorted(set(values) - set(_OPTIONS))
        if unknown:
            raise TypeError(f"CompressorSettings: unknown option(s) {', '.join(unknown)}")
        for name, value in values.items():
            object.__setattr__(self, name, value)  # shadows the class default

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"CompressorSettings is immutable; cannot set {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _OPTIONS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"CompressorSettings({', '.join(f'{n}={getattr(self, n)!r}' for n in _OPTIONS)})"

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> CompressorSettings:
        """Build settings from a config section; unknown keys and bad values raise
        :class:`talaria.ConfigError` naming the key."""
        config = dict(config or {})
        known = {name: getattr(cls, name) for name in _OPTIONS}
        unknown = sorted(set(config) - set(known) - _KERNEL_KEYS)
        if unknown:
            raise ConfigError(
                f"{_SECTION}: unknown option(s) {', '.join(unknown)}; "
                f"known options are {', '.join(sorted(known))}"
            )
        values: dict[str, Any] = {}
        for name, default in known.items():
            if name not in config:
                continue
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


#: The option names, in declaration order.
_OPTIONS: tuple[str, ...] = tuple(CompressorSettings.__annotations__)
