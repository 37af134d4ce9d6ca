"""Declarative provider profiles from a TOML file: :func:`profiles_from_toml` (public API).

A provider plugin can ship its profiles as data next to its code and register them with::

    @hookimpl
    def register_providers(register):
        for profile in profiles_from_toml(Path(__file__).with_name("profiles.toml")):
            register(profile)

The file has one top-level table per provider (the table name is the provider name)::

    [acme]
    api_mode = "chat_completions"
    base_url = "https://api.acme.ai/v1"
    key_env = ["ACME_API_KEY"]
    default_model = "acme-large"
    context_window = 131072
    models = [{ id = "acme-large", context_window = 131072, input_price = 0.5, output_price = 1.5 }]

Keys are the :class:`talaria.ProviderProfile` fields (``default_headers``, ``extra_body``,
``keyless`` …) and, per model, the :class:`talaria.ModelInfo` fields. A typo is an error,
not a silently ignored key.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from talaria import ModelInfo, ProviderProfile, RegistrationError

from ..loader._toml_cache import read_toml

__all__ = ["profiles_from_toml"]

_PROFILE_KEYS = frozenset({"api_mode", "base_url", "key_env", "keyless", "aliases", "display_name",
                           "description", "default_model", "context_window", "max_output",
                           "default_headers", "extra_body", "models"})
_MODEL_KEYS = frozenset({"id", "context_window", "max_output", "capabilities", "aliases", "input_price",
                         "output_price", "cache_read_price", "cache_write_price"})
_TUPLES = ("key_env", "aliases")


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RegistrationError(f"{where}: expected a string or a list of strings, got {value!r}")


def _model(where: str, data: Any) -> ModelInfo:
    if not isinstance(data, Mapping) or not isinstance(data.get("id"), str):
        raise RegistrationError(f"{where}: each model needs a table with id = \"…\", got {data!r}")
    unknown = set(data) - _MODEL_KEYS
    if unknown:
        raise RegistrationError(f"{where}.{data['id']}: unknown keys {sorted(unknown)}; "
                                f"known: {', '.join(sorted(_MODEL_KEYS))}")
    kwargs = dict(data)
    kwargs["aliases"] = _strings(kwargs.get("aliases", ()), f"{where}.{data['id']}.aliases")
    if "capabilities" in kwargs:
        kwargs["capabilities"] = frozenset(_strings(kwargs["capabilities"], f"{where}.{data['id']}.capabilities"))
    return ModelInfo(**kwargs)


def profiles_from_toml(path: str | Path) -> list[ProviderProfile]:
    """One :class:`ProviderProfile` per top-level table of the TOML file ``path``, in file order.

    :raises talaria.RegistrationError: the file cannot be read or parsed, or a table has an
        unknown key or a value of the wrong shape (the message names the file, provider and
        key). Raised at registration, the kernel reports it against the plugin.
    """
    path = Path(path)
    try:
        table = read_toml(path)  # parsed once per change of the file while plugins load
    except (OSError, ValueError) as exc:  # ValueError: tomllib.TOMLDecodeError, UnicodeDecodeError
        raise RegistrationError(f"cannot read provider profiles from {path}: {exc}") from exc
    profiles = []
    for name, data in table.items():
        where = f"{path.name}: [{name}]"
        if not isinstance(data, Mapping):
            raise RegistrationError(f"{where}: expected a table of provider fields")
        unknown = set(data) - _PROFILE_KEYS
        if unknown:
            raise RegistrationError(f"{where} has unknown keys {sorted(unknown)}; "
                                    f"known: {', '.join(sorted(_PROFILE_KEYS))}")
        kwargs = dict(data)
        for key in _TUPLES:
            kwargs[key] = _strings(kwargs.get(key, ()), f"{where}.{key}")
        models = kwargs.get("models", [])
        if not isinstance(models, list):
            raise RegistrationError(f"{where}.models: expected a list of model tables")
        kwargs["models"] = tuple(_model(f"{where}.models", m) for m in models)
        try:
            profiles.append(ProviderProfile(name=name, **kwargs))
        except (TypeError, ValueError) as exc:
            raise RegistrationError(f"{where}: {exc}") from exc
    return profiles
