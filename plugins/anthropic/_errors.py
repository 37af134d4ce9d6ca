"""Classify any failure of a model call into a :class:`talaria.ProviderError`.

SDK-agnostic on purpose (the ``openai`` and ``anthropic`` SDKs share the shape of their
exceptions): it reads ``status_code``, ``response.headers`` and ``body`` and matches class
names along the MRO, so it never imports an SDK. Raw transport errors that the SDKs let
escape on broken streams (``httpx2.ReadTimeout``, ``RemoteProtocolError``, ``ReadError``)
and ``json.JSONDecodeError`` from a corrupt chunk are classified too.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
import time
from collections.abc import Mapping
from typing import Any

from talaria import ErrorKind, ProviderError

__all__ = ["classify", "is_context_overflow", "parse_retry_after"]

_OVERFLOW = re.compile(
    r"context[_ ]length|context window|maximum context|prompt is too long|prompt too long"
    r"|too many (?:input )?tokens|input is too long|input too long|reduce the length"
    r"|maximum number of tokens|exceed\w* (?:the )?(?:model'?s? )?(?:max\w* context|context)"
    r"|token limit",
    re.IGNORECASE,
)

#: provider error ``type``/``code`` strings → kind (Anthropic types, OpenAI codes).
_TYPE_KINDS = {
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


def is_context_overflow(text: str) -> bool:
    """True when an error message says the prompt does not fit the model's window."""
    return bool(_OVERFLOW.search(text or ""))


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date)."""
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
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _error_fields(body: Any) -> tuple[str, str]:
    """(type-or-code, message) from an OpenAI or Anthropic error body."""
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


def kind_for(status: int | None, code: str, text: str) -> ErrorKind:
    """The kind for an HTTP status plus the provider's error code and message."""
    code_kind = _TYPE_KINDS.get(code)
    if code_kind is ErrorKind.CONTEXT_OVERFLOW or (
        (status in (400, 413, 422, None) or code_kind is ErrorKind.BAD_REQUEST) and is_context_overflow(text)
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


def provider_error(kind: ErrorKind | str, message: str, provider: str, **kw: Any) -> ProviderError:
    return ProviderError(kind, message, provider=provider, **kw)


def classify(exc: BaseException, provider: str = "") -> ProviderError:
    """Turn ``exc`` (anything raised while calling a model) into a ``ProviderError``."""
    if isinstance(exc, ProviderError):
        return exc
    names = _names(exc)
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) or names & {"APITimeoutError", "TimeoutException"}:
        return provider_error(ErrorKind.TIMEOUT, f"request timed out ({detail})", provider)
    if isinstance(exc, json.JSONDecodeError) or names & {"APIResponseValidationError", "DecodingError", "SSEError"}:
        return provider_error(ErrorKind.MALFORMED, f"malformed response from the provider: {detail}", provider)
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    if status is not None or "APIError" in names and body is not None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        code, message = _error_fields(body)
        message = message or getattr(exc, "message", "") or detail
        if status == 200:  # an error event inside a 200 stream (e.g. Anthropic overloaded)
            status = None
        kind = kind_for(status, code, message)
        return provider_error(kind, message, provider, status=status, retry_after=parse_retry_after(headers))
    if "APIConnectionError" in names:
        cause = exc.__cause__
        if cause is not None and _names(cause) & {"TimeoutException", "TimeoutError"}:
            return provider_error(ErrorKind.TIMEOUT, f"request timed out ({cause!r})", provider)
        reason = f"{type(cause).__name__}: {cause}" if cause is not None else detail
        return provider_error(ErrorKind.CONNECTION, f"connection failed ({reason})", provider)
    if names & {"TransportError", "NetworkError", "ProtocolError", "ConnectionError", "OSError"}:
        return provider_error(ErrorKind.CONNECTION, f"connection failed ({type(exc).__name__}: {detail})", provider)
    return provider_error(ErrorKind.UNKNOWN, f"{type(exc).__name__}: {detail}", provider)
