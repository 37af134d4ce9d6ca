"""`talaria mcp` commands, driven through click with a CliContext-shaped object."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from click.testing import CliRunner

from mcp_helpers import PROBE_SERVER


class FakeCli:
    """Implements talaria.CliContext: config.toml in ``home``, edited through tomlkit."""

    def __init__(self, home: Path, workspace: Path) -> None:
        self.home, self.workspace = home, workspace
        self.path = home / "config.toml"

    @property
    def config(self) -> dict[str, Any]:
        return tomllib.loads(self.path.read_text()) if self.path.exists() else {}

    @contextmanager
    def edit_config(self):
        doc = tomlkit.parse(self.path.read_text()) if self.path.exists() else tomlkit.document()
        yield doc
        self.path.write_text(tomlkit.dumps(doc))

    def load_kernel(self) -> Any:
        raise NotImplementedError


@pytest.fixture
def cli(mcp_mod, _home, tmp_path):
    import click

    @click.group()
    def root() -> None:
        pass

    mcp_mod.register_commands(root)
    obj = FakeCli(_home, tmp_path)
    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(root, list(args), obj=obj, catch_exceptions=False)

    run.obj = obj  # type: ignore[attr-defined]
    return run


def servers(cli) -> dict[str, Any]:
    return cli.obj.config.get("mcp", {}).get("servers", {})


def test_add_command_url_and_remove(cli):
    result = cli("mcp", "add", "probe", "--env", "A=1", "--", sys.executable, str(PROBE_SERVER), "-v")
    assert result.exit_code == 0, result.output
    result = cli("mcp", "add", "docs", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization=Bearer ${T}",
                 "--include", "search")
    assert result.exit_code == 0, result.output
    got = servers(cli)
    assert got["probe"] == {"command": sys.executable, "args": [str(PROBE_SERVER), "-v"], "env": {"A": "1"}}
    assert got["docs"] == {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${T}"},
                           "tools": {"include": ["search"]}}
    again = cli("mcp", "add", "docs", "--url", "http://x/mcp")
    assert again.exit_code != 0 and "already exists" in again.output
    assert cli("mcp", "remove", "docs").exit_code == 0
    assert "docs" not in servers(cli)
    missing = cli("mcp", "remove", "docs")
    assert missing.exit_code != 0 and "no MCP server named 'docs'" in missing.output
    assert "configured: probe" in missing.output


def test_options_that_do_not_fit_the_server_are_usage_errors(cli):
    wrong = cli("mcp", "add", "x", "--header", "A=B", "--", "some-server")
    assert wrong.exit_code == 2 and "--header" in wrong.output and "URL servers" in wrong.output
    wrong = cli("mcp", "add", "y", "--url", "http://127.0.0.1:9/mcp", "--env", "A=1", "--cwd", "/tmp")
    assert wrong.exit_code == 2 and "--env, --cwd" in wrong.output
    wrong = cli("mcp", "add", "z", "--url", "127.0.0.1:9/mcp")
    assert wrong.exit_code != 0 and "must start with http://" in wrong.output
    assert servers(cli) == {}  # nothing half-written


def test_add_warns_when_the_command_is_not_installed(cli):
    result = cli("mcp", "add", "ghost", "--", "no-such-mcp-binary-xyz", "--flag")
    assert result.exit_code == 0
    assert "'no-such-mcp-binary-xyz' is not on PATH" in result.output
    assert servers(cli)["ghost"] == {"command": "no-such-mcp-binary-xyz", "args": ["--flag"]}
    quiet = cli("mcp", "add", "py", "--", sys.executable, str(PROBE_SERVER))
    assert "not on PATH" not in quiet.output


def test_disable_and_enable_keep_the_entry(cli):
    cli("mcp", "add", "probe", "--", sys.executable, str(PROBE_SERVER))
    assert cli("mcp", "disable", "probe").exit_code == 0
    assert servers(cli)["probe"]["enabled"] is False
    listed = cli("mcp", "list", "--no-check")
    assert "disabled" in listed.output and str(PROBE_SERVER) in listed.output
    assert cli("mcp", "enable", "probe").exit_code == 0
    assert servers(cli)["probe"] == {"command": sys.executable, "args": [str(PROBE_SERVER)]}
    missing = cli("mcp", "disable", "nope")
    assert missing.exit_code != 0 and "no MCP server named 'nope'" in missing.output


def test_the_lazy_group_lists_exactly_the_real_commands(mcp_mod):
    from importlib import import_module

    group = import_module(mcp_mod.__name__ + ".group")
    real = import_module(mcp_mod.__name__ + ".cli").mcp_group
    assert sorted(group.SUBCOMMANDS) == sorted(real.commands)
    for name in group.SUBCOMMANDS:
        assert group.mcp_group.get_command(None, name) is real.commands[name]
    assert group.mcp_group.get_command(None, "nope") is None


def test_add_preset_time_writes_a_working_entry(cli):
    result = cli("mcp", "add", "time", "--env", "TZ=UTC")
    assert result.exit_code == 0, result.output
    entry = servers(cli)["time"]
    assert entry["command"] == "mcp-server-time" and entry["env"] == {"TZ": "UTC"}
    assert entry["tools"]["include"] == ["get_current_time", "convert_time"]
    wrong = cli("mcp", "add", "fetch", "--header", "A=B")
    assert wrong.exit_code == 2 and "URL servers" in wrong.output


def test_every_preset_is_valid(mcp_mod):
    from importlib import import_module

    presets = import_module(mcp_mod.__name__ + ".presets")
    config = import_module(mcp_mod.__name__ + ".config")
    names = presets.list_presets()
    assert {"time", "git", "fetch", "filesystem", "everything"} <= set(names)
    for name in names:
        preset = presets.load_preset(name)
        assert preset["name"] == name and preset["description"] and preset["needs"]
        entry, _ = presets.preset_entry(preset)
        config.parse_server(name, entry)  # raises on an invalid entry
    fs, _ = presets.preset_entry(presets.load_preset("filesystem"))
    assert "${WORKSPACE}" in fs["args"]


def test_unknown_preset_says_what_to_do(cli):
    result = cli("mcp", "add", "nosuchpreset")
    assert result.exit_code != 0 and "not a preset" in result.output and "time" in result.output


def test_import_mcp_servers_json(cli, tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
               "env": {"X": "1"}},
        "remote": {"url": "http://127.0.0.1:9/sse", "type": "sse", "headers": {"K": "V"}},
        "broken": {"args": ["no command"]},
    }}))
    result = cli("mcp", "import", str(path))
    assert result.exit_code == 0, result.output
    got = servers(cli)
    assert got["fs"]["args"][-1] == "/tmp" and got["fs"]["env"] == {"X": "1"}
    assert got["remote"] == {"url": "http://127.0.0.1:9/sse", "headers": {"K": "V"}, "transport": "sse"}
    assert "broken" not in got and "broken" in result.output
    again = cli("mcp", "import", str(path))
    assert "skipped fs" in again.output


def test_list_without_servers_and_without_check(cli):
    assert "No MCP servers configured" in cli("mcp", "list").output
    assert json.loads(cli("mcp", "list", "--json").output) == []
    cli("mcp", "add", "probe", "--", sys.executable, str(PROBE_SERVER))
    result = cli("mcp", "list", "--no-check", "--json")
    assert json.loads(result.output) == [{"name": "probe", "status": "configured", "transport": "stdio"}]


@pytest.mark.slow
def test_list_and_test_connect_for_real(cli):
    cli("mcp", "add", "time", "--", "mcp-server-time", "--local-timezone", "UTC")
    cli("mcp", "add", "ghost", "--", "no-such-mcp-binary-xyz")
    result = cli("mcp", "list", "--json", "--timeout", "20")
    rows = {r["name"]: r for r in json.loads(result.output)}
    assert rows["time"]["status"] == "connected" and rows["time"]["tools"] == 2
    assert rows["ghost"]["status"] == "failed" and "command not found" in rows["ghost"]["last_error"]
    assert result.exit_code == 0  # informational: a failed server is shown, not an error
    listed = cli("mcp", "list", "--strict", "--timeout", "20")
    assert listed.exit_code == 1  # --strict: for scripts, a server that is not connected fails
    lines = listed.output.splitlines()
    assert lines[0].split()[:5] == ["SERVER", "TYPE", "STATE", "TOOLS", "TIME"]
    assert lines[1].split()[:4] == ["time", "stdio", "connected", "2"]  # config order
    assert lines[2].split()[:4] == ["ghost", "stdio", "failed", "0"]
    assert "error: command not found" in listed.output

    ok = cli("mcp", "test", "time")
    assert ok.exit_code == 0, ok.output
    assert "connected" in ok.output and "2 tool(s)" in ok.output
    assert re.search(r"mcp__time__get_current_time +Get current time", ok.output)
    bad = cli("mcp", "test", "ghost")
    assert bad.exit_code == 1 and "command not found" in bad.output
