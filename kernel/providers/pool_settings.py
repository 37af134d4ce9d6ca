"""The ``[credentials]`` config section: strategy (global and per provider), cool-downs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from talaria import ConfigError

from .._values import value_type

__all__ = ["STRATEGIES", "PoolSettings"]

STRATEGIES = ("fill_first", "round_robin", "random", "least_used")


@value_type
class PoolSettings:
    """The ``[credentials]`` config section."""

    strategy: str = "fill_first"
    strategies: Mapping[str, str] | None = None
    auth_cooldown: float = 300.0
    rate_limit_cooldown: float = 3600.0
    dead_after: int = 2

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> PoolSettings:
        """Read ``[credentials]``; :raises talaria.ConfigError: on a bad value."""
        section = config.get("credentials") or {}
        if not isinstance(section, Mapping):
            raise ConfigError("credentials: must be a table")
        per = section.get("strategies") or {}
        for where, name in [("credentials.strategy", section.get("strategy", "fill_first"))] + [
            (f"credentials.strategies.{k}", v) for k, v in per.items()
        ]:
            if name not in STRATEGIES:
                raise ConfigError(f"{where}: unknown strategy {name!r}; use one of {', '.join(STRATEGIES)}")
        out = {}
        for key, default in (("auth_cooldown", 300.0), ("rate_limit_cooldown", 3600.0), ("dead_after", 2)):
            value = section.get(key, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < (1 if key == "dead_after" else 0):
                raise ConfigError(f"credentials.{key}: expected a non-negative number, got {value!r}")
            out[key] = value
        return cls(strategy=section.get("strategy", "fill_first"), strategies=dict(per),
                   auth_cooldown=float(out["auth_cooldown"]),
                   rate_limit_cooldown=float(out["rate_limit_cooldown"]),
                   dead_after=int(out["dead_after"]))

    def strategy_for(self, provider: str) -> str:
        return (self.strategies or {}).get(provider, self.strategy)
