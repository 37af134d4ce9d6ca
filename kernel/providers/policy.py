"""Retry, credential rotation and fallback for one model call: :func:`call_with_policy`.

The decision depends on the :class:`talaria.ErrorKind` alone:

========================  ================================================================
kind                      action
========================  ================================================================
rate_limit                mark the key exhausted; rotate to another ok key if there is one;
                          else fall back to the next model at once (do not burn retries);
                          on the last model, wait (``retry-after`` honoured) and retry
auth                      mark the key (exhausted, or dead when it keeps failing); rotate;
                          with no key left, fall back; on the last model, fail
overloaded, server,       retry with jittered exponential backoff (``retry-after``
timeout, connection,      honoured, capped) up to ``max_attempts`` per model, then fall
truncated, malformed      back; a cut stream is re-asked as a fresh request, never
                          continued with an invented message
context_overflow          ``on_overflow(model)`` once (it compresses; True = retry with a
                          rebuilt request), then fail closed
bad_request, not_found,   fail at once
unknown
========================  ================================================================

Every change of target model calls ``build_request`` again: a new window, API mode and
message shape mean the wire messages are rebuilt, never reused. ``CancelledError``
always propagates at once. When everything fails, the last classified
:class:`talaria.ProviderError` is raised.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import field
from typing import Any

from talaria import (
    ApiMode,
    ConfigError,
    Delta,
    ErrorKind,
    Event,
    ModelRequest,
    ModelResponse,
    ProviderError,
    Usage,
)

from .._values import value_type
from .credentials import CredentialPool
from .resolve import ResolvedModel

__all__ = ["PolicyOutcome", "RetrySettings", "call_with_policy"]


@value_type
class RetrySettings:
    """The ``[retry]`` config section.

    :param max_attempts: attempts per model for transient failures (first try included).
    :param base_delay: backoff before the 2nd attempt; doubles each time.
    :param max_delay: cap on a computed backoff delay.
    :param max_retry_after: cap on a server's ``retry-after`` we are willing to wait.
    :param jitter: fraction of a backoff delay that is randomized (0 = none).
    """

    max_attempts: int = 3
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    jitter: float = 0.5

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RetrySettings:
        """Read ``[retry]``; :raises talaria.ConfigError: on a bad value."""
        section = config.get("retry") or {}
        if not isinstance(section, Mapping):
            raise ConfigError("retry: must be a table")
        values: dict[str, Any] = {}
        for key, default in (("max_attempts", 3), ("base_delay", 1.0), ("max_delay", 30.0),
                             ("max_retry_after", 120.0), ("jitter", 0.5)):
            value = section.get(key, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
                key == "max_attempts" and (value < 1 or int(value) != value)) or (key == "jitter" and value > 1):
                raise ConfigError(f"retry.{key}: bad value {value!r}")
            values[key] = int(value) if key == "max_attempts" else float(value)
        unknown = set(section) - set(values)
        if unknown:
            raise ConfigError(f"retry.{sorted(unknown)[0]}: unknown key; known: {', '.join(values)}")
        return cls(**values)

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Delay before attempt ``attempt + 1`` (``attempt`` ≥ 1 failed so far)."""
        delay = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return delay * (1 - self.jitter * rng.random())


@value_type
class PolicyOutcome:
    """A successful call: the response, who served it, and what it took."""

    response: ModelResponse
    served_by: ResolvedModel
    request: ModelRequest
    attempts: int
    failed_usage: Usage = field(default_factory=Usage)
    errors: tuple[ProviderError, ...] = ()


async def call_with_policy(
    chain: Sequence[ResolvedModel],
    *,
    build_request: Callable[[ResolvedModel], Awaitable[ModelRequest]],
    get_api_mode: Callable[[str], ApiMode],
    pool: CredentialPool,
    on_delta: Callable[[Delta], None],
    emit: Callable[[Event], None],
    on_overflow: Callable[[ResolvedModel], Awaitable[bool]] | None,
    settings: RetrySettings,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    rng: random.Random | None = None,
    on_attempt: Callable[[ModelRequest], Awaitable[None]] | None = None,
) -> PolicyOutcome:
    """Call the first model of ``chain`` that answers, retrying, rotating and falling back.

    :param chain: the configured model followed by its fallbacks (at least one).
    :param build_request: the engine's preflight + request build for one model; called
        for the first model, on every fallback, and after ``on_overflow`` compressed.
    :param get_api_mode: API mode name → instance.
    :param on_delta: receives streamed pieces (a retried attempt streams again; a
        ``retry`` event with ``discard_partial`` tells the channel to drop what it showed).
    :param emit: receives ``retry``, ``fallback`` and ``credential_rotated`` events.
    :param on_overflow: compresses history for the model; True means retry.
    :param sleep: awaited for every backoff (inject to test or to bound waits).
    :param rng: randomness for backoff jitter.
    :param on_attempt: awaited with the request before every attempt (``pre_llm_call``).
    :raises talaria.ProviderError: the last classified failure when nothing succeeded.
    """
    if not chain:
        raise ConfigError("model: no model to call; configure model = \"provider/model\"")
    rng = rng or random.Random()
    attempts = 0
    failed_usage = Usage()
    errors: list[ProviderError] = []
    last: ProviderError | None = None
    for index, model in enumerate(chain):
        has_next = index + 1 < len(chain)
        request = await build_request(model)
        api_mode = get_api_mode(model.api_mode)
        tries = 0  # transient failures of this model
        overflowed = False
        wait_for_key = False
        rotations_left: int | None = None
        while True:
            try:
                credential = pool.acquire(model.profile, base_url=request.base_url,
                                          include_exhausted=wait_for_key)
            except ProviderError as exc:  # no usable key for this model
                last = exc
                errors.append(exc)
                break
            attempts += 1
            streamed = False

            def relay(delta: Delta) -> None:
                nonlocal streamed
                streamed = True
                on_delta(delta)

            if on_attempt is not None:
                await on_attempt(request)
            try:
                response = await api_mode.complete(request, credential, relay)
            except asyncio.CancelledError:
                raise
            except ProviderError as exc:
                error = exc
            except Exception as exc:  # an API mode bug: classify, never crash the turn
                error = ProviderError(ErrorKind.UNKNOWN, f"{type(exc).__name__}: {exc}",
                                      provider=model.provider)
            else:
                pool.report_success(credential)
                return PolicyOutcome(response=response, served_by=model, request=request,
                                     attempts=attempts, failed_usage=failed_usage, errors=tuple(errors))
            last = error
            errors.append(error)
            usage = getattr(error, "usage", None)
            if isinstance(usage, Usage):
                failed_usage = failed_usage + usage
            kind = error.kind
            base = {"provider": model.provider, "model": model.model_id, "error_kind": kind.value,
                    "status": error.status, "message": str(error), "attempt": attempts}

            if kind in (ErrorKind.RATE_LIMIT, ErrorKind.AUTH):
                status = pool.report_failure(credential, error)
                remaining = 0 if credential.id == "keyless" else pool.available(
                    model.profile, base_url=request.base_url)
                if rotations_left is None:  # each key may be rotated to once per model
                    rotations_left = len(pool.entries(model.profile, base_url=request.base_url)) - 1
                if remaining and rotations_left > 0:
                    rotations_left -= 1
                    emit(Event(kind="credential_rotated", data={**base, "from_id": credential.id,
                                                                "marked": status, "remaining": remaining}))
                    continue
                if has_next or kind is ErrorKind.AUTH:
                    break
                wait_for_key = True  # after the backoff below this model may use a cooling key

            if kind is ErrorKind.CONTEXT_OVERFLOW:
                if on_overflow is None or overflowed:
                    raise error
                overflowed = True
                if not await on_overflow(model):
                    raise error
                request = await build_request(model)
                emit(Event(kind="retry", data={**base, "delay": 0.0, "discard_partial": streamed,
                                               "compressed": True}))
                continue

            if not kind.transient:  # bad_request, not_found, unknown: the same call fails again
                raise error

            tries += 1
            if tries >= settings.max_attempts:
                break
            delay = _delay(error, tries, settings, rng)
            emit(Event(kind="retry", data={**base, "delay": delay, "discard_partial": streamed}))
            await sleep(delay)

        if has_next:
            emit(Event(kind="fallback", data={
                "from": model.spec, "to": chain[index + 1].spec,
                "error_kind": last.kind.value if last else "unknown",
                "message": str(last) if last else "",
            }))
    assert last is not None
    raise last


def _delay(error: ProviderError, tries: int, settings: RetrySettings, rng: random.Random) -> float:
    if error.retry_after is not None and error.retry_after >= 0:
        return min(float(error.retry_after), settings.max_retry_after)
    return settings.backoff(tries, rng)
