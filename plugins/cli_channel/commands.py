"""The ``talaria run`` and ``talaria chat`` click commands."""

from __future__ import annotations

import sys
from typing import Any

import click

from .exitcodes import EXIT_HELP

__all__ = ["chat_command", "run_command"]


def _toolsets(value: str | None) -> list[str] | None:
    if not value:
        return None
    return [name.strip() for name in value.split(",") if name.strip()]


_model_opt = click.option("--model", "-m", metavar="PROVIDER/MODEL", help="Model for this run (overrides config `model`).")
_toolsets_opt = click.option("--toolsets", "-t", metavar="A,B", help="Only offer these toolsets (comma-separated).")
_session_opt = click.option("--session", "-s", "session", metavar="ID", help="Continue session ID (id prefix or title).")
_continue_opt = click.option("--continue", "-c", "cont", is_flag=True, help="Continue the last session of this workspace.")
_yolo_opt = click.option("--yolo", is_flag=True, help="Run dangerous actions without asking (approvals auto-granted).")


@click.command("run", epilog=EXIT_HELP)
@click.argument("prompt", required=False)
@_model_opt
@_toolsets_opt
@_session_opt
@_continue_opt
@_yolo_opt
@click.option("--json", "as_json", is_flag=True, help="Print every event and the result as JSON lines.")
@click.pass_obj
def run_command(state: Any, prompt: str | None, model: str | None, toolsets: str | None, session: str | None,
                cont: bool, yolo: bool, as_json: bool) -> int:
    """Run one turn on PROMPT (or stdin when PROMPT is absent or -) and print the answer.

    \b
    Only the final answer goes to stdout; tool activity goes to stderr when it is a
    terminal. Nobody is asked for approval: dangerous calls are denied unless --yolo.
    A new session starts unless --session or --continue is given.
    """
    import asyncio  # here, not at import: other commands (plugins list, doctor) never load it

    from .oneshot import read_prompt, run_once

    text = read_prompt(prompt, sys.stdin)
    return asyncio.run(run_once(state, text, model=model, toolsets=_toolsets(toolsets), session=session,
                                cont=cont, yolo=yolo, as_json=as_json))


@click.command("chat")
@_model_opt
@_toolsets_opt
@_session_opt
@_continue_opt
@_yolo_opt
@click.option("--plain", is_flag=True, help="Stream answers as plain text (no markdown rendering).")
@click.pass_obj
def chat_command(state: Any, model: str | None = None, toolsets: str | None = None, session: str | None = None,
                 cont: bool = False, yolo: bool = False, plain: bool = False) -> int:
    """Talk with the agent (the default command). /help lists the slash commands.

    \b
    Enter sends; Esc-Enter or a trailing \\ continues on a new line. Ctrl-C interrupts
    the running turn (or clears the line); Ctrl-D exits.
    """
    import asyncio

    from .repl import Repl

    repl = Repl(state, model=model, toolsets=_toolsets(toolsets), session=session, cont=cont, yolo=yolo, plain=plain)
    return asyncio.run(repl.main())
