"""Per-command rules of the classifier: ``rm``, ``find``, ``dd``, ``chmod``, ``chown``,
``git``, ``kill``, shutdown commands, ``crontab``, ``cd`` and the commands that write files.

Each handler takes ``(args, state, findings)`` and adds ``rule → reason`` entries to
``findings`` (first reason per rule wins). :data:`HANDLERS` maps a command name to its
handler.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ._parse import PLACEHOLDER
from ._paths import home_relative, is_home_root, is_system_path, normalize, sensitive_write

__all__ = ["HANDLERS", "State", "add", "check_write"]

_DEVICE = re.compile(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|mapper/)")
_MODE_777 = re.compile(r"^(?:0?777|[augo]*\+rwx|a\+w|o\+w|ugo\+w)$")


@dataclass
class State:
    workspace: str | None
    cwd: str = "workspace"  # workspace | root | home | outside
    depth: int = 0


def add(findings: dict[str, str], rule: str, reason: str) -> None:
    findings.setdefault(rule, reason)




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


def _inside_workspace(word: str, state: State) -> bool:
    return bool(state.workspace) and (word == state.workspace or word.startswith(state.workspace + "/"))


def _delete_target(word: str, state: State) -> tuple[str, str] | None:
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


def _rm(args: list[str], state: State, findings: dict[str, str]) -> None:
    flags, targets = _flags(args)
    if "--no-preserve-root" in flags:
        add(findings, "rm_root", "rm --no-preserve-root")
    if {"r", "R", "--recursive"} & flags:
        for target in targets:
            found = _delete_target(target, state)
            if found:
                add(findings, *found)
    for target in targets:
        found = sensitive_write(target)
        if found:
            add(findings, *found)


def _find(args: list[str], state: State, findings: dict[str, str]) -> None:
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
            add(findings, found[0], "find … -delete: " + found[1])


def _dd(args: list[str], state: State, findings: dict[str, str]) -> None:
    for arg in args:
        if arg.startswith("of="):
            target = arg[3:]
            if _DEVICE.match(target):
                add(findings, "write_device", f"dd writes to the device {target}")
            else:
                check_write(target, findings)


def _chmod(args: list[str], state: State, findings: dict[str, str]) -> None:
    flags, operands = _flags(args)
    if not operands:
        return
    mode, targets = operands[0], operands[1:]
    recursive = bool({"R", "--recursive"} & flags)
    if _MODE_777.match(mode) and (recursive or any(is_system_path(t) for t in targets)):
        add(findings, "chmod_777", f"chmod {mode} {'-R ' if recursive else ''}makes files world-writable")
    elif recursive and any(is_system_path(t) for t in targets):
        add(findings, "chmod_system", "recursive chmod on a system path")


def _chown(args: list[str], state: State, findings: dict[str, str]) -> None:
    flags, operands = _flags(args)
    if {"R", "--recursive"} & flags and any(is_system_path(t) for t in operands[1:]):
        add(findings, "chown_system", "recursive chown on a system path")


def _git(args: list[str], state: State, findings: dict[str, str]) -> None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    if i >= len(args):
        return
    sub, rest = args[i], args[i + 1:]
    flags, operands = _flags(rest)
    if sub == "push" and ("f" in flags or "--force" in flags or any(o.startswith("+") for o in operands)):
        add(findings, "git_force_push", "git push --force rewrites the remote's history")
    elif sub == "reset" and "--hard" in flags:
        add(findings, "git_reset_hard", "git reset --hard discards uncommitted changes")
    elif sub == "clean" and ("f" in flags or "--force" in flags):
        add(findings, "git_clean", "git clean -f deletes untracked files")


def _kill(args: list[str], state: State, findings: dict[str, str]) -> None:
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
        add(findings, "kill_all", "kill -1 signals every process you own")


def _shutdown(args: list[str], state: State, findings: dict[str, str]) -> None:
    add(findings, "shutdown", "shuts down or reboots the machine")


def _init(args: list[str], state: State, findings: dict[str, str]) -> None:
    if args and args[0] in ("0", "6"):
        _shutdown(args, state, findings)


def _systemctl(args: list[str], state: State, findings: dict[str, str]) -> None:
    if {"poweroff", "reboot", "halt", "kexec", "rescue", "emergency"} & set(args):
        _shutdown(args, state, findings)


def _crontab(args: list[str], state: State, findings: dict[str, str]) -> None:
    flags, _ = _flags(args)
    if "r" in flags:
        add(findings, "crontab_remove", "crontab -r deletes every scheduled job")


def _writer(position: str):  # type: ignore[no-untyped-def]
    def check(args: list[str], state: State, findings: dict[str, str]) -> None:
        flags, operands = _flags(args)
        if position == "inplace" and not ({"i"} & flags or any(f.startswith("--in-place") for f in flags)):
            return
        targets = operands[-1:] if position == "last" else operands
        for target in targets:
            check_write(target, findings)

    return check


def _cd(args: list[str], state: State, findings: dict[str, str]) -> None:
    target = next((a for a in args if not a.startswith("-")), "~")
    norm = normalize(target)
    if norm == "/":
        state.cwd = "root"
    elif is_home_root(target):
        state.cwd = "home"
    elif norm.startswith("/") and not _inside_workspace(norm, state) or norm.startswith("..") or home_relative(target) is not None:
        state.cwd = "outside"


def check_write(target: str, findings: dict[str, str]) -> None:
    if _DEVICE.match(target):
        add(findings, "write_device", f"writes to the device {target}")
        return
    found = sensitive_write(target)
    if found:
        add(findings, *found)


HANDLERS = {
    "rm": _rm,
    "find": _find,
    "dd": _dd,
    "chmod": _chmod,
    "chown": _chown,
    "chgrp": _chown,
    "git": _git,
    "kill": _kill,
    "killall5": lambda a, s, f: add(f, "kill_all", "killall5 signals every process"),
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
