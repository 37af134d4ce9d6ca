"""Every core tool is registered with a small, valid schema (the schemas ride on every request)."""

from __future__ import annotations

import inspect
import json
from typing import Any

import jsonschema
import pytest

from talaria import Tool, Toolset
from talaria.testing import load_plugin_module

PLUGINS = ("files", "terminal", "web", "session_search", "todo")
#: Hermes sends 40.7 KB for its 17 default tools; these 10 carry the same core capabilities.
BUDGET_BYTES = 3_000


def registered(plugin: str) -> list[Any]:
    items: list[Any] = []
    load_plugin_module(plugin).register_tools(items.append)
    return items


def all_tools() -> list[Tool]:
    return [item for plugin in PLUGINS for item in registered(plugin) if isinstance(item, Tool)]


def spec_bytes(tools: list[Tool]) -> int:
    specs = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools]
    return len(json.dumps(specs, separators=(",", ":")).encode())


def test_the_core_tools_are_all_there() -> None:
    names = {t.name for t in all_tools()}
    assert names == {"read_file", "write_file", "edit_file", "list_dir", "search_files", "terminal",
                     "process", "web_fetch", "session_search", "todo"}


@pytest.mark.parametrize("tool", all_tools(), ids=lambda t: t.name)
def test_schema_is_valid_minimal_and_handler_async(tool: Tool) -> None:
    jsonschema.Draft202012Validator.check_schema(tool.parameters)
    assert tool.parameters["type"] == "object"
    assert "additionalProperties" not in tool.parameters
    assert set(tool.parameters.get("required", ())) <= set(tool.parameters.get("properties", {}))
    assert inspect.iscoroutinefunction(tool.handler)
    assert tool.description.endswith(".") and len(tool.description) <= 140
    assert tool.max_output is not None


def test_total_schema_size_is_within_budget() -> None:
    size = spec_bytes(all_tools())
    print(f"core tool schemas: {size} bytes compact JSON")
    assert size <= BUDGET_BYTES


def test_toolsets_name_their_tools() -> None:
    for plugin in PLUGINS:
        items = registered(plugin)
        tools = {i.name for i in items if isinstance(i, Tool)}
        sets = [i for i in items if isinstance(i, Toolset)]
        assert sets and all(set(s.tools) <= tools for s in sets)
        assert {t.toolset for t in items if isinstance(t, Tool)} <= {s.name for s in sets}


def test_plugins_import_no_heavy_sdk_at_import_time() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from talaria.testing import load_plugin_module\n"
        f"for p in {PLUGINS + ('approval', 'redaction')!r}: load_plugin_module(p)\n"
        "heavy = [m for m in ('httpx', 'openai', 'anthropic', 'mcp', 'jsonschema', 'rich') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
