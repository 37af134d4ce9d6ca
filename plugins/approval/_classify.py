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
from dataclasses import dataclass

from ._parse import PLACEHOLDER, Stage, parse
from ._paths import home_relative, is_home_root, is_system_path, normalize, sensitive_write

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
_DEVICE = re.compile(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper/)")
_MODE_777 = re.compile(r"^(?:0?777|[augo]*\+rwx|a\+w|o\+w|ugo\+w)$")


@dataclass
class _State:
    workspace: str | None
    cwd: str = "workspace"  # workspace | root | home | outside
    depth: int = 0


def classify_command(cmd: str, *, workspace: str | None = None) -> tuple[str, str] | None:
    """The first dangerous-action rule ``cmd`` trips, as ``(rule_key, reason)``, or None."""
    found = classify_all(cmd, workspace=workspace)
    return found[0] if found else None


def classify_all(cmd: str, *, workspace: str | None = None) -> list[tuple[str, str]]:
    """Every rule ``cmd`` trips (first reason per rule), in order."""
    findings: dict[str, str] = {}
    _classify(cmd, _State(workspace=workspace.rstrip("/") if workspace else None), findings)
    return list(findings.items())


def _add(findings: dict[str, str], rule: str, reason: str) -> None:
    findings.setdefault(rule, reason)


def _classify(cmd: str, state: _State, findings: dict[str, str]) -> None:
    if state.depth > 6:
        _add(findings, "nested_depth", "the command nests shells too deeply to inspect")
        return
    if _FORK_BOMB.search(cmd):
        _add(findings, "fork_bomb", "defines a function that pipes into itself in the background (fork bomb)")
    if _PROC_SUBST_SHELL.search(cmd):
        _add(findings, "pipe_to_shell", "runs code downloaded from the network in a shell")
    stages, nested = parse(cmd)
    inner = _State(workspace=state.workspace, cwd=state.cwd, depth=state.depth + 1)
    for sub in nested:
        _classify(sub, inner, findings)
    previous: list[str] = []
    for stage in stages:
        words = _unwrap(stage.words, state, findings)
        for target in stage.writes:
            _check_write(target, findings)
        if words:
            _command(words, stage, previous, state, findings)
        previous = words if stage.words else previous


def _unwrap(words: list[str], state: _State, findings: dict[str, str]) -> list[str]:
    """Drop env assignments and wrapper commands; note privilege escalation."""
    i = 0
    while i < len(words):
        word = words[i]
        base = posixpath.basename(word)
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word) or word in ("{", "}", "!"):
            i += 1
        elif base in _PRIVILEGE:
            _add(findings, "sudo", f"runs a command with elevated privileges ({base})")
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


def _command(words: list[str], stage: Stage, previous: list[str], state: _State, findings: dict[str, str]) -> None:
    name = posixpath.basename(words[0])
    args = words[1:]
    if name in _SHELLS and "-c" in args:
        index = args.index("-c")
        if index + 1 < len(args):
            _classify(args[index + 1], _State(state.workspace, state.cwd, state.depth + 1), findings)
    elif name == "eval" and args:
        _classify(" ".join(args), _State(state.workspace, state.cwd, state.depth + 1), findings)
    elif name == "su":
        _add(findings, "sudo", "switches user with su")
        if "-c" in args and args.index("-c") + 1 < len(args):
            _classify(args[args.index("-c") + 1], _State(state.workspace, state.cwd, state.depth + 1), findings)
    if stage.piped and previous and name in _INTERPRETERS:
        source = posixpath.basename(previous[0])
        files = [a for a in args if not a.startswith("-")]
        if source in _FETCHERS and (name in _SHELLS or not files):
            _add(findings, "pipe_to_shell", f"pipes {source} output into {name} (runs unreviewed code)")
    handler = _HANDLERS.get(name)
    if handler is not None:
        handler(args, state, findings)
    elif name.startswith("mkfs") or name in ("mke2fs", "wipefs", "mkswap"):
        _add(findings, "format_disk", f"{name} formats a disk or partition")


# --------------------------------------------------------------------------- per command


def _flags(args: list[str]) -> tuple[set[str], list[str]]:
    """Short flag letters / long flags, and the operands (``--`` ends options)."""
    flags: set[str] = set()
    operands: list[str] = []
    ended = False
    for arg in args:
        if ended or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            ended = True
        elif arg.startswith("--"):
            flags.add(arg)
        else:
            flags.update(arg[1:])
    return flags, operands


def _inside_workspace(word: str, state: _State) -> bool:
    return bool(state.workspace) and (word == state.workspace or word.startswith(state.workspace + "/"))


def _delete_target(word: str, state: _State) -> tuple[str, str] | None:
    if word == PLACEHOLDER:
        return "rm_outside", "deletes paths computed by a command substitution"
    norm = normalize(word)
    if norm in ("/", "/*", "/.", "/..") or re.fullmatch(r"/+\*?", word):
        return "rm_root", f"recursively deletes {word}"
    if is_home_root(word):
        return "rm_home", f"recursively deletes the home directory ({word})"
    if home_relative(word) is not None:
        return "rm_outside", f"recursively deletes {word} (in the home directory, outside the workspace)"
    if word.startswith("$"):
        return "rm_outside", f"recursively deletes {word}, a path from a variable (empty means /)"
    if norm.startswith("/"):
        if _inside_workspace(norm, state):
            return None
        return "rm_outside", f"recursively deletes the absolute path {word}"
    if norm == ".." or norm.startswith("../"):
        return "rm_outside", f"recursively deletes {word}, outside the workspace"
    if state.cwd != "workspace":
        rule = {"root": "rm_root", "home": "rm_home"}.get(state.cwd, "rm_outside")
        return rule, f"recursively deletes {word} after cd to {state.cwd}"
    return None


def _rm(args: list[str], state: _State, findings: dict[str, str]) -> None:
    flags, targets = _flags(args)
    if "--no-preserve-root" in flags:
        _add(findings, "rm_root", "rm --no-preserve-root")
    if {"r", "R", "--recursive"} & flags:
        for target in targets:
            found = _delete_target(target, state)
            if found:
                _add(findings, *found)
    for target in targets:
        found = sensitive_write(target)
        if found:
            _add(findings, *found)


def _find(args: list[str], state: _State, findings: dict[str, str]) -> None:
    deletes = "-delete" in args or any(
        a in ("-exec", "-execdir") and i + 1 < len(args) and posixpath.basename(args[i + 1]) in ("rm", "shred")
        for i, a in enumerate(args)
    )
    if not deletes:
        return
    roots = []
    for arg in args:
        if arg.startswith(("-", "(", "!")):
            break
        roots.append(arg)
    for root in roots or ["."]:
        found = _delete_target(root, state)
        if found:
            _add(findings, found[0], "find … -delete: " + found[1])


def _dd(args: list[str], state: _State, findings: dict[str, str]) -> None:
    for arg in args:
        if arg.startswith("of="):
            target = arg[3:]
            if _DEVICE.match(target):
                _add(findings, "write_device", f"dd writes to the device {target}")
            else:
                _check_write(target, findings)


def _chmod(args: list[str], state: _State, findings: dict[str, str]) -> None:
    flags, operands = _flags(args)
    if not operands:
        return
    mode, targets = operands[0], operands[1:]
    recursive = bool({"R", "--recursive"} & flags)
    if _MODE_777.match(mode) and (recursive or any(is_system_path(t) for t in targets)):
        _add(findings, "chmod_777", f"chmod {mode} {'-R ' if recursive else ''}makes files world-writable")
    elif recursive and any(is_system_path(t) for t in targets):
        _add(findings, "chmod_system", "recursive chmod on a system path")


def _chown(args: list[str], state: _State, findings: dict[str, str]) -> None:
    flags, operands = _flags(args)
    if {"R", "--recursive"} & flags and any(is_system_path(t) for t in operands[1:]):
        _add(findings, "chown_system", "recursive chown on a system path")


def _git(args: list[str], state: _State, findings: dict[str, str]) -> None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    if i >= len(args):
        return
    sub, rest = args[i], args[i + 1:]
    flags, operands = _flags(rest)
    if sub == "push" and ("f" in flags or "--force" in flags or any(o.startswith("+") for o in operands)):
        _add(findings, "git_force_push", "git push --force rewrites the remote's history")
    elif sub == "reset" and "--hard" in flags:
        _add(findings, "git_reset_hard", "git reset --hard discards uncommitted changes")
    elif sub == "clean" and ("f" in flags or "--force" in flags):
        _add(findings, "git_clean", "git clean -f deletes untracked files")


def _kill(args: list[str], state: _State, findings: dict[str, str]) -> None:
    pids: list[str] = []
    i = 0
    signal_given = False
    while i < len(args):
        arg = args[i]
        if arg in ("-s", "-n"):
            i += 2
            signal_given = True
            continue
        if arg == "--":
            pids.extend(args[i + 1:])
            break
        if arg.startswith("-") and not signal_given and not pids:
            signal_given = True
        else:
            pids.append(arg)
        i += 1
    if "-1" in pids:
        _add(findings, "kill_all", "kill -1 signals every process you own")


def _shutdown(args: list[str], state: _State, findings: dict[str, str]) -> None:
    _add(findings, "shutdown", "shuts down or reboots the machine")


def _init(args: list[str], state: _State, findings: dict[str, str]) -> None:
    if args and args[0] in ("0", "6"):
        _shutdown(args, state, findings)


def _systemctl(args: list[str], state: _State, findings: dict[str, str]) -> None:
    if {"poweroff", "reboot", "halt", "kexec", "rescue", "emergency"} & set(args):
        _shutdown(args, state, findings)


def _crontab(args: list[str], state: _State, findings: dict[str, str]) -> None:
    flags, _ = _flags(args)
    if "r" in flags:
        _add(findings, "crontab_remove", "crontab -r deletes every scheduled job")


def _writer(position: str):  # type: ignore[no-untyped-def]
    def check(args: list[str], state: _State, findings: dict[str, str]) -> None:
        flags, operands = _flags(args)
        if position == "inplace" and not ({"i"} & flags or any(f.startswith("--in-place") for f in flags)):
            return
        targets = operands[-1:] if position == "last" else operands
        for target in targets:
            _check_write(target, findings)

    return check


def _cd(args: list[str], state: _State, findings: dict[str, str]) -> None:
    target = next((a for a in args if not a.startswith("-")), "~")
    norm = normalize(target)
    if norm == "/":
        state.cwd = "root"
    elif is_home_root(target):
        state.cwd = "home"
    elif norm.startswith("/") and not _inside_workspace(norm, state) or norm.startswith("..") or home_relative(target) is not None:
        state.cwd = "outside"


def _check_write(target: str, findings: dict[str, str]) -> None:
    if _DEVICE.match(target):
        _add(findings, "write_device", f"writes to the device {target}")
        return
    found = sensitive_write(target)
    if found:
        _add(findings, *found)


_HANDLERS = {
    "rm": _rm,
    "find": _find,
    "dd": _dd,
    "chmod": _chmod,
    "chown": _chown,
    "chgrp": _chown,
    "git": _git,
    "kill": _kill,
    "killall5": lambda a, s, f: _add(f, "kill_all", "killall5 signals every process"),
    "shutdown": _shutdown,
    "reboot": _shutdown,
    "halt": _shutdown,
    "poweroff": _shutdown,
    "init": _init,
    "telinit": _init,
    "systemctl": _systemctl,
    "crontab": _crontab,
    "cd": _cd,
    "pushd": _cd,
    "tee": _writer("all"),
    "cp": _writer("last"),
    "install": _writer("last"),
    "ln": _writer("last"),
    "rsync": _writer("last"),
    "scp": _writer("last"),
    "mv": _writer("all"),
    "truncate": _writer("all"),
    "shred": _writer("all"),
    "sed": _writer("inplace"),
    "perl": _writer("inplace"),
}
