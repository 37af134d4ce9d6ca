"""Who owns a lease or an admission: ``host:pid:starttime`` and whether that process lives.

``host`` is the host name plus ``#`` and a short digest of the kernel's boot id and this
process's pid namespace: two containers that share a host name (``--network host``) but not
a pid namespace, or a machine before and after a reboot, are different hosts here — their
owners are never judged dead by a pid lookup that cannot see them (they wait for the TTL).

``starttime`` is the process start time in clock ticks since boot (field 22 of
``/proc/<pid>/stat``); together with the pid it names one process for the life of the
machine, so a recycled pid is not mistaken for the old owner. On systems without ``/proc``
it is ``0`` and only the pid is compared.

An owner string may carry a suffix after a fourth ``:`` (``host:pid:start:tag``) to tell
apart several owners inside one process; liveness only looks at the first three parts.
"""

from __future__ import annotations

import hashlib
import os
import socket
from functools import cache

from .._values import value_type

__all__ = [
    "OwnerId",
    "current_owner",
    "machine_id",
    "owner_alive",
    "parse_owner",
    "process_start_time",
]

_cache: dict[int, str] = {}


@value_type(kw_only=False)
class OwnerId:
    """A parsed owner string."""

    host: str
    pid: int
    start: int


def process_start_time(pid: int) -> int | None:
    """Start time of ``pid`` in clock ticks since boot; None when unknown or not running.

    Returns ``-1`` for a zombie (it has exited and only waits to be reaped).
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        if fields[0] in (b"Z", b"X"):
            return -1
        return int(fields[19])  # field 22 overall: state is field 3 → index 0 here
    except (IndexError, ValueError):
        return None


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


@cache
def machine_id() -> str:
    """``hostname#digest`` naming this kernel boot and pid namespace (see module docs)."""
    name = socket.gethostname().replace(":", "_").replace("#", "_") or "localhost"
    parts = (_read_text("/proc/sys/kernel/random/boot_id"), _pid_namespace())
    if not any(parts):
        return name
    return f"{name}#{hashlib.sha256('|'.join(parts).encode()).hexdigest()[:8]}"


def current_owner() -> str:
    """This process as an owner string: ``host:pid:starttime`` (cached per pid)."""
    pid = os.getpid()
    owner = _cache.get(pid)
    if owner is None:
        host = machine_id()
        start = process_start_time(pid) or 0
        owner = _cache[pid] = f"{host}:{pid}:{start}"
    return owner


def parse_owner(owner: str) -> OwnerId | None:
    """Parse ``host:pid:start[:tag]``; None when it is not in that form."""
    parts = owner.split(":", 3)
    if len(parts) < 3:
        return None
    try:
        return OwnerId(host=parts[0], pid=int(parts[1]), start=int(parts[2]))
    except ValueError:
        return None


def owner_alive(owner: str) -> bool:
    """False only when ``owner`` is provably gone: it ran on this host and its process no
    longer exists (or that pid now belongs to a process started at another time).

    Owners on other hosts, and strings that are not owner ids, count as alive.
    """
    parsed = parse_owner(owner)
    if parsed is None:
        return True
    me = parse_owner(current_owner())
    assert me is not None
    if parsed.host != me.host:
        return True
    if parsed.pid == me.pid:
        return parsed.start == me.start or me.start == 0 or parsed.start == 0
    if parsed.pid <= 0:
        return False
    try:
        os.kill(parsed.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by another user
    except OSError:
        return True
    start = process_start_time(parsed.pid)
    if start == -1:
        return False  # a zombie: exited, not yet reaped
    if start is None or parsed.start == 0:
        return True
    return start == parsed.start
