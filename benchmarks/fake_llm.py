"""The loopback fake LLM server the benchmarks talk to (``python -m talaria.testing.fakes``)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from typing import Any

__all__ = ["control", "start_fake"]


def start_fake() -> tuple[subprocess.Popen[str], str]:
    """The fake LLM server on a free loopback port; returns (process, base URL)."""
    proc = subprocess.Popen([sys.executable, "-m", "talaria.testing.fakes", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if "listening on" not in line:
        proc.kill()
        raise SystemExit(f"fake server did not start: {line!r}")
    return proc, line.rsplit(" ", 1)[-1]


def control(base: str, path: str, method: str = "GET") -> Any:
    """Call the fake's control API (``/_fake/requests``, ``/_fake/reset`` …)."""
    request = urllib.request.Request(base + path, method=method, data=b"" if method == "POST" else None)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())
