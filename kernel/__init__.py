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

from typing import TYPE_CHECKING, Any

from ._version import __version__

# The public names are resolved lazily (PEP 562): ``import talaria`` stays nearly free, so
# ``talaria --version`` and plugin discovery do not pay for pluggy or the dataclasses
# until something actually uses them.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        ["CompressionError", "ConfigError", "ErrorKind", "PersistenceError", "PluginError", "ProviderError",
         "RegistrationError", "TalariaError", "ToolError", "UsageError"], "errors"),
    **dict.fromkeys(
        ["ApiMode", "Channel", "CliContext", "ContextEngine", "Gateway", "MemoryProvider", "Registrar",
         "Summarizer", "ToolSource"], "protocols"),
    **dict.fromkeys(
        ["ApprovalDecision", "ApprovalRequest", "CheckResult", "Compaction", "Credential", "Delta",
         "DeliveryResult", "DoctorCheck", "EndReason", "Event", "Inbound", "Message", "ModelInfo",
         "ModelRequest", "ModelResponse", "Outbound", "PromptSection", "ProviderProfile", "Services",
         "SessionInfo", "SlashCommand", "Tool", "ToolCall", "ToolContext", "ToolResult", "Toolset",
         "ToolSpec", "TurnRecord", "Usage", "Verdict", "new_id"], "types"),
    # hosts and channels that drive turns (the CLI channel, an embedding application)
    **dict.fromkeys(["Runtime", "TurnOptions"], "turn.runtime"),
    "CompressionReport": "turn.manual",
    # helpers for provider and API-mode plugins (docs/providers.md, "Writing an API mode")
    **dict.fromkeys(
        ["classify_provider_error", "is_context_overflow", "parse_retry_after", "provider_error_kind"],
        "providers.classify"),
    "profiles_from_toml": "providers.profile_table",
    **dict.fromkeys(
        ["SdkClientCache", "json_plain", "parse_tool_arguments", "plaintext_client_options", "replay_wire",
         "run_model_call", "sdk_field", "sdk_post", "stall_bounded", "tool_arguments_json", "tool_call_from_wire"],
        "providers.api_kit"),
}


def __getattr__(name: str) -> Any:
    if name == "hookimpl":
        import pluggy

        value: Any = pluggy.HookimplMarker("talaria")
    elif name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    else:
        raise AttributeError(f"module 'talaria' has no attribute {name!r}")
    globals()[name] = value  # cache: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    import pluggy

    from .errors import (
        CompressionError, ConfigError, ErrorKind, PersistenceError, PluginError, ProviderError,
        RegistrationError, TalariaError, ToolError, UsageError,
    )
    from .protocols import (
        ApiMode, Channel, CliContext, ContextEngine, Gateway, MemoryProvider, Registrar, Summarizer, ToolSource,
    )
    from .types import (
        ApprovalDecision, ApprovalRequest, CheckResult, Compaction, Credential, Delta, DeliveryResult,
        DoctorCheck, EndReason, Event, Inbound, Message, ModelInfo, ModelRequest, ModelResponse, Outbound,
        PromptSection, ProviderProfile, Services, SessionInfo, SlashCommand, Tool, ToolCall, ToolContext,
        ToolResult, Toolset, ToolSpec, TurnRecord, Usage, Verdict, new_id,
    )
    from .providers.api_kit import (
        SdkClientCache, json_plain, parse_tool_arguments, plaintext_client_options, replay_wire, run_model_call,
        sdk_field, sdk_post, stall_bounded, tool_arguments_json, tool_call_from_wire,
    )
    from .providers.classify import (
        classify_provider_error, is_context_overflow, parse_retry_after, provider_error_kind,
    )
    from .providers.profile_table import profiles_from_toml
    from .turn.manual import CompressionReport
    from .turn.runtime import Runtime, TurnOptions

    #: Marks a function as the implementation of a Talaria hook.
    hookimpl: pluggy.HookimplMarker

__all__ = [
    "ApiMode",
    "ApprovalDecision",
    "ApprovalRequest",
    "Channel",
    "CheckResult",
    "CliContext",
    "Compaction",
    "CompressionError",
    "CompressionReport",
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
    "Runtime",
    "SdkClientCache",
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
    "TurnOptions",
    "TurnRecord",
    "Usage",
    "UsageError",
    "Verdict",
    "__version__",
    "classify_provider_error",
    "hookimpl",
    "is_context_overflow",
    "json_plain",
    "new_id",
    "parse_retry_after",
    "parse_tool_arguments",
    "profiles_from_toml",
    "provider_error_kind",
    "replay_wire",
    "run_model_call",
    "sdk_field",
    "sdk_post",
    "stall_bounded",
    "tool_arguments_json",
    "tool_call_from_wire",
]
