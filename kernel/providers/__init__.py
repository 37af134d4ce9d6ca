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
    return frozenset(k.provider for k in load_keys(home))
