"""Keys added with ``talaria auth add``: ``$TALARIA_HOME/auth.json`` (mode 0600).

Each entry is bound to the host its provider pointed at when it was added (``host``); the
pool only sends it to that host. An entry holds either the key itself or the name of an
environment variable to read it from (``key_env``), never both.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

from talaria import ConfigError

from .._values import value_type
from ._files import locked, read_json, write_json

__all__ = ["AUTH_FILE", "StoredKey", "add_key", "credential_id", "load_keys", "remove_key"]

AUTH_FILE = "auth.json"


def credential_id(secret: str, *, prefix: str = "") -> str:
    """A short, stable, non-secret id: the first 12 hex digits of sha256(prefix + secret)."""
    return hashlib.sha256(f"{prefix}{secret}".encode()).hexdigest()[:12]


@value_type
class StoredKey:
    """One ``auth.json`` entry. ``key`` is None for a ``key_env`` reference."""

    provider: str
    id: str
    host: str
    label: str = ""
    key: str | None = None
    key_env: str | None = None
    added: float = 0.0

    def __repr__(self) -> str:  # never leak the key
        return f"StoredKey(provider={self.provider!r}, id={self.id!r}, host={self.host!r})"


def _path(home: Path) -> Path:
    return home / AUTH_FILE


def _load(home: Path) -> dict[str, Any]:
    data = read_json(_path(home))
    if data is None:
        raise ConfigError(
            f"{_path(home)}: not a valid auth file; fix it or remove it and re-add keys "
            f"with `talaria auth add PROVIDER`"
        )
    data.setdefault("version", 1)
    data.setdefault("credentials", [])
    return data


_LOADED: dict[Path, tuple[Any, list[StoredKey]]] = {}  # path -> (file stamp, entries)


def load_keys(home: Path) -> list[StoredKey]:
    """Every stored entry, in the order they were added (the file is parsed again only when
    it changed: writes replace it atomically, so its inode and mtime change)."""
    path = _path(home)
    try:
        info = path.stat()
        stamp: Any = (info.st_ino, info.st_mtime_ns, info.st_size)
    except FileNotFoundError:
        stamp = "missing"
    except OSError:
        stamp = None
    known = _LOADED.get(path)
    if known is not None and stamp is not None and known[0] == stamp:
        return list(known[1])
    out = _parse_keys(home)
    if stamp is not None:
        _LOADED[path] = (stamp, out)
    return list(out)


def _parse_keys(home: Path) -> list[StoredKey]:
    out = []
    for raw in _load(home)["credentials"]:
        if not isinstance(raw, dict) or not raw.get("provider") or not raw.get("id"):
            continue
        out.append(
            StoredKey(
                provider=str(raw["provider"]), id=str(raw["id"]), host=str(raw.get("host", "")),
                label=str(raw.get("label", "")), key=raw.get("key"), key_env=raw.get("key_env"),
                added=float(raw.get("added", 0.0)),
            )
        )
    return out


def add_key(
    home: Path, provider: str, *, host: str, key: str | None = None, key_env: str | None = None,
    label: str = "",
) -> tuple[StoredKey, bool]:
    """Store a key (or a ``key_env`` reference) for ``provider``.

    :returns: the entry and True, or the existing identical entry and False.
    """
    if (key is None) == (key_env is None):
        raise ValueError("exactly one of key and key_env")
    cid = credential_id(key) if key is not None else credential_id(key_env or "", prefix="env:")
    with locked(_path(home)):
        data = _load(home)
        for raw in data["credentials"]:
            if raw.get("provider") == provider and raw.get("id") == cid:
                return StoredKey(provider=provider, id=cid, host=str(raw.get("host", "")),
                                 label=str(raw.get("label", "")), key=raw.get("key"),
                                 key_env=raw.get("key_env")), False
        entry: dict[str, Any] = {"provider": provider, "id": cid, "host": host, "label": label,
                                 "added": time.time()}
        if key is not None:
            entry["key"] = key
        else:
            entry["key_env"] = key_env
        data["credentials"].append(entry)
        write_json(_path(home), data)
    return StoredKey(provider=provider, id=cid, host=host, label=label, key=key, key_env=key_env,
                     added=entry["added"]), True


def remove_key(home: Path, provider: str, cred_id: str) -> bool:
    """Remove the entry ``cred_id`` (or a unique id prefix) of ``provider``; False if absent."""
    with locked(_path(home)):
        data = _load(home)
        keep, gone = [], []
        for raw in data["credentials"]:
            match = raw.get("provider") == provider and str(raw.get("id", "")).startswith(cred_id)
            (gone if match else keep).append(raw)
        if len(gone) != 1:
            if len(gone) > 1:
                raise ConfigError(f"credential id {cred_id!r} is ambiguous for {provider}; give more digits")
            return False
        data["credentials"] = keep
        write_json(_path(home), data)
    return True
