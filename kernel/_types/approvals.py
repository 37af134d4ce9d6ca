"""Approval questions and policy verdicts on tool calls.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from typing import Literal

from .._values import value_type
from .transcript import ToolCall


__all__ = ["ApprovalRequest", "Verdict"]


@value_type
class ApprovalRequest:
    """A question to the human: may this call run?"""

    call: ToolCall
    tool: str
    reason: str
    rule: str | None = None  # key remembered by "session"/"always" answers
    session_id: str = ""
    summary: str = ""  # short human-readable description of the action


@value_type
class Verdict:
    """A ``pre_tool_call`` decision: allow, deny (with a reason) or ask a human."""

    action: Literal["allow", "deny", "ask"]
    reason: str = ""
    rule: str | None = None
    halt: bool = False  # deny and end the turn ``guardrail_halt``

    @classmethod
    def allow(cls, reason: str = "") -> Verdict:
        return cls(action="allow", reason=reason)

    @classmethod
    def deny(cls, reason: str, *, halt: bool = False) -> Verdict:
        return cls(action="deny", reason=reason, halt=halt)

    @classmethod
    def ask(cls, reason: str, *, rule: str | None = None) -> Verdict:
        return cls(action="ask", reason=reason, rule=rule)
