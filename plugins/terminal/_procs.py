"""Child-process hygiene: every command runs in its own process group, and no group
outlives the Python process that started it.

Contract:

- :func:`child_setup` is the ``preexec_fn`` of every spawn: on Linux it asks the kernel
  to SIGKILL the child when its parent *thread* dies (``prctl(PR_SET_PDEATHSIG)``), and
  exits at once if the parent is already gone. Spawn from the event-loop thread (never
  from a short-lived worker thread, whose exit would kill the child).
- :func:`track` records a group id; :func:`kill_group` signals a whole group; an
  ``atexit`` handler SIGKILLs every tracked group that is still alive.

``PR_SET_PDEATHSIG`` reaches only the direct child (``bash``); grandchildren of a
``kill -9``-ed Talaria are not covered (an orderly exit, an interrupted turn and a
timeout kill the whole group).
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import signal
import sys
import threading

__all__ = ["before_spawn", "child_setup", "track", "untrack", "kill_group", "group_alive", "tracked"]

_PR_SET_PDEATHSIG = 1
_groups: set[int] = set()
_lock = threading.Lock()
_prctl = None
if sys.platform.startswith("linux"):
    try:
        _prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - exotic libc
        _prctl = None
_parent = [os.getpid()]  # the pid the forked child must see as its parent


def before_spawn() -> None:
    """Call right before spawning: records the parent pid :func:`child_setup` checks."""
    _parent[0] = os.getpid()


def child_setup() -> None:
    """``preexec_fn``: die with the parent (Linux). Runs in the forked child."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != _parent[0]:  # the parent died before prctl took effect
            os._exit(137)


def track(pgid: int) -> None:
    """Remember a process group so it is killed when Python exits."""
    with _lock:
        for old in [g for g in _groups if not group_alive(g)]:
            _groups.discard(old)
        _groups.add(pgid)


def untrack(pgid: int) -> None:
    with _lock:
        _groups.discard(pgid)


def tracked() -> frozenset[int]:
    with _lock:
        return frozenset(_groups)


def group_alive(pgid: int) -> bool:
    """True while any process of group ``pgid`` exists (zombies included)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to every process of group ``pgid``; a gone group is not an error."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


@atexit.register
def _kill_all() -> None:
    for pgid in tracked():
        kill_group(pgid, signal.SIGKILL)
