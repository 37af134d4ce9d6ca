"""Import cost of the MCP plugin (issue #8): every ``talaria`` command loads it, so with no
``[mcp.servers]`` configured it must import neither the ``mcp`` SDK nor its own connection
machinery (nor anyio, httpx, tomlkit), and ``talaria mcp`` subcommands load only on use."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from talaria.testing.fakes import FakeLLMServer, Reply

#: the plugin's modules that only connecting servers (or running `talaria mcp …`) needs
MACHINERY = re.compile(r"(^|\.)mcp\.(callbacks|cli|config|connection|naming|presets|render|tools)$")


def _is_sdk(module: str) -> bool:
    return module.split(".")[0] in ("mcp", "mcp_types")


def _talaria(args: list[str], home: Path, cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``python -X importtime -m talaria ARGS``; return the process and the modules it imported."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(TALARIA_HOME=str(home), NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "talaria", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    modules = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
               if line.startswith("import time:") and line.count("|") == 2}
    assert "talaria" in modules, proc.stderr[-2000:]  # the importtime report was parsed
    return proc, modules


def _write_config(home: Path, base_url: str, extra: str = "") -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        'model = "fake/fake-model"\n'
        "[retry]\nmax_attempts = 1\n"
        f'[providers.fake]\napi_mode = "chat_completions"\nbase_url = "{base_url}"\nkeyless = true\n'
        f"{extra}\n",
        encoding="utf-8",
    )


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, click, talaria\n"
        "from talaria.testing import load_plugin_module\n"
        "before = set(sys.modules)\n"
        "mod = load_plugin_module('mcp')\n"
        "items = []\n"
        "mod.register_tools(items.append)\n"
        "mod.register_commands(click.Group('root'))\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    new = set(out.split())
    heavy = {m for m in new if m.split(".")[0] in ("mcp", "mcp_types", "anyio", "httpx", "httpx2", "tomlkit")}
    assert not heavy, heavy
    assert not {m for m in new if MACHINERY.search(m)}, new
    assert any(m.endswith("mcp.source") for m in new)  # the registered source, and little else


@pytest.mark.slow
def test_plugins_list_and_a_run_without_servers_never_import_the_sdk(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    ws.mkdir()
    with FakeLLMServer(default=Reply(text="fine")) as fake:
        _write_config(home, fake.openai_base_url)
        proc, modules = _talaria(["plugins", "list"], home, ws)
        assert proc.returncode == 0 and "mcp" in proc.stdout, proc.stderr[-2000:]
        assert any(m.endswith(".mcp.source") for m in modules)  # the plugin was loaded
        assert not {m for m in modules if _is_sdk(m) or MACHINERY.search(m)}

        proc, modules = _talaria(["run", "hello"], home, ws)
        assert proc.returncode == 0 and proc.stdout == "fine\n", proc.stderr[-2000:]
        assert not {m for m in modules if _is_sdk(m) or MACHINERY.search(m)}

        # control: a configured (disabled) server loads the machinery, still not the SDK
        _write_config(home, fake.openai_base_url, '[mcp.servers.off]\ncommand = "x"\nenabled = false\n')
        proc, modules = _talaria(["run", "hello"], home, ws)
        assert proc.returncode == 0 and proc.stdout == "fine\n", proc.stderr[-2000:]
        assert any(m.endswith(".mcp.connection") for m in modules)
        assert not {m for m in modules if _is_sdk(m)}
