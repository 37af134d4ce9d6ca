"""Background processes started by ``terminal(background=true)`` and managed by ``process``.

Contract: a background command runs in its own process group with its output going to
a private log file (so it does not depend on any event loop staying alive). Ids are short
(``p1``, ``p2``…) and scoped to the session that started them: another session cannot
see or kill them. ``process`` actions: ``list``; ``poll`` (status and output since the last
poll); ``log`` (the whole log, head and tail kept when long); ``kill`` (SIGTERM to the
group, SIGKILL after a grace). The groups die with the session (``on_session_end``)
and with the Python process (``atexit``). At most ``MAX_RUNNING`` run per session.
"""

from __future__ import annotations

import atexit
import itertools
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from talaria import ToolError

from . import _procs
from ._run import Capture

__all__ = ["BgProc", "start", "get", "session_procs", "kill", "kill_session", "read_log"]

MAX_RUNNING = 8
KILL_GRACE = 1.0


@dataclass
class BgProc:
    id: str
    session_id: str
    command: str
    popen: subprocess.Popen[bytes]
    log: Path
    started: float
    read_pos: int = 0

    @property
    def pid(self) -> int:
        return self.popen.pid

    def status(self) -> str:
        code = self.popen.poll()
        elapsed = int(time.monotonic() - self.started)
        if code is None:
            return f"running ({elapsed}s)"
        return f"exited {code}" if code >= 0 else f"killed by signal {-code}"


_procs_by_id: dict[str, BgProc] = {}
_ids = itertools.count(1)
_lock = threading.Lock()
_log_dir: Path | None = None


def _logs() -> Path:
    global _log_dir
    if _log_dir is None:
        _log_dir = Path(tempfile.mkdtemp(prefix="talaria-bg-"))
    return _log_dir


def start(command: str, cwd: Path, session_id: str) -> BgProc:
    """Spawn ``command`` in the background. Call from the event-loop thread."""
    running = [p for p in session_procs(session_id) if p.popen.poll() is None]
    if len(running) >= MAX_RUNNING:
        raise ToolError(
            f"{len(running)} background processes are already running; kill one with "
            "process(action='kill', id=…) first."
        )
    with _lock:
        pid_label = f"p{next(_ids)}"
    log = _logs() / f"{pid_label}.log"
    _procs.before_spawn()
    with log.open("wb") as out:
        popen = subprocess.Popen(
            ["bash", "-c", command],
            cwd=str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_procs.child_setup,
        )
    _procs.track(popen.pid)
    proc = BgProc(pid_label, session_id, command, popen, log, time.monotonic())
    with _lock:
        _procs_by_id[pid_label] = proc
    return proc


def get(proc_id: str, session_id: str) -> BgProc:
    with _lock:
        proc = _procs_by_id.get(proc_id.strip())
    if proc is None or proc.session_id != session_id:
        raise ToolError(f"no background process {proc_id!r} in this session; use process(action='list').")
    return proc


def session_procs(session_id: str) -> list[BgProc]:
    with _lock:
        return [p for p in _procs_by_id.values() if p.session_id == session_id]


def kill(proc: BgProc) -> None:
    """Stop ``proc``'s whole group: SIGTERM, then SIGKILL after a grace."""
    _procs.kill_group(proc.pid, signal.SIGTERM)
    try:
        proc.popen.wait(KILL_GRACE)
    except subprocess.TimeoutExpired:
        pass
    _procs.kill_group(proc.pid, signal.SIGKILL)
    try:
        proc.popen.wait(2)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignorable
        pass
    _procs.untrack(proc.pid)


def kill_session(session_id: str) -> None:
    """Kill and forget every background process of a session."""
    for proc in session_procs(session_id):
        if proc.popen.poll() is None or _procs.group_alive(proc.pid):
            kill(proc)
        with _lock:
            _procs_by_id.pop(proc.id, None)
        proc.log.unlink(missing_ok=True)


def read_log(proc: BgProc, max_chars: int, *, since_last: bool) -> str:
    """The process's output (from the last poll when ``since_last``), head+tail capped."""
    capture = Capture(max_chars)
    try:
        with proc.log.open("rb") as fh:
            if since_last:
                fh.seek(proc.read_pos)
            while chunk := fh.read(65536):
                capture.feed(chunk)
            if since_last:
                proc.read_pos = fh.tell()
    except FileNotFoundError:
        return ""
    return capture.text().rstrip("\n")


@atexit.register
def _cleanup() -> None:
    with _lock:
        procs = list(_procs_by_id.values())
    for proc in procs:
        _procs.kill_group(proc.pid, signal.SIGKILL)
    if _log_dir is not None:
        shutil.rmtree(_log_dir, ignore_errors=True)
