"""Helpers for the terminal-channel tests: a config pointing at the fake server, a cold CLI run."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path


def write_config(home: Path, base_url: str, extra: str = "") -> None:
    """A config whose model is the fake server, with quick retries."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'model = "fake/fake-model"\n'
        f"{extra}\n"
        "[retry]\nmax_attempts = 2\nbase_delay = 0.05\nmax_delay = 0.1\n"
        "[providers.fake]\n"
        'api_mode = "chat_completions"\n'
        f'base_url = "{base_url}"\n'
        "keyless = true\n",
        encoding="utf-8",
    )


def talaria(args: Sequence[str], *, home: Path, cwd: Path, stdin: str | None = None,
            timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """Run ``python -m talaria ARGS`` as a fresh process (cold start), capturing output."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["TALARIA_HOME"] = str(home)
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "talaria", *args], cwd=cwd, env=env, input=stdin if stdin is not None else "",
        capture_output=True, text=True, timeout=timeout,
    )
