"""Tool names the model sees: ``mcp__<server>__<tool>``.

Contract: every character outside ``[A-Za-z0-9_]`` becomes ``_``; a name longer than
:data:`MAX_NAME` (the strictest provider limit, 64) is cut and ends with ``_`` plus 8 hex
digits of a hash of the *unsanitized* ``server``/``tool`` pair, so the result is
deterministic across runs and machines. Two different tools that would end up with the same
name are never merged or hidden: :func:`assign_names` gives the later one (in sorted order) a
hash-suffixed name and reports the collision.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

__all__ = ["MAX_NAME", "assign_names", "sanitize", "tool_name"]

MAX_NAME = 64
_BAD = re.compile(r"[^A-Za-z0-9_]")


def sanitize(text: str) -> str:
    """Replace every character outside ``[A-Za-z0-9_]`` with ``_``."""
    return _BAD.sub("_", text)


def _digest(server: str, tool: str) -> str:
    return hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:8]


def _with_suffix(name: str, server: str, tool: str) -> str:
    suffix = "_" + _digest(server, tool)
    return name[: MAX_NAME - len(suffix)] + suffix


def tool_name(server: str, tool: str) -> str:
    """The model-facing name of ``tool`` on ``server`` (sanitized, at most 64 chars)."""
    name = f"mcp__{sanitize(server)}__{sanitize(tool)}"
    return name if len(name) <= MAX_NAME else _with_suffix(name, server, tool)


def assign_names(
    keys: Iterable[tuple[str, str, str]],
) -> tuple[dict[tuple[str, str, str], str], list[str]]:
    """Give every ``(server, tool, kind)`` key a unique model-facing name.

    ``kind`` tells apart things with the same server and tool name (a server tool and a
    utility tool); keys are processed in sorted order, so the outcome is deterministic.

    :returns: ``{key: name}`` and human-readable collision reports.
    """
    names: dict[tuple[str, str, str], str] = {}
    owner: dict[str, tuple[str, str, str]] = {}
    reports: list[str] = []
    for key in sorted(set(keys)):
        server, tool, kind = key
        name = tool_name(server, tool)
        if name in owner:
            first = owner[name]
            name = _with_suffix(name, server, f"{tool}\x00{kind}")
            reports.append(
                f"MCP tool {tool!r} ({kind}) of server {server!r} and tool {first[1]!r} ({first[2]}) "
                f"of server {first[0]!r} both map to {tool_name(server, tool)!r}; "
                f"the second is offered as {name!r}"
            )
        owner[name] = key
        names[key] = name
    return names, reports
