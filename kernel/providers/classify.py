"""Classify a failed model call into a :class:`talaria.ProviderError` (public API).

Every API mode must turn its failures into one of the kernel's :class:`talaria.ErrorKind`
values so the retry/rotate/compress/fallback policy can act on them. This module does that
for anything shaped like the ``openai`` / ``anthropic`` SDK exceptions (``status_code``,
``response.headers``, ``body``) and for the raw transport errors those SDKs let escape on
broken streams (``httpx``/``httpx2`` ``ReadTimeout``, ``RemoteProtocolError``,
``ReadError``), ``ConnectionError``/``OSError`` and ``json.JSONDecodeError`` from a corrupt
chunk. It matches exception *class names* along the MRO, so it imports no SDK.

Exported from :mod:`talaria`: :func:`classify_provider_error`, :func:`provider_error_kind`,
:func:`parse_retry_after`, :func:`is_context_overflow`.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Mapping
from typing import Any

from talaria import ErrorKind, ProviderError

__all__ = ["classify_provider_error", "is_context_overflow", "parse_retry_after", "provider_error_kind"]

_OVERFLOW = (
    r"context[_ ]length|context window|maximum context|prompt is too long|prompt too long"
    r"|too many (?:input )?tokens|input is too long|input too long|reduce the length"
    r"|maximum number of tokens|exceed\w* (?:the )?(?:model'?s? )?(?:max\w* context|context)"
    r"|token limit"
)

#: provider error ``type``/``code`` strings → kind (Anthropic types, OpenAI codes).
_CODE_KINDS = {
    "rate_limit_error": ErrorKind.RATE_LIMIT, "rate_limit_exceeded": ErrorKind.RATE_LIMIT,
    "insufficient_quota": ErrorKind.AUTH, "authentication_error": ErrorKind.AUTH,
    "invalid_api_key": ErrorKind.AUTH, "permission_error": ErrorKind.AUTH,
    "overloaded_error": ErrorKind.OVERLOADED, "overloaded": ErrorKind.OVERLOADED,
    "server_is_overloaded": ErrorKind.OVERLOADED, "api_error": ErrorKind.SERVER,
    "server_error": ErrorKind.SERVER, "internal_error": ErrorKind.SERVER,
    "not_found_error": ErrorKind.NOT_FOUND, "model_not_found": ErrorKind.NOT_FOUND,
    "context_length_exceeded": ErrorKind.CONTEXT_OVERFLOW,
    "request_too_large": ErrorKind.CONTEXT_OVERFLOW,
    "invalid_request_error": ErrorKind.BAD_REQUEST, "timeout_error": ErrorKind.TIMEOUT,
}
_TIMEOUT_NAMES = frozenset({"APITimeoutError", "TimeoutException"})
_MALFORMED_NAMES = frozenset({"APIResponseValidationError", "DecodingError", "SSEError"})
_TRANSPORT_NAMES = frozenset({"TransportError", "NetworkError", "ProtocolError", "ConnectionError", "OSError"})


@functools.cache
def _overflow() -> re.Pattern[str]:
    return re.compile(_OVERFLOW, re.IGNORECASE)  # compiled on first use: keeps plugin loading cheap


def is_context_overflow(text: str) -> bool:
    """True when a provider's error message says the prompt does not fit the model's window.

    Recognizes the wordings of OpenAI, Anthropic, Gemini, Mistral, DeepSeek, vLLM, Ollama
    and similar servers ("maximum context length", "prompt is too long", …).
    """
    return bool(_overflow().search(text or ""))


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    ``retry-after-ms`` wins when both are present; a date in the past gives ``0.0``;
    a missing or unreadable value gives ``None`` (the policy then uses its own backoff).
    ``headers`` may be any mapping with lower-case keys or a case-insensitive one.
    """
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    import email.utils  # an HTTP date: rare, and email/datetime/calendar cost a few ms to import

    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def provider_error_kind(status: int | None, code: str = "", message: str = "") -> ErrorKind:
    """The kind for an HTTP ``status`` plus the provider's error ``code``/``type`` and message.

    ``status`` is ``None`` for an error reported inside a stream. Context overflow is
    recognized from the code or the message of a 400/413/422; 429 is a rate limit unless the
    code says the quota is used up (an auth problem: another key is needed); 401/403 auth;
    404 not found; 408/504 timeout; 503/529 or an "overloaded" code overloaded; other 5xx
    server; other 4xx bad request.
    """
    code_kind = _CODE_KINDS.get(code)
    if code_kind is ErrorKind.CONTEXT_OVERFLOW or (
        (status in (400, 413, 422, None) or code_kind is ErrorKind.BAD_REQUEST) and is_context_overflow(message)
    ):
        return ErrorKind.CONTEXT_OVERFLOW
    if status == 429:
        return ErrorKind.AUTH if code == "insufficient_quota" else ErrorKind.RATE_LIMIT
    if status in (401, 403):
        return ErrorKind.AUTH
    if status == 404:
        return ErrorKind.NOT_FOUND
    if status in (408, 504):
        return ErrorKind.TIMEOUT
    if status in (503, 529) or code_kind is ErrorKind.OVERLOADED:
        return ErrorKind.OVERLOADED
    if status == 413:
        return ErrorKind.CONTEXT_OVERFLOW
    if status is not None and status >= 500:
        return ErrorKind.SERVER
    if status is not None and 400 <= status < 500:
        return ErrorKind.BAD_REQUEST
    return code_kind or ErrorKind.SERVER


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _error_fields(body: Any) -> tuple[str, str]:
    """(type-or-code, message) from an OpenAI- or Anthropic-shaped error body."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return "", body
    if not isinstance(body, Mapping):
        return "", ""
    err = body.get("error", body)
    if not isinstance(err, Mapping):
        return "", str(err)
    code = err.get("code") or err.get("type") or ""
    return str(code), str(err.get("message") or "")


def classify_provider_error(exc: BaseException, provider: str = "") -> ProviderError:
    """Turn ``exc`` (anything raised while calling a model) into a :class:`ProviderError`.

    A ``ProviderError`` is returned unchanged. HTTP errors keep their ``status`` and the
    server's ``retry_after``; unknown exceptions become :attr:`ErrorKind.UNKNOWN` with the
    exception's type in the message (never silently a retryable kind). Raise the result
    ``from exc`` so the original stays visible in tracebacks.
    """
    if isinstance(exc, ProviderError):
        return exc
    names = _names(exc)
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, TimeoutError) or names & _TIMEOUT_NAMES:  # asyncio.TimeoutError too
        return ProviderError(ErrorKind.TIMEOUT, f"request timed out ({detail})", provider=provider)
    if isinstance(exc, json.JSONDecodeError) or names & _MALFORMED_NAMES:
        return ProviderError(ErrorKind.MALFORMED, f"malformed response from the provider: {detail}",
                             provider=provider)
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    if status is not None or ("APIError" in names and body is not None):
        headers = getattr(getattr(exc, "response", None), "headers", None)
        code, message = _error_fields(body)
        message = message or getattr(exc, "message", "") or detail
        if status == 200:  # an error event inside a 200 stream (e.g. Anthropic overloaded)
            status = None
        return ProviderError(provider_error_kind(status, code, message), message, provider=provider,
                             status=status, retry_after=parse_retry_after(headers))
    if "APIConnectionError" in names:
        cause = exc.__cause__
        if cause is not None and _names(cause) & {"TimeoutException", "TimeoutError"}:
            return ProviderError(ErrorKind.TIMEOUT, f"request timed out ({cause!r})", provider=provider)
        reason = f"{type(cause).__name__}: {cause}" if cause is not None else detail
        return ProviderError(ErrorKind.CONNECTION, f"connection failed ({reason})", provider=provider)
    if names & _TRANSPORT_NAMES:
        return ProviderError(ErrorKind.CONNECTION, f"connection failed ({type(exc).__name__}: {detail})",
                             provider=provider)
    return ProviderError(ErrorKind.UNKNOWN, f"{type(exc).__name__}: {detail}", provider=provider)
