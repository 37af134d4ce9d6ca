"""Commands whose implementation lives in other kernel modules (mounted here, lazily)."""

from __future__ import annotations

import click

__all__ = ["add_extra_commands"]


def add_extra_commands(cli: click.Group) -> None:
    """Mount the kernel's subsystem commands on the root group."""
