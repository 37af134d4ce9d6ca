"""Secret redaction for tool output (``post_tool_call``) and for logs (:func:`redact`).

Contract: :func:`redact` replaces every secret (see ``_patterns``: secret-looking
environment values and key-shaped strings) with ``[REDACTED:<kind>]`` and leaves other
text byte-identical. The ``post_tool_call`` hook returns a copy of the result with its
content redacted, or None when there was nothing to redact, so secrets a tool printed
never reach the store or the model. :class:`RedactingFilter` applies the same to log
records. Config ``[redaction] enabled = false`` turns the hook off (not recommended);
``[redaction] extra_patterns = ["regex", …]`` adds patterns (kind ``custom``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import talaria
from talaria import ToolCall, ToolContext, ToolResult

__all__ = ["RedactingFilter", "is_secret_name", "post_tool_call", "redact"]


def __getattr__(name: str) -> Any:
    # The pattern table (many compiled regexes) loads on the first redaction, not when the
    # plugin loads: a turn that calls no tool does not pay for it.
    if name in ("PATTERNS", "is_secret_name", "secret_env_values"):
        from . import _patterns

        return getattr(_patterns, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def redact(text: str, *, environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> str:
    """Return ``text`` with secrets replaced by ``[REDACTED:<kind>]`` (see module doc).

    :param environ: where to look for secret values (default: ``os.environ``).
    :param extra: additional regexes; each match becomes ``[REDACTED:custom]``.
    """
    if not text:
        return text
    from ._patterns import PATTERNS, secret_env_values

    for name, value in secret_env_values(os.environ if environ is None else environ):
        if value in text:
            text = text.replace(value, f"[REDACTED:env:{name}]")
    for kind, pattern, group in PATTERNS:
        text = pattern.sub(_replacer(kind, group), text)
    for raw in extra:
        text = _compiled(raw).sub("[REDACTED:custom]", text)
    return text


def _replacer(kind: str, group: int):  # type: ignore[no-untyped-def]
    label = f"[REDACTED:{kind}]"

    def replace(match: re.Match[str]) -> str:
        if group == 0:
            return label
        whole, start, end = match.group(0), match.start(group) - match.start(0), match.end(group) - match.start(0)
        if whole[start:end].startswith("[REDACTED:"):
            return whole
        return whole[:start] + label + whole[end:]

    return replace


@lru_cache(maxsize=64)
def _compiled(raw: str) -> re.Pattern[str]:
    return re.compile(raw)


def _options(ctx: ToolContext) -> Mapping[str, Any]:
    section = ctx.config.get("redaction") or {}
    return section if isinstance(section, Mapping) else {}


@talaria.hookimpl
def post_tool_call(call: ToolCall, result: ToolResult, ctx: ToolContext) -> ToolResult | None:
    """Redact secrets from ``result.content``; None when nothing changed."""
    opts = _options(ctx)
    if opts.get("enabled", True) is False:
        return None
    extra = tuple(p for p in opts.get("extra_patterns", ()) if isinstance(p, str))
    cleaned = redact(result.content, extra=extra)
    if cleaned == result.content:
        return None
    return dataclasses.replace(result, content=cleaned)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts secrets from each record's formatted message."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
