from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path



REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def run_talaria(*args: str, env: dict[str, str] | None = None, python: str = sys.executable, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m talaria ARGS`` in a subprocess with the test's environment."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([python, "-m", "talaria", *args], capture_output=True, text=True, env=full_env, cwd=cwd, timeout=120)


