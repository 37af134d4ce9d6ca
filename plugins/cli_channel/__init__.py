"""The terminal channel: ``talaria chat`` (streaming REPL, also bare ``talaria``) and
``talaria run`` (one-shot), plus a ``talaria doctor`` check of the model chain.

Importing this package is cheap: click commands, prompt_toolkit, rich and the runtime are
imported only when a command runs.
"""

from __future__ import annotations

from typing import Any

import talaria

__all__ = ["register_commands", "register_doctor_checks"]


@talaria.hookimpl
def register_commands(cli: Any) -> None:
    """Add ``talaria run`` and ``talaria chat``."""
    from .commands import chat_command, run_command

    cli.add_command(run_command)
    cli.add_command(chat_command)


@talaria.hookimpl
def register_doctor_checks(register: Any) -> None:
    """Add the ``model`` check (which provider/model a turn would use, or what to set) and the
    ``channels.cli`` check (options of the REPL that are ignored)."""
    from .doctor import model_check, settings_check

    register(talaria.DoctorCheck(name="model", run=model_check))
    register(talaria.DoctorCheck(name="channels.cli", run=settings_check))
