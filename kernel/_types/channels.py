"""Channel messages: inbound, outbound and delivery results.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from dataclasses import field

from .._values import value_type
from .common import new_id


__all__ = ["Inbound", "Outbound", "DeliveryResult"]


@value_type
class Inbound:
    """A user message normalized by a channel, with its source metadata."""

    text: str
    platform: str
    chat_id: str = ""
    chat_type: str = "dm"
    user_id: str = ""
    thread_id: str = ""
    request_id: str = field(default_factory=new_id)
    principal: str = ""


@value_type
class Outbound:
    """A reply the gateway asks a channel to deliver."""

    delivery_id: str
    session_key: str
    text: str
    chat_id: str = ""
    thread_id: str = ""


@value_type
class DeliveryResult:
    """Outcome of :meth:`Channel.deliver`; ``ambiguous`` means it may have been sent."""

    ok: bool
    error: str | None = None
    ambiguous: bool = False
    platform_message_id: str | None = None
