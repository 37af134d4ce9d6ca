"""The one exception hierarchy of Talaria.

::

    TalariaError
     ├── ConfigError          bad or unknown configuration (names the key)
     ├── UsageError           a command used wrongly (the CLI exits 2)
     ├── PluginError          raised by plugins for messages the user should see
     │    └── RegistrationError   a ``register(...)`` call got something it cannot accept
     ├── ToolError            raised by a tool handler: the message becomes the error result
     ├── ProviderError        a classified model-call failure (see :class:`ErrorKind`)
     ├── CompressionError     a context engine could not compact the history
     └── StoreError           the session store failed
          ├── PersistenceError    a write did not land (the turn ends ``persistence_failed``)
          ├── LeaseLost           this process no longer owns the session
          └── DuplicateRequest    the admission already exists (idempotent resubmission)
"""

from __future__ import annotations

import enum

__all__ = [
    "CompressionError",
    "ConfigError",
    "DuplicateRequest",
    "ErrorKind",
    "LeaseLost",
    "PersistenceError",
    "PluginError",
    "ProviderError",
    "RegistrationError",
    "StoreError",
    "TalariaError",
    "ToolError",
    "UsageError",
]


class TalariaError(Exception):
    """Base of every error Talaria raises on purpose."""


class ConfigError(TalariaError):
    """Configuration that cannot be used; the message names the key and what to do."""


class UsageError(TalariaError):
    """A command-line usage mistake."""


class PluginError(TalariaError):
    """An error a plugin raises for the user to read (rendered without a traceback)."""


class RegistrationError(PluginError):
    """A plugin registered something invalid (wrong type, missing name, bad schema…)."""


class ToolError(TalariaError):
    """Raised by a tool handler; its message is returned to the model as an error result."""


class ErrorKind(str, enum.Enum):
    """Why a model call failed. The retry/fallback policy decides on the kind alone."""

    RATE_LIMIT = "rate_limit"
    AUTH = "auth"
    OVERLOADED = "overloaded"
    SERVER = "server"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    TRUNCATED = "truncated"
    MALFORMED = "malformed"
    CONTEXT_OVERFLOW = "context_overflow"
    BAD_REQUEST = "bad_request"
    NOT_FOUND = "not_found"
    UNKNOWN = "unknown"

    @property
    def transient(self) -> bool:
        """True when the same request may succeed if simply retried."""
        return self in _TRANSIENT


_TRANSIENT = frozenset(
    {
        ErrorKind.RATE_LIMIT,
        ErrorKind.OVERLOADED,
        ErrorKind.SERVER,
        ErrorKind.TIMEOUT,
        ErrorKind.CONNECTION,
        ErrorKind.TRUNCATED,
        ErrorKind.MALFORMED,
    }
)


class ProviderError(TalariaError):
    """A model call failed, classified by the API mode that made it.

    :param kind: the :class:`ErrorKind`.
    :param status: HTTP status, when there was one.
    :param retry_after: seconds the server asked us to wait, when it said so.
    """

    def __init__(
        self,
        kind: ErrorKind | str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        provider: str = "",
    ) -> None:
        super().__init__(message)
        self.kind = ErrorKind(kind)
        self.status = status
        self.retry_after = retry_after
        self.provider = provider

    def __str__(self) -> str:
        status = f" {self.status}" if self.status else ""
        return f"{self.kind.value}{status}: {self.args[0]}"


class CompressionError(TalariaError):
    """A context engine failed; nothing was dropped."""


class StoreError(TalariaError):
    """The session store failed."""


class PersistenceError(StoreError):
    """A write did not land; nothing that depends on it may be sent to the model."""


class LeaseLost(StoreError):
    """The session lease was lost or taken over; the old owner must stop writing."""


class DuplicateRequest(StoreError):
    """An admission with this (principal, session_key, request_id) already exists."""

    def __init__(self, message: str, *, admission_id: str, status: str) -> None:
        super().__init__(message)
        self.admission_id = admission_id
        self.status = status
