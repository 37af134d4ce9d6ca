"""The provider layer: model resolution, the credential pool, retry/fallback policy, cost.

Kernel-internal (plugins use :mod:`talaria` only). Cheap to import: no SDK is imported
here; the API modes registered by plugins do the wire work. The CLI commands live in
:mod:`talaria.providers.cli` (imported by the CLI only).

Typical use by the turn engine::

    chain = default_model_chain(config, os.environ, registry, stored=stored_providers(home))
    pool = CredentialPool(home, config)
    outcome = await call_with_policy(chain, build_request=..., get_api_mode=...,
                                     pool=pool, on_delta=..., emit=..., on_overflow=...,
                                     settings=RetrySettings.from_config(config))
    cost = cost_of(outcome.response.usage, outcome.served_by.model_info,
                   model=outcome.served_by.model_id)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

# Resolved lazily (PEP 562): the provider plugins import the public helpers that live in
# this package (``classify``, ``profile_table``, ``api_kit``) when they are loaded, and
# that must not pull in the pool, the policy and their imports for commands that never
# call a model.
_EXPORTS: dict[str, str] = {
    "load_keys": "auth_store",
    **dict.fromkeys(["cost_of", "prices_for"], "cost"),
    **dict.fromkeys(["CredentialPool", "PoolEntry", "PoolSettings"], "credentials"),
    **dict.fromkeys(["PolicyOutcome", "RetrySettings", "call_with_policy"], "policy"),
    **dict.fromkeys(["ProviderSet", "effective_profiles", "host_of"], "profiles"),
    **dict.fromkeys(["ResolvedModel", "default_model_chain", "first_run_message", "resolve_model"], "resolve"),
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .auth_store import load_keys
    from .cost import cost_of, prices_for
    from .credentials import CredentialPool, PoolEntry, PoolSettings
    from .policy import PolicyOutcome, RetrySettings, call_with_policy
    from .profiles import ProviderSet, effective_profiles, host_of
    from .resolve import ResolvedModel, default_model_chain, first_run_message, resolve_model

__all__ = [
    "CredentialPool",
    "PolicyOutcome",
    "PoolEntry",
    "PoolSettings",
    "ProviderSet",
    "ResolvedModel",
    "RetrySettings",
    "call_with_policy",
    "cost_of",
    "default_model_chain",
    "effective_profiles",
    "first_run_message",
    "host_of",
    "prices_for",
    "resolve_model",
    "stored_providers",
]


def stored_providers(home: Path) -> frozenset[str]:
    """Names of providers that have keys stored with ``talaria auth add``."""
    from .auth_store import load_keys

    return frozenset(k.provider for k in load_keys(home))
