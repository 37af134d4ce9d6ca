"""The effective provider set: registered profiles merged with ``[providers.*]`` config.

A ``[providers.<name>]`` table either *defines* a provider (no registered profile of that
name: it needs ``base_url``) or *overrides* fields of the registered one (``base_url``,
``headers`` …). No code is needed for either.

Key-host rule (an API key read for one provider is never sent to another host): the key
environment variables a *plugin* declared belong to the host of the base URL the plugin
declared. When config moves a registered provider to another host without naming
``key_env`` itself, those variables are withheld (recorded in :attr:`ProviderSet.withheld`
so error messages can say why no key was sent). A config-defined provider only ever gets
its own ``key_env``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from talaria import ConfigError, ModelInfo, ProviderProfile

__all__ = ["BUILTIN_API_MODES", "ProviderSet", "effective_profiles", "host_of"]

#: API modes the bundled plugins provide; used when the caller does not pass the registry.
BUILTIN_API_MODES = frozenset({"chat_completions", "responses", "anthropic_messages"})

_PROVIDER_KEYS = frozenset(
    {
        "api_mode", "base_url", "key_env", "keyless", "headers", "extra_body", "models",
        "aliases", "context_window", "max_output", "default_model", "display_name",
        "description",
    }
)
_MODEL_KEYS = frozenset(
    {
        "id", "context_window", "max_output", "aliases", "capabilities", "input_price",
        "output_price", "cache_read_price", "cache_write_price",
    }
)


def host_of(base_url: str | None) -> str:
    """Return the lower-cased ``host[:port]`` of a URL ("" for None: the SDK's default host)."""
    if not base_url:
        return ""
    parts = urlsplit(base_url if "//" in base_url else f"//{base_url}")
    host = (parts.hostname or "").lower()
    return f"{host}:{parts.port}" if parts.port else host


class ProviderSet(Mapping[str, ProviderProfile]):
    """Provider name → effective :class:`ProviderProfile`, in registration order.

    :attr origins: name → ``"registered"``, ``"config"`` (defined by config) or
        ``"registered+config"`` (a registered profile with config overrides).
    :attr withheld: name → key env vars not used because config moved the provider to
        another host.
    """

    def __init__(self) -> None:
        self._profiles: dict[str, ProviderProfile] = {}
        self.origins: dict[str, str] = {}
        self.withheld: dict[str, tuple[str, ...]] = {}

    def __getitem__(self, name: str) -> ProviderProfile:
        return self._profiles[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._profiles)

    def __len__(self) -> int:
        return len(self._profiles)

    def add(self, profile: ProviderProfile, origin: str) -> None:
        self._profiles[profile.name] = profile
        self.origins[profile.name] = origin

    def lookup(self, name: str) -> ProviderProfile | None:
        """Find a provider by name or alias (case-insensitive)."""
        if name in self._profiles:
            return self._profiles[name]
        low = name.lower()
        for profile in self._profiles.values():
            if profile.name.lower() == low or low in (a.lower() for a in profile.aliases):
                return profile
        return None


def effective_profiles(
    registry: Mapping[str, ProviderProfile],
    config: Mapping[str, Any],
    *,
    api_modes: Any = None,
) -> ProviderSet:
    """Merge the registered profiles with the config's ``[providers.*]`` tables.

    :param registry: registered profiles by name.
    :param config: the parsed ``config.toml``.
    :param api_modes: names of registered API modes (any container); None accepts the
        built-in ones and every mode a registered profile uses.
    :raises talaria.ConfigError: a table with an unknown key, a bad value, an unknown
        ``api_mode``, or a new provider without ``base_url``.
    """
    if isinstance(registry, ProviderSet):
        return registry
    known_modes = set(api_modes) if api_modes is not None else (
        set(BUILTIN_API_MODES) | {p.api_mode for p in registry.values()}
    )
    result = ProviderSet()
    for name, profile in registry.items():
        result.add(profile, "registered")
    tables = config.get("providers") or {}
    if not isinstance(tables, Mapping):
        raise ConfigError("providers: must be a table of [providers.<name>] tables")
    for name, table in tables.items():
        where = f"providers.{name}"
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: must be a table, e.g. [providers.{name}] base_url = \"…\"")
        if "/" in name:
            raise ConfigError(f"{where}: a provider name cannot contain '/'")
        _check_keys(where, table)
        base = registry.get(name)
        if base is None:
            profile = _define(name, table, where)
            result.add(profile, "config")
        else:
            profile = _override(base, table, where, result)
            result.add(profile, "registered+config")
        if profile.api_mode not in known_modes:
            raise ConfigError(
                f"{where}.api_mode: unknown API mode {profile.api_mode!r}; "
                f"known: {', '.join(sorted(known_modes))}"
            )
    return result


def _check_keys(where: str, table: Mapping[str, Any]) -> None:
    for key in table:
        if key in ("api_key", "key"):
            raise ConfigError(
                f"{where}.{key}: API keys do not belong in config.toml; set key_env = \"VAR\" "
                f"and export the key in that variable, or run `talaria auth add {where[10:]}`"
            )
        if key not in _PROVIDER_KEYS:
            raise ConfigError(
                f"{where}.{key}: unknown key; known keys: {', '.join(sorted(_PROVIDER_KEYS))}"
            )


def _define(name: str, table: Mapping[str, Any], where: str) -> ProviderProfile:
    if not table.get("base_url"):
        raise ConfigError(
            f"{where}.base_url: required for a provider defined in config "
            f"(e.g. base_url = \"http://127.0.0.1:11434/v1\")"
        )
    key_env = _str_tuple(table.get("key_env", ()), f"{where}.key_env")
    return ProviderProfile(
        name=name,
        api_mode=_str(table.get("api_mode", "chat_completions"), f"{where}.api_mode"),
        base_url=_str(table["base_url"], f"{where}.base_url"),
        key_env=key_env,
        keyless=bool(table.get("keyless", not key_env)),
        aliases=_str_tuple(table.get("aliases", ()), f"{where}.aliases"),
        display_name=table.get("display_name"),
        description=str(table.get("description", "defined in config.toml")),
        default_model=_opt_str(table.get("default_model"), f"{where}.default_model"),
        models=_models(table.get("models", ()), f"{where}.models"),
        context_window=_opt_int(table.get("context_window"), f"{where}.context_window"),
        max_output=_opt_int(table.get("max_output"), f"{where}.max_output"),
        default_headers=_str_map(table.get("headers", {}), f"{where}.headers"),
        extra_body=dict(_map(table.get("extra_body", {}), f"{where}.extra_body")),
    )


def _override(
    base: ProviderProfile, table: Mapping[str, Any], where: str, result: ProviderSet
) -> ProviderProfile:
    changes: dict[str, Any] = {}
    if "api_mode" in table:
        changes["api_mode"] = _str(table["api_mode"], f"{where}.api_mode")
    if "base_url" in table:
        changes["base_url"] = _str(table["base_url"], f"{where}.base_url")
    if "key_env" in table:
        changes["key_env"] = _str_tuple(table["key_env"], f"{where}.key_env")
    elif "base_url" in table and host_of(changes["base_url"]) != host_of(base.base_url):
        if base.key_env:
            result.withheld[base.name] = base.key_env
        changes["key_env"] = ()
    if "keyless" in table:
        changes["keyless"] = bool(table["keyless"])
    if "aliases" in table:
        extra = _str_tuple(table["aliases"], f"{where}.aliases")
        changes["aliases"] = base.aliases + tuple(a for a in extra if a not in base.aliases)
    for key in ("context_window", "max_output"):
        if key in table:
            changes[key] = _opt_int(table[key], f"{where}.{key}")
    for key in ("default_model", "display_name", "description"):
        if key in table:
            changes[key] = _opt_str(table[key], f"{where}.{key}")
    if "headers" in table:
        changes["default_headers"] = {
            **base.default_headers, **_str_map(table["headers"], f"{where}.headers")
        }
    if "extra_body" in table:
        changes["extra_body"] = {**base.extra_body, **_map(table["extra_body"], f"{where}.extra_body")}
    if "models" in table:
        added = _models(table["models"], f"{where}.models")
        ids = {m.id for m in added}
        changes["models"] = tuple(m for m in base.models if m.id not in ids) + added
    return replace(base, **changes)


# --------------------------------------------------------------------------- value parsing


def _models(raw: Any, where: str) -> tuple[ModelInfo, ...]:
    """Models as a list of ids / tables, or a table of ``id = {…}``."""
    items: list[tuple[str, Mapping[str, Any]]] = []
    if isinstance(raw, Mapping):
        items = [(str(k), _map(v, f"{where}.{k}")) for k, v in raw.items()]
    elif isinstance(raw, (list, tuple)):
        for i, entry in enumerate(raw):
            if isinstance(entry, str):
                items.append((entry, {}))
            elif isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
                items.append((entry["id"], entry))
            else:
                raise ConfigError(f"{where}[{i}]: expected a model id or a table with id = \"…\"")
    else:
        raise ConfigError(f"{where}: expected a list of model ids or tables")
    out = []
    for model_id, spec in items:
        sub = f"{where}.{model_id}"
        for key in spec:
            if key not in _MODEL_KEYS:
                raise ConfigError(f"{sub}.{key}: unknown key; known: {', '.join(sorted(_MODEL_KEYS))}")
        prices = {k: _opt_float(spec.get(k), f"{sub}.{k}") for k in
                  ("input_price", "output_price", "cache_read_price", "cache_write_price")}
        info = ModelInfo(
            id=model_id,
            context_window=_opt_int(spec.get("context_window"), f"{sub}.context_window"),
            max_output=_opt_int(spec.get("max_output"), f"{sub}.max_output"),
            aliases=_str_tuple(spec.get("aliases", ()), f"{sub}.aliases"),
            **prices,
        )
        if "capabilities" in spec:
            info = replace(info, capabilities=frozenset(_str_tuple(spec["capabilities"], sub)))
        out.append(info)
    return tuple(out)


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _opt_str(value: Any, where: str) -> str | None:
    return None if value is None else _str(value, where)


def _opt_int(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _opt_float(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{where}: expected a non-negative number, got {value!r}")
    return float(value)


def _str_tuple(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) and v for v in value):
        return tuple(value)
    raise ConfigError(f"{where}: expected a string or a list of strings, got {value!r}")


def _map(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}: expected a table, got {value!r}")
    return value


def _str_map(value: Any, where: str) -> dict[str, str]:
    table = _map(value, where)
    if not all(isinstance(v, str) for v in table.values()):
        raise ConfigError(f"{where}: header values must be strings")
    return {str(k): v for k, v in table.items()}
