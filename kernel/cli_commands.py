"""The kernel's own commands: ``plugins``, ``config`` and ``doctor``."""

from __future__ import annotations

import json
from typing import Any

import click

__all__ = ["add_core_commands"]


def add_core_commands(cli: click.Group) -> None:
    """Attach the kernel's commands to the root group."""
    cli.add_command(plugins_group)
    cli.add_command(config_group)
    cli.add_command(doctor)
    from .cli_extra import add_extra_commands

    add_extra_commands(cli)


# --------------------------------------------------------------------------- plugins


@click.group("plugins")
def plugins_group() -> None:
    """List, enable and disable plugins."""


def _record_lines(record: Any) -> list[str]:
    version = f" {record.version}" if record.version else ""
    head = f"{record.name}{version}  [{record.tier}]  {record.status}"
    if record.essential:
        head += "  (essential)"
    lines = [head, f"    origin: {record.origin}"]
    if record.registered:
        lines.append(f"    registers: {', '.join(record.registered)}")
    for overridden in record.overrides:
        lines.append(f"    overrides {overridden}")
    for shadow in record.shadows:
        lines.append(f"    shadows {shadow}")
    for error in record.errors:
        lines.append(f"    ERROR at {error.phase}: {error.message}")
    return lines


@plugins_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--strict", is_flag=True, help="Exit non-zero if any plugin failed to load.")
@click.pass_obj
def plugins_list(state: Any, as_json: bool, strict: bool) -> int:
    """Show every plugin: tier, origin, version, what it registered, overrides and errors."""
    kernel = state.load_kernel()
    records = sorted(kernel.plugins.records.values(), key=lambda r: (r.status == "failed", r.tier, r.name))
    if as_json:
        click.echo(json.dumps({"plugins": [r.as_json() for r in records], "warnings": kernel.plugins.warnings}, indent=2))
    else:
        for record in records:
            for line in _record_lines(record):
                click.echo(line)
        for warning in kernel.plugins.warnings:
            click.echo(f"warning: {warning}", err=True)
        errors = kernel.plugins.errors
        for error in errors:
            click.echo(f"talaria: {error.line()}", err=True)
    if strict and kernel.plugins.errors:
        return 1
    return 0


def _toggle(state: Any, name: str, *, enable: bool) -> None:
    kernel = state.load_kernel()
    record = kernel.plugins.records.get(name)
    if record is None:
        raise click.ClickException(f"no plugin named '{name}'. See `talaria plugins list`.")
    if not enable and record.essential:
        raise click.ClickException(f"plugin '{name}' is essential and cannot be disabled")
    with state.edit_config() as doc:
        import tomlkit

        plugins = doc.setdefault("plugins", tomlkit.table())
        disabled = [n for n in plugins.get("disabled", []) if n != name]
        enabled = [n for n in plugins.get("enabled", []) if n != name]
        if enable:
            if record.status == "disabled":  # shipped off: must be opted in
                enabled.append(name)
        else:
            disabled.append(name)
        plugins["disabled"] = disabled
        plugins["enabled"] = enabled
    click.echo(f"plugin '{name}' {'enabled' if enable else 'disabled'} (takes effect on the next run)")


@plugins_group.command("enable")
@click.argument("name")
@click.pass_obj
def plugins_enable(state: Any, name: str) -> None:
    """Enable plugin NAME."""
    _toggle(state, name, enable=True)


@plugins_group.command("disable")
@click.argument("name")
@click.pass_obj
def plugins_disable(state: Any, name: str) -> None:
    """Disable plugin NAME (its module will not even be imported)."""
    _toggle(state, name, enable=False)


# --------------------------------------------------------------------------- config


@click.group("config")
def config_group() -> None:
    """Read and change config.toml."""


@config_group.command("path")
@click.pass_obj
def config_path_cmd(state: Any) -> None:
    """Print the path of config.toml."""
    from .config import config_path

    click.echo(str(config_path(state.home)))


@config_group.command("show")
@click.pass_obj
def config_show(state: Any) -> None:
    """Print config.toml (and whether it is valid)."""
    from .config import config_path

    path = config_path(state.home)
    if not path.exists():
        click.echo(f"# {path} does not exist yet; defaults apply.")
        return
    click.echo(path.read_text(encoding="utf-8"), nl=False)
    _ = state.config
    if state.config_error:
        click.echo(f"\n# INVALID: {state.config_error}", err=True)


@config_group.command("get")
@click.argument("key")
@click.pass_obj
def config_get(state: Any, key: str) -> None:
    """Print the value of KEY (dotted, e.g. turn.max_iterations)."""
    from .config import get_key

    config = state.config  # loading sets config_error when the file is invalid
    if state.config_error:
        raise click.ClickException(state.config_error)
    try:
        value = get_key(config, key)
    except KeyError:
        raise click.ClickException(f"'{key}' is not set") from None
    click.echo(json.dumps(value) if not isinstance(value, str) else value)


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@click.pass_obj
def config_set(state: Any, key: str, value: str) -> None:
    """Set KEY to VALUE (parsed as TOML when possible: 3, true, ["a","b"])."""
    from .config import parse_value, set_key
    from .errors import ConfigError

    try:
        with state.edit_config() as doc:
            set_key(doc, key, parse_value(value))
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{key} = {value}")


@config_group.command("unset")
@click.argument("key")
@click.pass_obj
def config_unset(state: Any, key: str) -> None:
    """Remove KEY from config.toml."""
    from .config import unset_key

    with state.edit_config() as doc:
        existed = unset_key(doc, key)
    click.echo(f"{key} removed" if existed else f"{key} was not set")


# --------------------------------------------------------------------------- doctor


@click.command()
@click.pass_obj
def doctor(state: Any) -> int:
    """Check home, config, plugins and (through plugins) everything else."""
    from .doctor import run_checks

    results = run_checks(state)
    failed = 0
    for result in results:
        level = result.level or ("ok" if result.ok else "error")
        mark = {"ok": "ok  ", "warn": "warn", "error": "FAIL"}[level]
        failed += level == "error"
        detail = f" — {result.detail}" if result.detail else ""
        click.echo(f"[{mark}] {result.name}{detail}")
        if result.hint and level != "ok":
            click.echo(f"       → {result.hint}")
    return 1 if failed else 0
