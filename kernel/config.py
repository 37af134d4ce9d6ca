"""Configuration: ``$TALARIA_HOME/config.toml``, validated against a small schema.

The file is read with :mod:`tomllib` (fast, stdlib). Writing goes through ``tomlkit`` so
a user's comments and layout survive ``talaria config set`` and plugin edits.

Schema: each known key has a type; a table marked :data:`OPEN` belongs to plugins (for
example ``[context.<engine>]`` or ``[mcp]``) and is passed through unchecked. An unknown
top-level key or a wrong type raises :class:`~talaria.ConfigError` naming the key.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .paths import talaria_home

__all__ = [
    "CONFIG_FILE",
    "Config",
    "OPEN",
    "config_path",
    "edit_config",
    "get_key",
    "load_config",
    "parse_value",
    "validate",
]

CONFIG_FILE = "config.toml"


class _Open:
    """Marker: a table owned by plugins; its contents are not validated here."""

    def __repr__(self) -> str:
        return "OPEN"


OPEN = _Open()
_STR_LIST = list[str]

#: The kernel's schema. A dict is a table with known keys; ``OPEN`` a plugin-owned table;
#: ``("map", schema)`` a table of user-named entries each following ``schema``.
SCHEMA: dict[str, Any] = {
    "model": str,
    "fallback": _STR_LIST,
    "workspace": str,
    "aux_model": str,
    "plugins": {"disabled": _STR_LIST, "enabled": _STR_LIST},
    "providers": ("map", OPEN),
    "credentials": OPEN,
    "api_modes": OPEN,
    "context": OPEN,
    "memory": OPEN,
    "mcp": OPEN,
    "skills": OPEN,
    "channels": OPEN,
    "tools": OPEN,
    "approvals": OPEN,
    "turn": {
        "max_iterations": int,
        "max_api_calls": int,
        "max_tokens": int,
        "request_timeout": float,
        "stall_timeout": float,
        "lease_ttl": float,
        "lease_refresh": float,
        "lease_wait": float,
        "hook_timeout": float,
    },
    "retry": {"max_attempts": int, "base_delay": float, "max_delay": float},
    "prompt": {"identity": str, "context_files": _STR_LIST, "context_file_max_chars": int},
}

Config = dict[str, Any]


def config_path(home: Path | None = None) -> Path:
    """Path of the config file under ``home`` (default ``$TALARIA_HOME``)."""
    return (home or talaria_home()) / CONFIG_FILE


def load_config(home: Path | None = None) -> Config:
    """Read and validate the config file; a missing file is an empty config.

    :raises ConfigError: the file is not valid TOML or a key has the wrong type.
    """
    path = config_path(home)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}. Fix the file or run `talaria config path`.") from exc
    validate(data, source=str(path))
    return data


def validate(data: Mapping[str, Any], *, source: str = "config") -> None:
    """Check ``data`` against :data:`SCHEMA`.

    :raises ConfigError: naming the first bad key and what was expected.
    """
    _check_table(data, SCHEMA, prefix="", source=source)


def _type_name(expected: Any) -> str:
    if expected is _STR_LIST:
        return "a list of strings"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(
        expected, "a table"
    )


def _matches(value: Any, expected: Any) -> bool:
    if expected is _STR_LIST:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if expected is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


def _check_table(data: Mapping[str, Any], schema: Mapping[str, Any], *, prefix: str, source: str) -> None:
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if key not in schema:
            known = ", ".join(sorted(schema))
            raise ConfigError(f"{source}: unknown key '{dotted}'. Known keys here: {known}.")
        _check_value(value, schema[key], dotted=dotted, source=source)


def _check_value(value: Any, expected: Any, *, dotted: str, source: str) -> None:
    if expected is OPEN:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{source}: '{dotted}' must be a table ([{dotted}]), not {value!r}.")
        return
    if isinstance(expected, tuple) and expected[0] == "map":
        if not isinstance(value, Mapping):
            raise ConfigError(f"{source}: '{dotted}' must be a table of named entries.")
        for name, entry in value.items():
            _check_value(entry, expected[1], dotted=f"{dotted}.{name}", source=source)
        return
    if isinstance(expected, dict):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{source}: '{dotted}' must be a table ([{dotted}]), not {value!r}.")
        _check_table(value, expected, prefix=f"{dotted}.", source=source)
        return
    if not _matches(value, expected):
        raise ConfigError(f"{source}: '{dotted}' must be {_type_name(expected)}, got {value!r}.")


def get_key(config: Mapping[str, Any], dotted: str) -> Any:
    """Return the value at ``a.b.c``; raise :class:`KeyError` naming the missing part."""
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    return node


def parse_value(text: str) -> Any:
    """Parse a command-line value as TOML (``3``, ``true``, ``["a"]``); else a plain string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


@contextmanager
def edit_config(home: Path | None = None) -> Iterator[Any]:
    """Yield the config as a comment-preserving ``tomlkit`` document; write it on clean exit.

    The result is validated before it replaces the file (atomically, via a temp file and
    rename), so a bad edit never leaves an unreadable config behind.
    """
    import tomlkit

    path = config_path(home)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    doc = tomlkit.parse(text)
    yield doc
    rendered = tomlkit.dumps(doc)
    validate(tomllib.loads(rendered), source=str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # only when writing: every command reads the config, few write it

    fd, tmp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(rendered)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def set_key(doc: Any, dotted: str, value: Any) -> None:
    """Set ``a.b.c = value`` in a tomlkit document, creating tables as needed."""
    import tomlkit

    parts = dotted.split(".")
    node = doc
    for part in parts[:-1]:
        if part not in node:
            node[part] = tomlkit.table()
        node = node[part]
        if not isinstance(node, Mapping):
            raise ConfigError(f"cannot set '{dotted}': '{part}' is not a table")
    node[parts[-1]] = value


def unset_key(doc: Any, dotted: str) -> bool:
    """Remove ``a.b.c`` from a tomlkit document; return whether it existed."""
    parts = dotted.split(".")
    node = doc
    for part in parts[:-1]:
        if part not in node:
            return False
        node = node[part]
    if parts[-1] in node:
        del node[parts[-1]]
        return True
    return False
