"""What a cold process loads: ``talaria run`` and ``talaria plugins list`` import only what
they use. Plugins load their tool handlers, rule tables and process machinery when a tool
is first called; an unchanged installation is not rescanned for entry points."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from talaria.testing.fakes import FakeLLMServer

pytestmark = pytest.mark.slow  # each test starts Python processes

#: Imported by nothing on the way to a plain answer from an OpenAI-compatible model.
NOT_FOR_A_PLAIN_RUN = (
    "anthropic",  # the other provider's SDK
    "mcp",  # the MCP SDK: no server is configured
    "rich",
    "prompt_toolkit",  # the REPL's UI
    "jsonschema",  # tool arguments are validated only when a tool is called
    "_talaria_bundled.files._read",
    "_talaria_bundled.files._write",
    "_talaria_bundled.files._search",
    "_talaria_bundled.terminal._run",
    "_talaria_bundled.terminal._background",
    "_talaria_bundled.terminal._procs",
    "_talaria_bundled.web._html",
    "_talaria_bundled.web._net",
    "_talaria_bundled.approval._classify",
    "_talaria_bundled.redaction._patterns",
)

PROBE = textwrap.dedent("""
    import json, sys
    from talaria.cli import main
    rc = main(sys.argv[2:])
    with open(sys.argv[1], "w") as out:
        json.dump({"rc": rc, "modules": sorted(sys.modules)}, out)
""")


def _probe(args: list[str], *, home: Path, cwd: Path, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    report = tmp_path / f"modules-{time.monotonic_ns()}.json"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["TALARIA_HOME"] = str(home)
    proc = subprocess.run([sys.executable, "-c", PROBE, str(report), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(report.read_text())


def _loaded(modules: list[str], wanted: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == w or m.startswith(w + ".") for w in wanted))


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    old = time.time() - 3600  # `python -c` puts the cwd on sys.path: keep it out of the racy window
    os.utime(ws, (old, old))
    return ws


def test_run_with_an_openai_compatible_model_imports_no_unused_module(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with FakeLLMServer() as server:
        (home / "config.toml").write_text(
            'model = "fake/fake-model"\n[providers.fake]\napi_mode = "chat_completions"\n'
            f'base_url = "{server.openai_base_url}"\nkeyless = true\n', encoding="utf-8")
        proc, report = _probe(["run", "hi"], home=home, cwd=_workspace(tmp_path), tmp_path=tmp_path)
        assert len(server.requests) == 1
    assert report["rc"] == 0 and proc.stdout.strip(), proc.stderr
    assert "openai" in report["modules"]  # the check below is about a real run
    assert _loaded(report["modules"], NOT_FOR_A_PLAIN_RUN) == []


def test_plugins_list_with_an_unchanged_installation_does_not_rescan_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ws = _workspace(tmp_path)
    _probe(["plugins", "list"], home=home, cwd=ws, tmp_path=tmp_path)  # writes the entry-point cache
    proc, report = _probe(["plugins", "list"], home=home, cwd=ws, tmp_path=tmp_path)
    assert report["rc"] == 0 and "files" in proc.stdout
    heavy = ("openai", "anthropic", "mcp", "httpx", "httpx2", "jsonschema", "importlib.metadata", "asyncio",
             "_talaria_bundled.skills.discovery",  # skills are discovered for a prompt, not a listing
             "_talaria_bundled.compressor.engine", "_talaria_bundled.sliding_window.engine")  # used by a session
    assert _loaded(report["modules"], heavy + NOT_FOR_A_PLAIN_RUN) == []
