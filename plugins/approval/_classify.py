"""Classify a shell command: which dangerous-action rules it trips.

:func:`classify_all` returns ``[(rule_key, reason), …]`` (one entry per rule, in the order
found); :func:`classify_command` the first one or None. Rule keys are stable: they are
what "session"/"always" approvals remember.

The command is parsed (``_parse``): wrappers (``sudo``, ``env``, ``nohup``, ``timeout``,
``xargs``…) are looked through, ``bash -c '…'``/``eval``/``su -c`` and command
substitutions are classified recursively, and ``cd`` to ``/``, ``~`` or outside is
remembered for the commands that follow it. Relative paths are presumed inside the
workspace; absolute paths under ``workspace`` (when given) count as relative.
"""

from __future__ import annotations

import posixpath
import re

from ._commands import HANDLERS, State, add, check_write
from ._parse import Stage, parse

__all__ = ["classify_command", "classify_all", "RULES"]

#: rule key → what a human is asked about (short).
RULES = {
    "rm_root": "recursive delete of the filesystem root",
    "rm_home": "recursive delete of the home directory",
    "rm_outside": "recursive delete outside the workspace",
    "format_disk": "formatting a disk",
    "write_device": "writing to a raw device",
    "chmod_777": "recursive world-writable permissions",
    "chmod_system": "recursive permission change on a system path",
    "chown_system": "recursive ownership change on a system path",
    "fork_bomb": "fork bomb",
    "pipe_to_shell": "running downloaded code in a shell",
    "git_force_push": "git force push",
    "git_reset_hard": "git reset --hard (discards changes)",
    "git_clean": "git clean -f (deletes untracked files)",
    "write_shell_rc": "writing shell startup files",
    "write_ssh": "writing SSH files",
    "write_credentials": "writing credential files",
    "write_system": "writing system files",
    "sudo": "running as another user (sudo/su)",
    "shutdown": "shutting down or rebooting",
    "kill_all": "killing every process",
    "crontab_remove": "deleting the crontab",
    "nested_depth": "deeply nested shell",
}

_FORK_BOMB = re.compile(r"(\S+)\s*\(\s*\)\s*\{[^}]*?\1\s*\|\s*&?\s*\1\s*&")
_PROC_SUBST_SHELL = re.compile(
    r"(?:\b(?:ba|z|da|k)?sh|\bsource|(?:^|[\s;&|])\.)\s+(?:-\S+\s+)*<\(\s*(?:curl|wget)\b"
    r"|\b(?:(?:ba|z|da|k)?sh\s+-c|eval)\s+[\"']?\$\(\s*(?:curl|wget)\b"
)
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh"}
_INTERPRETERS = _SHELLS | {"python", "python3", "perl", "ruby", "node", "php"}
_FETCHERS = {"curl", "wget", "fetch", "base64"}
_WRAPPERS = {"nohup", "time", "nice", "ionice", "exec", "command", "builtin", "stdbuf", "timeout", "xargs", "env", "chroot", "unbuffer", "caffeinate"}
_PRIVILEGE = {"sudo", "doas", "pkexec", "run0"}
_SUDO_ARG_OPTS = {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"}


def classify_command(cmd: str, *, workspace: str | None = None) -> tuple[str, str] | None:
    """The first dangerous-action rule ``cmd`` trips, as ``(rule_key, reason)``, or None."""
    found = classify_all(cmd, workspace=workspace)
    return found[0] if found else None


def classify_all(cmd: str, *, workspace: str | None = None) -> list[tuple[str, str]]:
    """Every rule ``cmd`` trips (first reason per rule), in order."""
    findings: dict[str, str] = {}
    _classify(cmd, State(workspace=workspace.rstrip("/") if workspace else None), findings)
    return list(findings.items())


def _classify(cmd: str, state: State, findings: dict[str, str]) -> None:
    if state.depth > 6:
        add(findings, "nested_depth", "the command nests shells too deeply to inspect")
        return
    if _FORK_BOMB.search(cmd):
        add(findings, "fork_bomb", "defines a function that pipes into itself in the background (fork bomb)")
    if _PROC_SUBST_SHELL.search(cmd):
        add(findings, "pipe_to_shell", "runs code downloaded from the network in a shell")
    stages, nested = parse(cmd)
    inner = State(workspace=state.workspace, cwd=state.cwd, depth=state.depth + 1)
    for sub in nested:
        _classify(sub, inner, findings)
    previous: list[str] = []
    for stage in stages:
        words = _unwrap(stage.words, state, findings)
        for target in stage.writes:
            check_write(target, findings)
        if words:
            _command(words, stage, previous, state, findings)
        previous = words if stage.words else previous


def _unwrap(words: list[str], state: State, findings: dict[str, str]) -> list[str]:
    """Drop env assignments and wrapper commands; note privilege escalation."""
    i = 0
    while i < len(words):
        word = words[i]
        base = posixpath.basename(word)
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word) or word in ("{", "}", "!"):
            i += 1
        elif base in _PRIVILEGE:
            add(findings, "sudo", f"runs a command with elevated privileges ({base})")
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in _SUDO_ARG_OPTS else 1
        elif base in _WRAPPERS:
            i += 1
            while i < len(words) and (words[i].startswith("-") or re.match(r"^[\d.]+[smhd]?$", words[i]) or "=" in words[i]):
                i += 2 if words[i] in ("-n", "-u", "-s", "-k", "-I", "-d", "-P", "-L", "-c") and base != "env" else 1
        else:
            break
    return words[i:]


def _command(words: list[str], stage: Stage, previous: list[str], state: State, findings: dict[str, str]) -> None:
    name = posixpath.basename(words[0])
    args = words[1:]
    if name in _SHELLS and "-c" in args:
        index = args.index("-c")
        if index + 1 < len(args):
            _classify(args[index + 1], State(state.workspace, state.cwd, state.depth + 1), findings)
    elif name == "eval" and args:
        _classify(" ".join(args), State(state.workspace, state.cwd, state.depth + 1), findings)
    elif name == "su":
        add(findings, "sudo", "switches user with su")
        if "-c" in args and args.index("-c") + 1 < len(args):
            _classify(args[args.index("-c") + 1], State(state.workspace, state.cwd, state.depth + 1), findings)
    if stage.piped and previous and name in _INTERPRETERS:
        source = posixpath.basename(previous[0])
        files = [a for a in args if not a.startswith("-")]
        if source in _FETCHERS and (name in _SHELLS or not files):
            add(findings, "pipe_to_shell", f"pipes {source} output into {name} (runs unreviewed code)")
    handler = HANDLERS.get(name)
    if handler is not None:
        handler(args, state, findings)
    elif name.startswith("mkfs") or name in ("mke2fs", "wipefs", "mkswap"):
        add(findings, "format_disk", f"{name} formats a disk or partition")
