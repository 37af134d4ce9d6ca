"""Fixtures for the MCP bridge tests: real servers, a fake runtime's Services."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_helpers import EVERYTHING_JS, NPM_REASON, Runtime, free_port
from talaria.testing import load_plugin_module


@pytest.fixture
def mcp_mod() -> Any:
    return load_plugin_module("mcp")


@pytest.fixture(autouse=True)
def _home(talaria_home: Path) -> Path:
    """This test's TALARIA_HOME (``talaria_home`` from the ``talaria.testing`` pytest plugin)."""
    return talaria_home


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    ws = tmp_path / "ws"
    ws.mkdir()
    return Runtime(ws)


@pytest.fixture(scope="module")
def everything_http() -> Iterator[str]:
    """server-everything over Streamable HTTP on a loopback port (one process per module)."""
    if not EVERYTHING_JS.is_file():
        pytest.skip(NPM_REASON)
    port = free_port()
    proc = subprocess.Popen(["node", str(EVERYTHING_JS), "streamableHttp"], env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("server-everything did not start listening within 15 s")
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
