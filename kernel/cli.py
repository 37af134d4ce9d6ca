"""The ``talaria`` command line.

Start-up is kept cheap: ``talaria --version`` answers before click or pluggy are
imported; other commands load plugins (cheap imports only) so that plugins can add
commands through ``register_commands``. Blocks (``--no-plugin``) are pre-parsed from
``argv`` so they apply before any plugin module is imported.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["main"]

#: Exit codes. A turn's end reason maps to its own class of code (see ``talaria run``).
EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def _fast_version(argv: Sequence[str]) -> bool:
    if list(argv) in (["--version"], ["-V"]):
        from ._version import __version__

        print(f"talaria {__version__}")
        return True
    return False


def _preparse(argv: Sequence[str]) -> dict[str, Any]:
    """Pull the options that must act before plugins load out of ``argv`` (not removed)."""
    found: dict[str, Any] = {"blocked": [], "explicit": [], "home": None, "workspace": None}
    args = list(argv)
    for index, arg in enumerate(args):
        if arg == "--":
            break
        for flag, key in (("--no-plugin", "blocked"), ("--plugin", "explicit"), ("--home", "home"), ("--workspace", "workspace")):
            value = None
            if arg == flag and index + 1 < len(args):
                value = args[index + 1]
            elif arg.startswith(flag + "="):
                value = arg.split("=", 1)[1]
            if value is not None:
                if isinstance(found[key], list):
                    found[key].append(value)
                else:
                    found[key] = value
    return found


class CliState:
    """``ctx.obj`` of every command: implements :class:`talaria.CliContext`."""

    def __init__(self, *, home: Path, workspace: Path, blocked: Sequence[str], explicit: Sequence[str]) -> None:
        self.home = home
        self.workspace = workspace
        self.blocked = list(blocked)
        self.explicit = [Path(p).resolve() for p in explicit]
        self.config_error: str | None = None
        self._config: dict[str, Any] | None = None
        self._kernel: Any = None
        self.cli: Any = None

    @property
    def config(self) -> Mapping[str, Any]:
        if self._config is None:
            from .config import load_config
            from .errors import ConfigError

            try:
                self._config = load_config(self.home)
            except ConfigError as exc:
                self.config_error = str(exc)
                self._config = {}
        return self._config

    @contextmanager
    def edit_config(self) -> Iterator[Any]:
        from .config import edit_config

        with edit_config(self.home) as doc:
            yield doc
        self._config = None  # re-read on next access

    def load_kernel(self) -> Any:
        if self._kernel is None:
            from .kernel import load_kernel

            self._kernel = load_kernel(
                home=self.home,
                workspace=self.workspace,
                config=self.config,
                explicit=self.explicit,
                blocked=self.blocked,
                cli=self.cli,
            )
        return self._kernel


def _root_group_class() -> Any:
    import click

    class RootGroup(click.Group):
        """The root group; ``lazy`` maps command names to loaders imported only when used,
        so ``talaria run`` does not pay for the modules behind ``talaria sessions``."""

        lazy: dict[str, Any]

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.lazy = {}

        def list_commands(self, ctx: click.Context) -> list[str]:
            return sorted(set(self.commands) | set(self.lazy))

        def get_command(self, ctx: click.Context, name: str) -> Any:
            if name not in self.commands and name in self.lazy:
                for command_name, command in self.lazy[name]().items():
                    self.commands.setdefault(command_name, command)
            return self.commands.get(name)

    return RootGroup


def build_cli() -> Any:
    """The root click group with the kernel's own commands (plugins add theirs later)."""
    import click

    from ._version import __version__

    @click.group(cls=_root_group_class(), invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, "--version", "-V", prog_name="talaria", message="%(prog)s %(version)s")
    @click.option("--home", type=click.Path(file_okay=False, path_type=Path), help="Use this TALARIA_HOME.")
    @click.option("--workspace", type=click.Path(file_okay=False, path_type=Path), help="Workspace directory (default: cwd).")
    @click.option("--no-plugin", "no_plugin", multiple=True, metavar="NAME", help="Do not load this plugin.")
    @click.option("--plugin", "plugin", multiple=True, metavar="PATH", help="Load the plugin folder at PATH (explicit tier).")
    @click.pass_context
    def cli(ctx: click.Context, home: Path | None, workspace: Path | None, no_plugin: tuple[str, ...], plugin: tuple[str, ...]) -> object:
        """Talaria: a plugin-first agent runtime."""
        if ctx.invoked_subcommand is None:
            chat = cli.commands.get("chat")
            if chat is None:
                click.echo(ctx.get_help())
                return
            return ctx.invoke(chat)

    from .cli_commands import add_core_commands

    add_core_commands(cli)
    return cli


def _tune_gc_for_the_process() -> None:
    """Garbage-collector settings for a ``talaria`` process (called once, from the entry point).

    - Young-generation collections every 10 000 allocations instead of 700: importing a
      provider SDK allocates hundreds of thousands of long-lived objects (classes, schemas),
      and the default threshold runs ~200 collections over them on the way to the first
      request (~0.1 s); raising it halves that, and memory still stays flat because cycles
      are still collected, only in larger batches.
    - No collection at all while the kernel and plugins load (:func:`resume_gc` turns it back
      on, freezing what was loaded, before the command runs): that work allocates only
      long-lived objects (modules, classes, registries), so collecting is pure cost.
    - Exit skips the final full collection: Python's shutdown traverses every object the
      process ever created, about a quarter of a second after the answer is printed. An
      :mod:`atexit` hook (registered first, so it runs after the handlers registered later,
      e.g. the terminal's process-group cleanup) moves all live objects to the permanent
      generation. Nothing is lost: the store is closed and output flushed explicitly, and
      Python never promised ``__del__`` for objects alive at exit.
    """
    global _GC_TUNED
    if _GC_TUNED:
        return
    import atexit
    import gc

    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(10_000, max(gen1, 20), max(gen2, 20))
    atexit.register(gc.freeze)
    gc.disable()
    _GC_TUNED = True


def resume_gc() -> None:
    """Collect again, treating everything alive so far as permanent (``gc.freeze``): later
    collections do not traverse the loaded modules and classes over and over."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


_GC_TUNED = False


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``talaria`` console script; returns the exit code.

    :param argv: the arguments; None means ``sys.argv[1:]`` and marks the call as the
        process's entry point (the console script, ``python -m talaria``), which also tunes
        the garbage collector for a short-lived process (:func:`_tune_gc_for_the_process`).
    """
    entry_point = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if _fast_version(argv):
        return EXIT_OK
    if entry_point:
        _tune_gc_for_the_process()
    import os

    from .paths import talaria_home

    pre = _preparse(argv)
    home = Path(pre["home"]).expanduser() if pre["home"] else talaria_home()
    if pre["home"]:
        os.environ["TALARIA_HOME"] = str(home)
    workspace = Path(pre["workspace"] or os.getcwd()).resolve()
    state = CliState(home=home, workspace=workspace, blocked=pre["blocked"], explicit=pre["explicit"])
    cli = build_cli()
    state.cli = cli
    state.load_kernel()  # plugins register their commands on ``cli``
    if entry_point:
        resume_gc()  # a command may pause it again around its own start-up (``talaria run``)
    try:
        result = cli.main(args=argv, prog_name="talaria", obj=state, standalone_mode=False)
    except SystemExit as exc:  # pragma: no cover - click may still raise it
        return int(exc.code or 0)
    except Exception as exc:
        return _render_error(exc)
    return int(result) if isinstance(result, int) else EXIT_OK


def _render_error(exc: Exception) -> int:
    import click

    from .errors import ConfigError, TalariaError, UsageError

    if isinstance(exc, click.exceptions.Abort):
        click.echo("Aborted.", err=True)
        return 130
    if isinstance(exc, click.ClickException):
        exc.show()
        return exc.exit_code
    if isinstance(exc, (UsageError, ConfigError)):
        click.echo(f"talaria: {exc}", err=True)
        return EXIT_USAGE
    if isinstance(exc, TalariaError):
        click.echo(f"talaria: {exc}", err=True)
        return EXIT_ERROR
    raise exc


def run() -> None:  # pragma: no cover - console script shim
    sys.exit(main())


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    print(json.dumps(data, indent=2, default=str))
