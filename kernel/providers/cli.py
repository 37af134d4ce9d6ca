"""``talaria providers list``, ``talaria models list``, ``talaria auth add|list|remove|reset``.

Mounted by the CLI with :func:`add_provider_commands`. ``click.get_current_context().obj``
is a :class:`talaria.CliContext` (``.home``, ``.config``). No command ever prints a key:
keys are shown by their non-secret id (a sha256 prefix) and their source.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from talaria import ConfigError, ProviderProfile

from .auth_store import add_key, load_keys, remove_key
from .cost import prices_for
from .credentials import CredentialPool
from .profiles import ProviderSet, effective_profiles, host_of

__all__ = ["add_provider_commands"]

Registry = Callable[[], Mapping[str, ProviderProfile]]
Origins = Callable[[], Mapping[str, str]]


def add_provider_commands(cli: click.Group, get_registry: Registry, get_origins: Origins | None = None) -> None:
    """Add the ``providers``, ``models`` and ``auth`` groups to ``cli``.

    :param get_registry: returns the registered profiles by name (called when a command runs).
    :param get_origins: optional: provider name → where it came from (e.g.
        ``"bundled (openai)"``, ``"installed (talaria-nebius 0.1.0)"``); shown by
        ``providers list``. Config-defined providers show ``config``.
    """

    def context() -> tuple[Path, Mapping[str, Any], ProviderSet]:
        obj = click.get_current_context().obj
        home = Path(getattr(obj, "home", None) or os.environ.get("TALARIA_HOME") or Path.home() / ".talaria")
        config = getattr(obj, "config", None) or {}
        try:
            return home, config, effective_profiles(get_registry(), config)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None

    def find(pset: ProviderSet, name: str) -> ProviderProfile:
        profile = pset.lookup(name)
        if profile is None:
            raise click.UsageError(f"unknown provider {name!r}; known: {', '.join(sorted(pset)) or '(none)'}")
        return profile

    providers = _group(cli, "providers", "Model providers: registered and defined in config.")
    models = _group(cli, "models", "Known models of the providers.")
    auth = _group(cli, "auth", "API keys of the credential pool (keys are never printed).")

    @providers.command("list")
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
    def providers_list(as_json: bool) -> None:
        """List providers: name, origin, API mode, base URL, whether a key is present."""
        home, config, pset = context()
        origins = {name: _with_distribution(label) for name, label in (get_origins() if get_origins else {}).items()}
        pool = CredentialPool(home, config)
        rows = []
        for name, p in pset.items():
            entries = [e for e in pool.entries(p) if e.credential.key is not None]
            origin = origins.get(name, "plugin")
            if pset.origins[name] == "config":
                origin = "config"
            elif pset.origins[name] == "registered+config":
                origin = f"{origin} + config"
            if entries:
                key = f"yes ({len(entries)}: {', '.join(sorted({e.source.split(':')[-1] for e in entries}))})"
            elif p.keyless:
                key = "not needed"
            else:
                key = f"no (set {p.key_env[0]})" if p.key_env else "no (talaria auth add)"
            rows.append({"name": name, "origin": origin, "api_mode": p.api_mode,
                         "base_url": p.base_url or "(SDK default)", "key": key,
                         "key_present": bool(entries) or p.keyless,
                         "default_model": p.default_model or ""})
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            click.echo("No providers. Install a provider plugin or add [providers.<name>] to config.toml.")
            return
        _table(rows, [("NAME", "name"), ("ORIGIN", "origin"), ("API MODE", "api_mode"),
                      ("BASE URL", "base_url"), ("KEY", "key")])

    @models.command("list")
    @click.argument("provider", required=False)
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
    def models_list(provider: str | None, as_json: bool) -> None:
        """List known models (of one PROVIDER, or all) with window, max output and price."""
        _, _, pset = context()
        chosen = [find(pset, provider)] if provider else list(pset.values())
        rows = []
        for p in chosen:
            for m in p.models:
                prices = prices_for(m, m.id)
                rows.append({
                    "model": f"{p.name}/{m.id}", "context_window": m.context_window or p.context_window,
                    "max_output": m.max_output or p.max_output, "aliases": list(m.aliases),
                    "default": m.id == p.default_model,
                    "price_per_m": None if prices is None else {"input": prices[0], "output": prices[1]},
                })
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            click.echo("No known models." + ("" if provider else " Any provider/model id can still be used."))
            return
        _table([{**r, "context_window": _k(r["context_window"]), "max_output": _k(r["max_output"]),
                 "aliases": ", ".join(r["aliases"]) + (" (default)" if r["default"] else ""),
                 "price": "" if r["price_per_m"] is None else
                 f"${r['price_per_m']['input']:g} / ${r['price_per_m']['output']:g}"} for r in rows],
               [("MODEL", "model"), ("WINDOW", "context_window"), ("MAX OUT", "max_output"),
                ("USD/M IN / OUT", "price"), ("ALIASES", "aliases")])

    @auth.command("add")
    @click.argument("provider")
    @click.option("--key-env", metavar="NAME", help="Read the key from this environment variable at call time.")
    @click.option("--key", "read_key", is_flag=True, help="Read the key from a hidden prompt (or stdin).")
    @click.option("--label", default="", help="A name to recognise this key by.")
    def auth_add(provider: str, key_env: str | None, read_key: bool, label: str) -> None:
        """Add a key for PROVIDER to the pool ($TALARIA_HOME/auth.json, mode 0600)."""
        home, _, pset = context()
        profile = find(pset, provider)
        if key_env and read_key:
            raise click.UsageError("give either --key-env NAME or --key, not both")
        key = None
        if not key_env:
            if sys.stdin is not None and not sys.stdin.isatty():
                key = sys.stdin.readline().strip()
            else:
                key = click.prompt(f"API key for {profile.name}", hide_input=True).strip()
            if not key:
                raise click.UsageError("empty key; nothing stored")
        entry, added = add_key(home, profile.name, host=host_of(profile.base_url), key=key,
                               key_env=key_env, label=label)
        what = f"${key_env}" if key_env else "key"
        if added:
            click.echo(f"Added {what} for {profile.name} as {entry.id}"
                       f"{f' ({label})' if label else ''}; it is sent to {entry.host or 'the default host'} only.")
        else:
            click.echo(f"That {what} is already stored for {profile.name} as {entry.id}.")

    @auth.command("list")
    @click.argument("provider", required=False)
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
    def auth_list(provider: str | None, as_json: bool) -> None:
        """List pooled keys: id, label, source, status, uses (never the key)."""
        home, config, pset = context()
        pool = CredentialPool(home, config)
        chosen = [find(pset, provider)] if provider else list(pset.values())
        rows = []
        for p in chosen:
            listed = set()
            for e in pool.entries(p):
                listed.add(e.credential.id)
                until = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.until)) if e.until else ""
                rows.append({"provider": p.name, "id": e.credential.id, "label": e.credential.label,
                             "source": e.source, "status": e.status, "until": until, "uses": e.uses,
                             "last_error": e.last_error})
            for s in load_keys(home):
                if s.provider == p.name and s.id not in listed:
                    rows.append({"provider": p.name, "id": s.id, "label": s.label, "source": "stored",
                                 "status": f"unused: bound to {s.host or 'default host'}", "until": "",
                                 "uses": 0, "last_error": ""})
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            click.echo("No keys. Export the provider's key variable or run `talaria auth add PROVIDER`.")
            return
        _table([{**r, "status": r["status"] + (f" until {r['until']}" if r["until"] else "")} for r in rows],
               [("PROVIDER", "provider"), ("ID", "id"), ("LABEL", "label"), ("SOURCE", "source"),
                ("STATUS", "status"), ("USES", "uses"), ("LAST ERROR", "last_error")])

    @auth.command("remove")
    @click.argument("provider")
    @click.argument("cred_id", metavar="ID")
    def auth_remove(provider: str, cred_id: str) -> None:
        """Remove stored key ID of PROVIDER (ids are shown by `talaria auth list`)."""
        home, config, pset = context()
        name = (pset.lookup(provider) or ProviderProfile(name=provider)).name
        try:
            removed = remove_key(home, name, cred_id)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
        if not removed:
            for e in CredentialPool(home, config).entries(pset[name]) if name in pset else []:
                if e.credential.id.startswith(cred_id) and e.source.startswith("env:"):
                    raise click.ClickException(
                        f"{cred_id} comes from ${e.source[4:]}; unset that variable to remove it")
            raise click.ClickException(f"no stored key {cred_id!r} for {name}; see `talaria auth list {name}`")
        CredentialPool(home, config).reset(name, cred_id)
        click.echo(f"Removed {cred_id} from {name}.")

    @auth.command("reset")
    @click.argument("provider")
    def auth_reset(provider: str) -> None:
        """Mark every key of PROVIDER ok again (clears cool-downs, dead marks and counts)."""
        home, config, pset = context()
        profile = find(pset, provider)
        n = CredentialPool(home, config).reset(profile.name)
        click.echo(f"Reset {n} key record(s) of {profile.name}.")


def _with_distribution(label: str) -> str:
    """``"installed (<plugin>)"`` → ``"installed (<distribution> <version>)"``: the name pip
    knows the provider's package by (the plugin name is its ``talaria`` entry-point name).
    Any other label is returned unchanged."""
    tier, _, rest = label.partition(" (")
    plugin = rest[:-1] if rest.endswith(")") else ""
    if tier != "installed" or not plugin or " " in plugin:
        return label
    from importlib.metadata import entry_points

    for ep in entry_points(group="talaria", name=plugin):
        if ep.dist is not None:
            return f"installed ({ep.dist.name} {ep.dist.version})"
    return label


def _group(cli: click.Group, name: str, help_text: str) -> click.Group:
    existing = cli.commands.get(name)
    if isinstance(existing, click.Group):
        return existing
    group = click.Group(name=name, help=help_text)
    cli.add_command(group)
    return group


def _k(n: int | None) -> str:
    if not n:
        return "?"
    if n >= 1_000_000:
        return f"{round(n / 1_000_000, 2):g}M"
    return f"{round(n / 1000, 1):g}k" if n >= 1000 else str(n)


def _table(rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> None:
    widths = [max(len(title), *(len(str(r[key])) for r in rows)) for title, key in columns]
    click.echo("  ".join(t.ljust(w) for (t, _), w in zip(columns, widths)).rstrip())
    for r in rows:
        click.echo("  ".join(str(r[k]).ljust(w) for (_, k), w in zip(columns, widths)).rstrip())
