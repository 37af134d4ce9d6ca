"""Exit codes of ``talaria run``: one class of code per turn end reason.

Scripts branch on these; they are part of the command's contract (see ``docs/cli.md``).
"""

from __future__ import annotations

__all__ = ["EXIT_CODES", "EXIT_HELP", "EXIT_USAGE", "exit_code"]

#: No provider configured, bad ``--model``, unknown ``--session``, empty prompt.
EXIT_USAGE = 2

EXIT_CODES: dict[str, int] = {
    "completed": 0,
    "provider_error": 1,
    "budget_exhausted": 3,
    "guardrail_halt": 4,
    "interrupted": 5,
    "lease_lost": 5,
    "watchdog": 5,
    "persistence_failed": 6,
    "compression_failed": 6,
    "empty_response": 7,
}

EXIT_HELP = (
    "Exit codes: 0 completed; 1 provider_error; 2 usage or configuration error "
    "(no provider configured, bad --model, unknown --session); 3 budget_exhausted; "
    "4 guardrail_halt; 5 interrupted (Ctrl-C, SIGTERM, SIGHUP), lease_lost or watchdog; "
    "6 persistence_failed or compression_failed; 7 empty_response."
)


def exit_code(end_reason: str) -> int:
    """The process exit code for a turn that ended with ``end_reason`` (unknown → 1)."""
    return EXIT_CODES.get(end_reason, 1)
