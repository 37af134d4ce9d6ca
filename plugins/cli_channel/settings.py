"""The ``[channels.cli]`` config table: its options and what is wrong with a given one.

The kernel leaves ``[channels.*]`` tables to the channels that own them. The REPL reads its
table defensively (a bad value falls back to the default); :func:`settings_problems` says
what was ignored, so the REPL can warn once and ``talaria doctor`` can report it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["OPTIONS", "cli_section", "settings_problems"]

#: option → (type, what a valid value looks like)
OPTIONS: dict[str, tuple[type, str]] = {
    "markdown": (bool, "true or false"),
    "code_theme": (str, 'a Pygments style name such as "monokai"'),
}

_TABLE = "[channels.cli]"


def cli_section(config: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The ``[channels.cli]`` table of ``config``; ``{}`` when absent or not a table."""
    channels = (config or {}).get("channels")
    section = channels.get("cli") if isinstance(channels, Mapping) else None
    return section if isinstance(section, Mapping) else {}


def settings_problems(config: Mapping[str, Any] | None) -> list[str]:
    """One sentence per problem of the ``[channels.cli]`` table (none: ``[]``); each names
    the option and says what to write instead."""
    channels = (config or {}).get("channels")
    raw = channels.get("cli") if isinstance(channels, Mapping) else None
    if raw is None:
        return []
    if not isinstance(raw, Mapping):
        return [f"{_TABLE} must be a table (e.g. `[channels.cli]` then `markdown = false`); it is ignored"]
    problems = []
    for key, value in raw.items():
        if key not in OPTIONS:
            known = ", ".join(sorted(OPTIONS))
            problems.append(f"{_TABLE} has no option {key!r} (known: {known}); it is ignored")
            continue
        kind, expected = OPTIONS[key]
        if not isinstance(value, kind) or (kind is str and not value):
            problems.append(f"{_TABLE} {key} must be {expected}, not {value!r}; the default is used")
    return problems
