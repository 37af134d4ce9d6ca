"""Loading plugins in override order and recording what happened.

Order of work (DESIGN §2):

1. find candidates in every tier without importing anything (folder manifests, entry-point
   metadata, explicit objects);
2. settle overrides by name (a later tier replaces an earlier one; the loser is recorded);
3. apply blocks (``--no-plugin``, config ``[plugins] disabled``), manifests shipped
   disabled (unless ``[plugins] enabled`` names them) and the ``TALARIA_PLUGINS``
   allow-list — before any plugin module is imported;
4. import and register the rest in tier order (pluggy calls the last registered first, so
   a higher tier is called first and wins ``firstresult`` hooks);
5. drop plugins implementing unknown hooks (``check_pending``) or sync-only hooks with
   ``async def``;
6. call each plugin's ``register_*`` hooks one plugin at a time, so a failure is
   attributed to its plugin and the others still register.

Every failure becomes a :class:`LoadError` on the plugin's :class:`PluginRecord`; loading
never raises because of a plugin.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from .. import hookspecs
from .._values import value_type
from ..paths import bundled_dir
from ._candidates import Candidate, entry_point_candidates, folder_candidates
from ._pluggy import PluginManager
from ._toml_cache import caching
from .registries import KINDS, Registries

__all__ = ["LoadError", "LoadedPlugins", "PluginRecord", "load_plugins"]

log = logging.getLogger("talaria.plugins")


@value_type(kw_only=False)
class LoadError:
    """Why a plugin did not (fully) load. ``phase``: manifest, import, validate, register, hook."""

    plugin: str
    origin: str
    phase: str
    message: str

    def line(self) -> str:
        return f"plugin '{self.plugin}' failed at {self.phase}; {self.origin}: {self.message}"


@dataclass(slots=True)
class PluginRecord:
    """What ``talaria plugins list`` shows about one plugin."""

    name: str
    tier: str
    origin: str
    version: str = ""
    description: str = ""
    status: str = "loaded"  # loaded | blocked | disabled | not-allowed | failed
    essential: bool = False
    hooks: list[str] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)  # "<tier>: <origin>" of plugins it replaced
    shadows: list[str] = field(default_factory=list)  # "<kind> <name> (from <plugin>)" it won over
    errors: list[LoadError] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tier": self.tier,
            "origin": self.origin,
            "version": self.version,
            "status": self.status,
            "essential": self.essential,
            "hooks": self.hooks,
            "registered": self.registered,
            "overrides": self.overrides,
            "shadows": self.shadows,
            "errors": [e.line() for e in self.errors],
        }


class LoadedPlugins:
    """The result of :func:`load_plugins`: the plugin manager, a record per plugin by name,
    the registries and load warnings."""

    __slots__ = ("pm", "records", "registries", "warnings")

    def __init__(self, *, pm: pluggy.PluginManager, records: dict[str, PluginRecord], registries: Registries,
                 warnings: list[str] | None = None) -> None:
        self.pm = pm
        self.records = records
        self.registries = registries
        self.warnings: list[str] = warnings if warnings is not None else []

    @property
    def errors(self) -> list[LoadError]:
        return [e for r in self.records.values() for e in r.errors]

    def rank_of(self, plugin: str) -> int:
        record = self.records.get(plugin)
        from ._candidates import TIERS

        return TIERS.index(record.tier) if record else len(TIERS)


def _parse_allow_list(raw: str | None) -> set[str] | None:
    if raw is None:
        return None
    return {name.strip() for name in raw.split(",") if name.strip()}


def _explicit_candidates(explicit: Iterable[Any]) -> list[Candidate]:
    found = []
    for index, obj in enumerate(explicit):
        if isinstance(obj, tuple):
            name, obj = obj
        else:
            name = getattr(obj, "__name__", None) or getattr(obj, "name", None) or f"explicit-{index}"
            name = str(name).rpartition(".")[2]
        if isinstance(obj, (str, Path)) and Path(obj).is_dir():
            for cand in folder_candidates(Path(obj).parent, "explicit"):
                if Path(cand.origin) == Path(obj):
                    found.append(cand)
            continue
        found.append(Candidate(name=name, tier="explicit", origin="explicit", load=lambda obj=obj: obj))
    return found


def find_candidates(
    *, home: Path, explicit: Iterable[Any] = (), entry_points: Iterable[Any] | None = None
) -> dict[str, Candidate]:
    """All tiers' candidates, overrides settled by name (no plugin code runs)."""
    ordered = [
        *folder_candidates(bundled_dir("plugins"), "bundled"),
        *entry_point_candidates(entry_points, cache=home / "cache" / "entry-points.json"),
        *folder_candidates(home / "plugins", "user"),
        *_explicit_candidates(explicit),
    ]
    winners: dict[str, Candidate] = {}
    for cand in ordered:
        previous = winners.get(cand.name)
        if previous is not None:
            cand.overrides = [*previous.overrides, previous]
            cand.essential = cand.essential or previous.essential
        winners[cand.name] = cand
    return winners


def load_plugins(
    *,
    home: Path,
    config: Mapping[str, Any] | None = None,
    explicit: Iterable[Any] = (),
    blocked: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    entry_points: Iterable[Any] | None = None,
    cli: Any = None,
) -> LoadedPlugins:
    """Discover, filter, import and register plugins; never raises because of a plugin.

    :param explicit: plugin objects (modules, instances) or ``(name, obj)`` pairs, or plugin
        folder paths — the highest tier.
    :param blocked: names from ``--no-plugin``.
    :param env: environment (default ``os.environ``); ``TALARIA_PLUGINS`` is read from it.
    :param cli: the root click group, when ``register_commands`` should run.
    """
    config = config or {}
    env = os.environ if env is None else env
    pm = PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    registries = Registries()
    loaded = LoadedPlugins(pm=pm, records={}, registries=registries)
    with caching(home / "cache" / "toml.json"):  # manifests and profile tables parsed once per change
        _load(loaded, home=home, config=config, explicit=explicit, blocked=blocked, env=env,
              entry_points=entry_points, cli=cli)
    return loaded


def _load(
    loaded: LoadedPlugins,
    *,
    home: Path,
    config: Mapping[str, Any],
    explicit: Iterable[Any],
    blocked: Sequence[str],
    env: Mapping[str, str],
    entry_points: Iterable[Any] | None,
    cli: Any,
) -> None:
    """Steps 1–6 of the module docstring, recorded on ``loaded``."""
    pm = loaded.pm
    candidates = find_candidates(home=home, explicit=explicit, entry_points=entry_points)
    plugin_cfg = config.get("plugins", {})
    disabled = set(plugin_cfg.get("disabled", [])) | set(blocked)
    enabled = set(plugin_cfg.get("enabled", []))
    allowed = _parse_allow_list(env.get("TALARIA_PLUGINS"))
    if allowed:
        for unknown in sorted(allowed - set(candidates)):
            loaded.warnings.append(f"TALARIA_PLUGINS names '{unknown}', which is not installed")

    to_import: list[Candidate] = []
    for name, cand in candidates.items():
        record = PluginRecord(
            name=name,
            tier=cand.tier,
            origin=cand.origin,
            version=cand.version,
            description=cand.description,
            essential=cand.essential,
            overrides=[f"{o.tier}: {o.origin}" for o in cand.overrides],
        )
        loaded.records[name] = record
        if cand.error:
            record.status = "failed"
            record.errors.append(LoadError(name, cand.origin, "manifest", cand.error))
        elif name in disabled and cand.essential:
            loaded.warnings.append(f"plugin '{name}' is essential and cannot be disabled")
            to_import.append(cand)
        elif name in disabled:
            record.status = "blocked"
            pm.set_blocked(name)
        elif not cand.enabled and name not in enabled:
            record.status = "disabled"
        elif allowed is not None and name not in allowed and not cand.essential and cand.tier != "explicit":
            record.status = "not-allowed"
        else:
            to_import.append(cand)

    to_import.sort(key=lambda c: c.rank)  # ascending tier: LIFO makes higher tiers win
    for cand in to_import:
        _import_and_register(loaded, cand)
    _drop_unknown_hooks(loaded)
    _collect_registrations(loaded, cli=cli)


def _fail(loaded: LoadedPlugins, name: str, phase: str, message: str) -> None:
    record = loaded.records[name]
    record.status = "failed"
    error = LoadError(name, record.origin, phase, message)
    record.errors.append(error)
    log.debug("talaria: %s", error.line())


def _import_and_register(loaded: LoadedPlugins, cand: Candidate) -> None:
    try:
        obj = cand.load()
    except Exception as exc:  # a plugin's import must never stop the others
        _fail(loaded, cand.name, "import", f"{type(exc).__name__}: {exc}")
        return
    try:
        loaded.pm.register(obj, name=cand.name)
    except pluggy.PluginValidationError as exc:
        if loaded.pm.is_registered(obj):  # pluggy < 1.7 leaves it half-registered
            loaded.pm.unregister(obj)
        _fail(loaded, cand.name, "validate", " ".join(str(exc).split()))
        return
    except Exception as exc:
        _fail(loaded, cand.name, "validate", f"{type(exc).__name__}: {exc}")
        return
    impls = [
        impl
        for caller in loaded.pm.get_hookcallers(obj) or []
        for impl in caller.get_hookimpls()
        if impl.plugin is obj
    ]
    bad_async = [impl.function.__name__ for impl in impls if _sync_only_but_async(impl)]
    if bad_async:
        loaded.pm.unregister(obj)
        _fail(
            loaded,
            cand.name,
            "validate",
            f"hook(s) {', '.join(sorted(bad_async))} must be synchronous (plain def), not async def",
        )
        return
    loaded.records[cand.name].hooks = sorted({_hook_name(impl) for impl in impls})


def _hook_name(impl: Any) -> str:
    return impl.opts.get("specname") or impl.function.__name__


def _sync_only_but_async(impl: Any) -> bool:
    return _hook_name(impl) in hookspecs.SYNC_ONLY and inspect.iscoroutinefunction(impl.function)


def _drop_unknown_hooks(loaded: LoadedPlugins) -> None:
    pm = loaded.pm
    while True:
        try:
            pm.check_pending()
            return
        except pluggy.PluginValidationError as exc:
            name = pm.get_name(exc.plugin) or "?"
            pm.unregister(exc.plugin)
            message = " ".join(str(exc).split())
            if name in loaded.records:
                message = message.replace(repr(exc.plugin), repr(name))
                _fail(loaded, name, "validate", f"{message} (check the hook name's spelling)")


def _collect_registrations(loaded: LoadedPlugins, *, cli: Any) -> None:
    """Call each ``register_*`` hook per plugin, highest tier first, attributing errors."""
    pm = loaded.pm
    for hook_name, validate in KINDS.items():
        caller = getattr(pm.hook, hook_name)
        for impl in reversed(caller.get_hookimpls()):
            plugin = pm.get_name(impl.plugin)
            if plugin is None or loaded.records[plugin].status == "failed":
                continue
            rank = loaded.rank_of(plugin)

            def register(item: Any, *, _plugin: str = plugin, _rank: int = rank, _validate: Any = validate) -> None:
                kind, name, stored = _validate(item)
                loaded.registries.by_kind(kind).add(name, stored, _plugin, _rank)
                loaded.records[_plugin].registered.append(f"{kind[:-1] if kind.endswith('s') else kind}:{name}")

            try:
                impl.function(**{arg: register for arg in impl.argnames})
            except Exception as exc:
                loaded.registries.remove_plugin(plugin)
                _fail(loaded, plugin, "register", f"{hook_name}: {type(exc).__name__}: {exc}")
    for registry in loaded.registries.all():
        for loser, winner in registry.shadowed:
            if winner.plugin != loser.plugin and winner.plugin in loaded.records:
                loaded.records[winner.plugin].shadows.append(f"{registry.kind} {winner.name} (from {loser.plugin})")
    if cli is not None:
        register_commands(loaded, cli)


def register_commands(loaded: LoadedPlugins, cli: Any) -> None:
    """Let each plugin add CLI commands; a name clash is reported, never replaced."""
    pm = loaded.pm
    for impl in reversed(pm.hook.register_commands.get_hookimpls()):
        plugin = pm.get_name(impl.plugin)
        if plugin is None or loaded.records[plugin].status == "failed":
            continue
        before = dict(cli.commands)
        try:
            impl.function(**{arg: cli for arg in impl.argnames})
        except Exception as exc:
            _fail(loaded, plugin, "register", f"register_commands: {type(exc).__name__}: {exc}")
        for name, command in list(cli.commands.items()):
            if name in before and before[name] is not command:
                cli.commands[name] = before[name]
                loaded.warnings.append(f"plugin '{plugin}' tried to replace command '{name}'; kept the original")
            elif name not in before:
                loaded.records[plugin].registered.append(f"command:{name}")
