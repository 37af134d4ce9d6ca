"""Finding plugins without importing them: folder manifests and entry-point metadata.

A :class:`Candidate` is everything known about a plugin before its code runs — which is
why blocks and the allow-list can be applied before any plugin module is imported.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .._values import value_type
from ._folder import folder_module_name, import_folder_plugin
from ._toml_cache import read_toml

__all__ = ["TIERS", "Candidate", "Manifest", "ManifestError", "entry_point_candidates", "folder_candidates"]

#: Tiers in load order; a later tier overrides an earlier one by plugin name.
TIERS = ("bundled", "installed", "user", "explicit")
MANIFEST = "plugin.toml"


class ManifestError(Exception):
    """A plugin folder's ``plugin.toml`` is missing, unreadable or invalid."""


@value_type
class Manifest:
    """The ``plugin.toml`` of a folder plugin.

    ``enabled = false`` ships a plugin switched off (enable it with ``talaria plugins
    enable NAME``); ``essential = true`` (bundled only) means it cannot be blocked.
    """

    name: str
    version: str = "0"
    description: str = ""
    enabled: bool = True
    essential: bool = False

    @classmethod
    def read(cls, folder: Path) -> Manifest:
        path = folder / MANIFEST
        try:
            data = read_toml(path)
        except FileNotFoundError as exc:
            raise ManifestError(f"{path} is missing") from exc
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ManifestError(f"{path}: {exc}") from exc
        name = data.get("name", folder.name)
        if not isinstance(name, str) or not name:
            raise ManifestError(f"{path}: 'name' must be a non-empty string")
        known = {"name", "version", "description", "enabled", "essential"}
        unknown = set(data) - known - {"requires", "author", "homepage", "license"}
        if unknown:
            raise ManifestError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(known)}")
        for key, kind in (("version", str), ("description", str), ("enabled", bool), ("essential", bool)):
            if key in data and not isinstance(data[key], kind):
                raise ManifestError(f"{path}: '{key}' must be {kind.__name__}")
        return cls(
            name=name,
            version=str(data.get("version", "0")),
            description=data.get("description", ""),
            enabled=data.get("enabled", True),
            essential=data.get("essential", False),
        )


def _nothing() -> None:
    return None


class Candidate:
    """A plugin found in one tier, not yet imported.

    ``load()`` imports it and returns the object to register with pluggy (a module, or
    an object named by an entry point). ``error`` is set when the candidate is broken
    before import (bad manifest). ``overrides``: the candidates of lower tiers it replaces.
    (A plain class: the loader makes one per plugin and never compares them.)
    """

    __slots__ = ("name", "tier", "origin", "version", "description", "distribution", "enabled", "essential",
                 "load", "error", "overrides")

    def __init__(
        self,
        *,
        name: str,
        tier: str,
        origin: str,
        version: str = "",
        description: str = "",
        distribution: str | None = None,
        enabled: bool = True,
        essential: bool = False,
        load: Callable[[], Any] = _nothing,
        error: str | None = None,
        overrides: list[Candidate] | None = None,
    ) -> None:
        self.name = name
        self.tier = tier
        self.origin = origin
        self.version = version
        self.description = description
        self.distribution = distribution
        self.enabled = enabled
        self.essential = essential
        self.load = load
        self.error = error
        self.overrides: list[Candidate] = overrides if overrides is not None else []

    def __repr__(self) -> str:
        return f"Candidate(name={self.name!r}, tier={self.tier!r}, origin={self.origin!r})"

    @property
    def rank(self) -> int:
        return TIERS.index(self.tier)


def folder_candidates(root: Path, tier: str) -> list[Candidate]:
    """One candidate per ``root/<name>/`` folder holding a ``plugin.toml`` (sorted by name)."""
    if not root.is_dir():
        return []
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        try:
            manifest = Manifest.read(folder)
        except ManifestError as exc:
            if not (folder / MANIFEST).exists() and not (folder / "__init__.py").exists():
                continue  # not a plugin folder at all
            found.append(Candidate(name=folder.name, tier=tier, origin=str(folder), error=str(exc)))
            continue
        module_name = folder_module_name(tier, manifest.name)
        found.append(
            Candidate(
                name=manifest.name,
                tier=tier,
                origin=str(folder),
                version=manifest.version,
                description=manifest.description,
                enabled=manifest.enabled,
                essential=manifest.essential and tier == "bundled",
                load=lambda folder=folder, module_name=module_name: import_folder_plugin(folder, module_name),
            )
        )
    return found


def entry_point_candidates(entry_points: Iterable[Any] | None = None, *, cache: Path | None = None) -> list[Candidate]:
    """One candidate per ``talaria`` entry point, sorted by (distribution, name).

    Reading entry points touches only distribution metadata, never plugin code.

    :param entry_points: ``importlib.metadata`` entry points to use instead of the installed
        ones (tests).
    :param cache: where installed entry points are cached between processes (see
        :mod:`._entry_points`); None scans every time.
    """
    if entry_points is None:
        from ._entry_points import installed_entry_points

        found_eps = [(ep.distribution, ep.version, ep.name, ep.value, ep.load) for ep in installed_entry_points(cache)]
    else:
        found_eps = [
            (ep.dist.name if ep.dist is not None else "?", ep.dist.version if ep.dist is not None else "?",
             ep.name, ep.value, ep.load)
            for ep in entry_points
        ]
    found = []
    for dist_name, version, name, value, load in sorted(found_eps, key=lambda e: (e[0] if e[0] != "?" else "", e[2])):
        found.append(
            Candidate(
                name=name,
                tier="installed",
                origin=f"{dist_name} {version}, entry point talaria:{name} = {value}",
                version=version,
                distribution=dist_name,
                load=load,
            )
        )
    return found
