"""Secret redaction for tool output (``post_tool_call``) and for logs (:func:`redact`).

Contract: :func:`redact` replaces every secret (see ``_patterns``: secret-looking
environment values and key-shaped strings) with ``[REDACTED:<kind>]`` and leaves other
text byte-identical. The ``post_tool_call`` hook returns a copy of the result with its
content redacted, or None when there was nothing to redact, so secrets a tool printed
never reach the store or the model. Config ``[redaction] enabled = false`` turns that hook
off (not recommended); ``[redaction] extra_patterns = ["regex", …]`` adds patterns (kind
``custom``).

Logs: loading this plugin calls :func:`install_log_redaction`, so the message, the
exception text and the stack text of every log record made in the process afterwards are
redacted *when the record is created* — whatever handler, formatter or log file receives it
(``talaria.*`` loggers, plugins' loggers and the SDKs' alike). A ``logging.Filter`` on the
``talaria`` logger would not do: Python applies a logger's filters only to records logged on
that very logger, not on ``talaria.turn`` and the other children. :class:`RedactingFilter`
is the same redaction for a handler of your own.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import talaria

if TYPE_CHECKING:  # annotations only
    from talaria import ToolCall, ToolContext, ToolResult

__all__ = ["RedactingFilter", "install_log_redaction", "is_secret_name", "log_redaction_installed", "post_tool_call",
           "redact"]


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
    """A logging filter that redacts secrets from each record (message, exception, stack)."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return True


def _redact_record(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except Exception:  # bad format arguments: logging reports that itself when it emits
        return
    cleaned = redact(message)
    if cleaned != message:
        record.msg, record.args = cleaned, None
    if record.exc_info and not record.exc_text:
        text = logging.Formatter().formatException(record.exc_info)
        cleaned = redact(text)
        if cleaned != text:  # formatters print exc_text instead of formatting exc_info again
            record.exc_text = cleaned
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


def install_log_redaction() -> bool:
    """Redact every log record this process creates from now on (see the module docstring).

    Wraps the current ``logging`` record factory, so handlers and log files configured
    earlier or later all receive redacted records. Idempotent; returns True when it
    installed the wrapper, False when it was already installed.
    """
    if log_redaction_installed():
        return False
    make = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        _redact_record(record)
        return record

    factory._talaria_redacting = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
    return True


def log_redaction_installed() -> bool:
    """True when :func:`install_log_redaction` is in effect."""
    return bool(getattr(logging.getLogRecordFactory(), "_talaria_redacting", False))


install_log_redaction()  # plugin load: from here on, no secret reaches a log
