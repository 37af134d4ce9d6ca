"""Importing a provider plugin (and registering what it offers) imports no SDK."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("openai", "anthropic", "httpx", "httpx2")

PROBE = """
import json, sys
from talaria.testing import load_plugin_module
registered = []
for name in ("openai", "anthropic", "compat_providers"):
    module = load_plugin_module(name)
    module.register_providers(registered.append)
    getattr(module, "register_api_modes", lambda register: None)(registered.append)
for item in registered:
    if isinstance(item, type):
        item({})  # instantiating an API mode is cheap too
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
"""


@pytest.mark.slow
def test_plugins_import_no_sdk() -> None:
    out = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n" + PROBE], capture_output=True, text=True,
                         timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


# A chat_completions turn imports the openai SDK (and what the SDK itself imports while it
# streams) and nothing else beyond what Talaria loads for any command: not the anthropic SDK,
# not the old httpx, not MCP. The SDK's own closure is measured, not hard-coded.
DUMP = """
import atexit, json, runpy, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["talaria", *sys.argv[2:]]
runpy.run_module("talaria", run_name="__main__", alter_sys=True)
"""

SDK_ALONE = """
import asyncio, json, sys, openai
async def main():
    client = openai.AsyncOpenAI(base_url=sys.argv[1], api_key="k", max_retries=0)
    stream = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}],
                                                  stream=True, stream_options={"include_usage": True})
    async for _ in stream:
        pass
    await client.close()
asyncio.run(main())
print(json.dumps(sorted(sys.modules)))
"""


def _modules(argv: list[str], env: dict[str, str], cwd: str, tmp_path, label: str) -> set[str]:
    out = tmp_path / f"{label}.json"
    run = subprocess.run([sys.executable, "-c", DUMP, str(out), *argv], capture_output=True, text=True,
                         timeout=120, env=env, cwd=cwd)
    assert run.returncode == 0, run.stderr
    return {m.split(".")[0] for m in json.loads(out.read_text())}


@pytest.mark.slow
def test_a_chat_completions_turn_imports_only_the_openai_sdk(fake, tmp_path) -> None:
    import os

    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    (home / "config.toml").write_text(
        'model = "local/qwen3"\n[providers.local]\napi_mode = "chat_completions"\n'
        f'base_url = "{fake.openai_base_url}"\nkeyless = true\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["TALARIA_HOME"] = str(home)
    _modules(["run", "hi"], env, str(ws), tmp_path, "first")  # first run builds caches (skills index…)
    turn = _modules(["run", "hi"], env, str(ws), tmp_path, "turn")
    assert fake.requests and fake.requests[-1].path.endswith("/chat/completions")
    baseline = _modules(["plugins", "list"], env, str(ws), tmp_path, "baseline")  # Talaria without a turn
    sdk = subprocess.run([sys.executable, "-c", SDK_ALONE, fake.openai_base_url], capture_output=True, text=True,
                         timeout=120, check=True)
    sdk_closure = {m.split(".")[0] for m in json.loads(sdk.stdout.strip().splitlines()[-1])}

    assert {"anthropic", "httpx", "httpcore", "mcp"}.isdisjoint(turn)
    unexplained = turn - baseline - sdk_closure - set(sys.stdlib_module_names) - {"aiosqlite"}  # the session store
    assert unexplained == set(), f"a chat_completions turn imported {sorted(unexplained)} beyond the openai SDK"
