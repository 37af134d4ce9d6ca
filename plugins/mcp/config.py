"""The ``[mcp]`` config section: one :class:`ServerConfig` per ``[mcp.servers.<name>]``.

Contract:

- stdio servers have ``command`` (plus ``args``, ``env``, ``cwd``); HTTP servers have ``url``
  (plus ``headers``; ``transport = "sse"`` selects legacy SSE, default Streamable HTTP).
- ``tools = {include = [...], exclude = [...]}``: include wins over exclude and applies to
  the utility tools too; ``tools.resources`` / ``tools.prompts`` (default true) turn the
  utility tools off for a server that advertises them.
- ``url`` must start with ``http://`` or ``https://`` (or be a ``${VAR}`` placeholder).
- ``timeout`` (per call, default 120 s), ``connect_timeout`` (default 30 s).
- ``sampling = {enabled, model, max_tokens, rpm, allowed_models}``; defaults come from the
  ``[mcp.sampling]`` section, then from :data:`SAMPLING_DEFAULTS`.
- In ``args``, ``cwd``, ``url``, ``env`` and ``headers`` values, ``${WORKSPACE}`` becomes the
  workspace and ``${VAR}`` the parent's environment variable ``VAR`` (a missing one is an
  error naming it): the only way a parent's secret reaches a server is by being named.

A bad entry never breaks the others: :func:`parse_servers` returns it as an error record.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from talaria import ConfigError

__all__ = [
    "SAFE_ENV",
    "SAMPLING_DEFAULTS",
    "SamplingConfig",
    "UTILITY_TOOLS",
    "ServerConfig",
    "child_env",
    "expand",
    "parse_server",
    "parse_servers",
]

#: Parent environment variables a stdio server inherits (plus every ``LC_*``).
SAFE_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TMPDIR",
    "TZ", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
    "SYSTEMROOT", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "TEMP", "TMP",
)

SAMPLING_DEFAULTS: Mapping[str, Any] = {
    "enabled": True, "model": None, "max_tokens": 1024, "rpm": 10, "allowed_models": (),
}

#: Utility tools offered for servers with resources / prompts (filterable like server tools).
UTILITY_TOOLS = ("list_resources", "read_resource", "list_prompts", "get_prompt")

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_KNOWN_KEYS = frozenset({
    "command", "args", "env", "cwd", "url", "headers", "transport", "enabled", "tools",
    "timeout", "connect_timeout", "sampling", "description", "preset", "keepalive",
})


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplingConfig:
    """Limits on a server's ``sampling/createMessage`` requests."""

    enabled: bool = True
    model: str | None = None
    max_tokens: int = 1024
    rpm: int = 10
    allowed_models: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    """One configured MCP server (values as written; see :func:`expand` for placeholders)."""

    name: str
    transport: str  # "stdio" | "http" | "sse"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    resources: bool = True
    prompts: bool = True
    timeout: float = 120.0
    connect_timeout: float = 30.0
    keepalive: float = 60.0
    sampling: SamplingConfig = field(default_factory=SamplingConfig)

    def wants_tool(self, tool: str) -> bool:
        """Whether the include/exclude filters let ``tool`` through (include wins)."""
        if self.include:
            return tool in self.include
        return tool not in self.exclude


def expand(value: str, workspace: Path, *, what: str) -> str:
    """Replace ``${WORKSPACE}`` and ``${VAR}`` placeholders; raise ConfigError on a missing var."""

    def sub(match: re.Match[str]) -> str:
        var = match.group(1)
        if var == "WORKSPACE":
            return str(workspace)
        if var not in os.environ:
            raise ConfigError(f"{what} uses ${{{var}}} but {var} is not set; export it or edit the value")
        return os.environ[var]

    return _VAR.sub(sub, value)


def child_env(declared: Mapping[str, str], parent: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a stdio server: a safe baseline of ``parent`` plus ``declared``.

    Nothing else of the parent's environment passes (API keys, tokens…).
    """
    parent = os.environ if parent is None else parent
    env = {k: v for k, v in parent.items() if (k in SAFE_ENV or k.startswith("LC_")) and not v.startswith("()")}
    env.update({str(k): str(v) for k, v in declared.items()})
    return env


def _strs(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ConfigError(f"{where} must be a list of strings")
    return tuple(str(v) for v in value)


def _str_map(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a table of strings")
    return {str(k): str(v) for k, v in value.items()}


def _number(value: Any, default: float, where: str) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{where} must be a positive number of seconds")
    return float(value)


def _sampling(raw: Any, defaults: Mapping[str, Any], where: str) -> SamplingConfig:
    merged = dict(SAMPLING_DEFAULTS)
    merged.update({k: v for k, v in defaults.items() if k in SAMPLING_DEFAULTS})
    if isinstance(raw, bool):
        merged["enabled"] = raw
    elif isinstance(raw, Mapping):
        merged.update({k: v for k, v in raw.items() if k in SAMPLING_DEFAULTS})
    elif raw is not None:
        raise ConfigError(f"{where} must be a table or true/false")
    return SamplingConfig(
        enabled=bool(merged["enabled"]),
        model=str(merged["model"]) if merged["model"] else None,
        max_tokens=int(merged["max_tokens"]),
        rpm=int(merged["rpm"]),
        allowed_models=_strs(merged["allowed_models"], f"{where}.allowed_models"),
    )


def parse_server(name: str, raw: Mapping[str, Any], section: Mapping[str, Any] | None = None) -> ServerConfig:
    """Validate one ``[mcp.servers.<name>]`` table; raise :class:`talaria.ConfigError`."""
    where = f"[mcp.servers.{name}]"
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(raw) - _KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{where} has unknown keys {unknown}; known: {sorted(_KNOWN_KEYS)}")
    command, url = raw.get("command"), raw.get("url")
    if bool(command) == bool(url):
        raise ConfigError(f"{where} needs exactly one of `command` (stdio) or `url` (HTTP)")
    transport = str(raw.get("transport") or ("stdio" if command else "http")).lower()
    transport = {"streamable-http": "http", "streamable_http": "http", "streamablehttp": "http"}.get(
        transport, transport
    )
    if transport not in ("stdio", "http", "sse") or (transport == "stdio") != bool(command):
        raise ConfigError(f"{where} transport {transport!r} does not fit; use `command` for stdio, "
                          "`url` with transport \"http\" (default) or \"sse\"")
    if url and not str(url).lower().startswith(("http://", "https://", "${")):
        raise ConfigError(f"{where} url {url!r} must start with http:// or https:// "
                          "(e.g. http://127.0.0.1:3001/mcp)")
    tools = raw.get("tools") or {}
    if not isinstance(tools, Mapping):
        raise ConfigError(f"{where}.tools must be a table like {{include = [...], exclude = [...]}}")
    section = section or {}
    return ServerConfig(
        name=name,
        transport=transport,
        command=str(command) if command else None,
        args=_strs(raw.get("args"), f"{where}.args"),
        env=_str_map(raw.get("env"), f"{where}.env"),
        cwd=str(raw["cwd"]) if raw.get("cwd") else None,
        url=str(url) if url else None,
        headers=_str_map(raw.get("headers"), f"{where}.headers"),
        enabled=bool(raw.get("enabled", True)),
        include=_strs(tools.get("include"), f"{where}.tools.include"),
        exclude=_strs(tools.get("exclude"), f"{where}.tools.exclude"),
        resources=bool(tools.get("resources", True)),
        prompts=bool(tools.get("prompts", True)),
        timeout=_number(raw.get("timeout"), 120.0, f"{where}.timeout"),
        connect_timeout=_number(raw.get("connect_timeout"), 30.0, f"{where}.connect_timeout"),
        keepalive=_number(raw.get("keepalive"), float(section.get("keepalive", 60.0)), f"{where}.keepalive"),
        sampling=_sampling(raw.get("sampling"), section.get("sampling") or {}, f"{where}.sampling"),
    )


def parse_servers(section: Mapping[str, Any] | None) -> tuple[list[ServerConfig], dict[str, str]]:
    """Parse every server of the ``[mcp]`` section.

    :returns: the valid servers (in config order) and ``{name: error}`` for the invalid ones.
    """
    section = section or {}
    servers = section.get("servers") or {}
    valid: list[ServerConfig] = []
    errors: dict[str, str] = {}
    if not isinstance(servers, Mapping):
        return valid, {"servers": "[mcp.servers] must be a table of tables"}
    for name, raw in servers.items():
        try:
            valid.append(parse_server(str(name), raw, section))
        except ConfigError as exc:
            errors[str(name)] = str(exc)
    return valid, errors
