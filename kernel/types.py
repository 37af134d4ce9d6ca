"""Value types shared by the kernel and plugins.

Every type here is a frozen, keyword-only dataclass: plugins construct them, the kernel
stores and passes them on, nobody mutates them. New fields are only ever added with a
default, so a plugin written against an older Talaria keeps working.

Three forms of a message (DESIGN §4): ``content`` is canonical (display, audit, search);
``api_content`` is the stable shape replayed to the provider (for example reasoning items
an API mode must send back verbatim); the *wire* copy is built per request by the API mode
and never stored.

The classes live in :mod:`talaria._types`, one module per subject, and are imported on
first use: ``from talaria.types import Message`` (or ``from talaria import Message``)
builds only the transcript types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._types.common import ApprovalDecision, EndReason, FinishReason, PromptTier, Role, ToolStatus, new_id

__all__ = [
    "ApprovalDecision",
    "ApprovalRequest",
    "Compaction",
    "Credential",
    "Delta",
    "DeliveryResult",
    "EndReason",
    "Event",
    "FinishReason",
    "Inbound",
    "Message",
    "ModelInfo",
    "ModelRequest",
    "ModelResponse",
    "Outbound",
    "PromptSection",
    "ProviderProfile",
    "Role",
    "Services",
    "SessionInfo",
    "SlashCommand",
    "DoctorCheck",
    "CheckResult",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolResult",
    "ToolSpec",
    "Toolset",
    "TurnRecord",
    "Usage",
    "Verdict",
    "new_id",
]


#: class name → the module of :mod:`talaria._types` that defines it
_HOMES = {
    **dict.fromkeys(["ToolCall", "ToolResult", "Message", "Usage"], "transcript"),
    **dict.fromkeys(["ModelInfo", "ProviderProfile", "Credential"], "providers"),
    **dict.fromkeys(["ModelRequest", "Delta", "ModelResponse"], "model_calls"),
    **dict.fromkeys(["ToolSpec", "ToolContext", "Tool", "Toolset", "ToolHandler"], "tools"),
    **dict.fromkeys(["ApprovalRequest", "Verdict"], "approvals"),
    **dict.fromkeys(["PromptSection", "SessionInfo", "Compaction", "Event", "TurnRecord"], "sessions"),
    "Services": "services",
    **dict.fromkeys(["Inbound", "Outbound", "DeliveryResult"], "channels"),
    **dict.fromkeys(["SlashCommand", "CheckResult", "DoctorCheck"], "cli"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"._types.{home}", __package__), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


if TYPE_CHECKING:
    from ._types.approvals import ApprovalRequest, Verdict
    from ._types.channels import DeliveryResult, Inbound, Outbound
    from ._types.cli import CheckResult, DoctorCheck, SlashCommand
    from ._types.model_calls import Delta, ModelRequest, ModelResponse
    from ._types.providers import Credential, ModelInfo, ProviderProfile
    from ._types.services import Services
    from ._types.sessions import Compaction, Event, PromptSection, SessionInfo, TurnRecord
    from ._types.tools import Tool, ToolContext, ToolHandler, Toolset, ToolSpec
    from ._types.transcript import Message, ToolCall, ToolResult, Usage
