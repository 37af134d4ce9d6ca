"""The official MCP conformance suite (npm @modelcontextprotocol/conformance 0.1.16, Node 22)
against the bridge's client code (conformance_client.py); auth scenarios are expected failures."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcp_helpers import CONFORMANCE_JS, HERE, NODE22, NPM_REASON

pytestmark = pytest.mark.slow


@pytest.mark.timeout(420)
@pytest.mark.skipif(not (CONFORMANCE_JS.is_file() and NODE22.is_file()), reason=NPM_REASON)
def test_conformance_suite_passes_with_expected_failures(tmp_path):
    # the harness splits --command on spaces: keep paths free of them
    parts = [sys.executable, str(HERE / "conformance_client.py")]
    command = " ".join(parts)
    if any(" " in part for part in parts):
        pytest.skip("the conformance harness cannot run a command whose path contains spaces")
    proc = subprocess.run(
        [str(NODE22), str(CONFORMANCE_JS), "client", "--command", command, "--suite", "all",
         "--timeout", "120000", "--expected-failures", str(HERE / "expected-failures.yml"),
         "-o", str(tmp_path / "results")],
        capture_output=True, text=True, timeout=400,
    )
    output = proc.stdout + proc.stderr
    summary = output[output.find("=== SUITE SUMMARY ==="):]
    assert proc.returncode == 0, summary or output[-4000:]
    for scenario in ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"):
        assert f"✓ {scenario}:" in summary, summary
    assert "all failures are expected" in summary
