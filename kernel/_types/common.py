"""The literal types and the id maker every value type module shares (no other imports)."""

from __future__ import annotations

import uuid
from typing import Literal

__all__ = ["ApprovalDecision", "EndReason", "FinishReason", "PromptTier", "Role", "ToolStatus", "new_id"]

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "other"]
PromptTier = Literal["stable", "context", "volatile"]
EndReason = Literal[
    "completed",
    "budget_exhausted",
    "interrupted",
    "lease_lost",
    "watchdog",
    "compression_failed",
    "guardrail_halt",
    "persistence_failed",
    "provider_error",
    "empty_response",
]
ApprovalDecision = Literal["once", "session", "always", "deny"]
ToolStatus = Literal["ok", "error", "denied", "invalid", "skipped", "unknown"]


def new_id(prefix: str = "") -> str:
    """Return a fresh random identifier (32 hex chars), optionally prefixed."""
    return f"{prefix}{uuid.uuid4().hex}"
