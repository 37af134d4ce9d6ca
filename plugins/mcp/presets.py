"""Presets (``optional-mcps/<name>/preset.toml``) and the ``mcpServers`` JSON import format.

Contract:

- :func:`presets_dir` is ``<plugins dir>/../optional-mcps`` — true in a source checkout and in
  an installed wheel (``talaria/_bundled/{plugins,optional-mcps}``).
- :func:`preset_entry` returns the server table a preset writes (``[server]`` plus the
  ``[tools]`` filters) and the environment variables it needs.
- :func:`import_entries` converts ``{"mcpServers": {name: {command, args, env, cwd} |
  {url, headers, type}}}`` (Claude Desktop, Cursor, VS Code…) into server tables; an entry it
  cannot convert is returned as an error, never guessed.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from talaria import ConfigError

__all__ = ["import_entries", "list_presets", "load_preset", "preset_entry", "presets_dir"]


def presets_dir() -> Path:
    """The bundled ``optional-mcps`` folder."""
    return Path(__file__).resolve().parents[1].parent / "optional-mcps"


def list_presets() -> list[str]:
    """Names of the available presets, sorted."""
    root = presets_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "preset.toml").is_file())


def load_preset(name: str) -> dict[str, Any] | None:
    """The parsed ``preset.toml`` of ``name``, or None when there is no such preset."""
    path = presets_dir() / name / "preset.toml"
    if not path.is_file():
        return None
    with path.open("rb") as fh:
        return tomllib.load(fh)


def preset_entry(preset: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The ``[mcp.servers.<name>]`` table a preset writes, and the env vars it needs."""
    server = dict(preset.get("server") or {})
    if not server.get("command") and not server.get("url"):
        raise ConfigError(f"preset {preset.get('name')!r} has no [server] command or url")
    tools = {k: list(v) for k, v in (preset.get("tools") or {}).items() if k in ("include", "exclude") and v}
    needed = [str(v) for v in preset.get("env") or []]
    if needed:
        env = dict(server.get("env") or {})
        for var in needed:
            env.setdefault(var, "${" + var + "}")
        server["env"] = env
    entry: dict[str, Any] = {k: v for k, v in server.items() if v not in (None, [], {})}
    if tools:
        entry["tools"] = tools
    return entry, needed


def _convert(name: str, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"server {name!r} is not an object")
    entry: dict[str, Any] = {}
    kind = str(raw.get("type") or raw.get("transport") or "").lower()
    if raw.get("command"):
        entry["command"] = str(raw["command"])
        if raw.get("args"):
            entry["args"] = [str(a) for a in raw["args"]]
        if raw.get("env"):
            entry["env"] = {str(k): str(v) for k, v in raw["env"].items()}
        if raw.get("cwd"):
            entry["cwd"] = str(raw["cwd"])
    elif raw.get("url") or raw.get("serverUrl"):
        entry["url"] = str(raw.get("url") or raw.get("serverUrl"))
        if raw.get("headers"):
            entry["headers"] = {str(k): str(v) for k, v in raw["headers"].items()}
        if kind == "sse":
            entry["transport"] = "sse"
    else:
        raise ConfigError(f"server {name!r} has neither `command` nor `url`")
    if raw.get("disabled") is True:
        entry["enabled"] = False
    return entry


def import_entries(text: str) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Parse an ``mcpServers`` JSON document: ``({name: entry}, {name: error})``."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON: {exc}") from exc
    servers = doc.get("mcpServers", doc.get("servers")) if isinstance(doc, Mapping) else None
    if not isinstance(servers, Mapping):
        raise ConfigError('expected a JSON object with "mcpServers": {name: {command, args, env} | {url, headers}}')
    entries: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for name, raw in servers.items():
        try:
            entries[str(name)] = _convert(str(name), raw)
        except ConfigError as exc:
            errors[str(name)] = str(exc)
    return entries, errors
