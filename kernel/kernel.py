"""The loaded kernel: configuration, plugins, registries and hooks of one process."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .config import Config, load_config
from .hooks import Hooks
from .loader.manager import LoadedPlugins, load_plugins
from .paths import talaria_home

__all__ = ["Kernel", "load_kernel"]


class Kernel:
    """Everything a process needs to run turns, built once by :func:`load_kernel`.

    :ivar plugins: the plugin load report (records, errors, warnings).
    :ivar registries: providers, api modes, tools, engines, channels … by name.
    :ivar hooks: typed hook call sites.
    """

    def __init__(self, *, home: Path, workspace: Path, config: Config, plugins: LoadedPlugins) -> None:
        self.home = home
        self.workspace = workspace
        self.config = config
        self.plugins = plugins
        self.registries = plugins.registries
        turn_cfg = config.get("turn", {})
        self.hooks = Hooks(plugins.pm, timeout=float(turn_cfg.get("hook_timeout", 10.0)))

    @property
    def state_db(self) -> Path:
        return self.home / "state.db"


def load_kernel(
    *,
    home: Path | None = None,
    workspace: Path | None = None,
    config: Mapping[str, Any] | None = None,
    explicit: Iterable[Any] = (),
    blocked: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    entry_points: Iterable[Any] | None = None,
    cli: Any = None,
) -> Kernel:
    """Load configuration and plugins.

    :param home: ``$TALARIA_HOME`` (default from the environment).
    :param config: use this config instead of reading ``config.toml``.
    :param explicit: extra plugins (the explicit tier), e.g. test plugins.
    :param blocked: plugin names to block (``--no-plugin``).
    """
    home = home or talaria_home()
    cfg: Config = dict(config) if config is not None else load_config(home)
    ws = workspace or Path(cfg.get("workspace") or os.getcwd())
    plugins = load_plugins(
        home=home, config=cfg, explicit=explicit, blocked=blocked, env=env, entry_points=entry_points, cli=cli
    )
    return Kernel(home=home, workspace=ws.resolve(), config=cfg, plugins=plugins)
