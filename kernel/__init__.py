"""Talaria: a plugin-first agent runtime.

This module is the whole public API for plugins: ``hookimpl`` to mark hook
implementations, the value types they construct, the protocols of the things they
register, and the errors they raise. Plugins import nothing else from Talaria.

A minimal plugin::

    from talaria import ProviderProfile, hookimpl

    @hookimpl
    def register_providers(register):
        register(ProviderProfile(name="acme", base_url="https://api.acme.ai/v1",
                                 key_env=("ACME_API_KEY",)))
"""

from __future__ import annotations

import pluggy

from ._version import __version__
from .errors import (
    CompressionError,
    ConfigError,
    ErrorKind,
    PersistenceError,
    PluginError,
    ProviderError,
    RegistrationError,
    TalariaError,
    ToolError,
    UsageError,
)
from .protocols import (
    ApiMode,
    Channel,
    CliContext,
    ContextEngine,
    Gateway,
    MemoryProvider,
    Registrar,
    Summarizer,
    ToolSource,
)
from .types import (
    ApprovalDecision,
    ApprovalRequest,
    CheckResult,
    Compaction,
    Credential,
    Delta,
    DeliveryResult,
    DoctorCheck,
    EndReason,
    Event,
    Inbound,
    Message,
    ModelInfo,
    ModelRequest,
    ModelResponse,
    Outbound,
    PromptSection,
    ProviderProfile,
    Services,
    SessionInfo,
    SlashCommand,
    Tool,
    ToolCall,
    ToolContext,
    ToolResult,
    Toolset,
    ToolSpec,
    TurnRecord,
    Usage,
    Verdict,
    new_id,
)

#: Marks a function as the implementation of a Talaria hook.
hookimpl = pluggy.HookimplMarker("talaria")

__all__ = [
    "ApiMode",
    "ApprovalDecision",
    "ApprovalRequest",
    "Channel",
    "CheckResult",
    "CliContext",
    "Compaction",
    "CompressionError",
    "ConfigError",
    "ContextEngine",
    "Credential",
    "Delta",
    "DeliveryResult",
    "DoctorCheck",
    "EndReason",
    "ErrorKind",
    "Event",
    "Gateway",
    "Inbound",
    "MemoryProvider",
    "Message",
    "ModelInfo",
    "ModelRequest",
    "ModelResponse",
    "Outbound",
    "PersistenceError",
    "PluginError",
    "PromptSection",
    "ProviderError",
    "ProviderProfile",
    "Registrar",
    "RegistrationError",
    "Services",
    "SessionInfo",
    "SlashCommand",
    "Summarizer",
    "TalariaError",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolSource",
    "ToolSpec",
    "Toolset",
    "TurnRecord",
    "Usage",
    "UsageError",
    "Verdict",
    "__version__",
    "hookimpl",
    "new_id",
]
