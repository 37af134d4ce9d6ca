"""The command line as a user runs it (subprocesses)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest_kernel import run_talaria

HEAVY = ("openai", "anthropic", "mcp", "httpx", "httpx2", "jsonschema")


def test_version() -> None:
    result = run_talaria("--version")
    assert result.returncode == 0 and result.stdout.startswith("talaria ")


def test_import_and_plugins_list_do_not_import_heavy_libraries(home: Path) -> None:
    probe = textwrap.dedent(f"""
        import sys, io, contextlib
        import talaria
        before = [m for m in {HEAVY!r} if m in sys.modules]
        from talaria.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            rc = main(["plugins", "list"])
        after = [m for m in {HEAVY!r} if m in sys.modules]
        print(before, after, rc)
    """)
    import os
    import subprocess

    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env={**os.environ}, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("[] [] "), out.stdout


def test_plugins_list_json_shows_bundled_plugins_with_registrations(home: Path) -> None:
    result = run_talaria("plugins", "list", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    by_name = {p["name"]: p for p in data["plugins"]}
    assert by_name["files"]["tier"] == "bundled" and "tool:read_file" in by_name["files"]["registered"]


def _user_plugin(home: Path, name: str) -> None:
    folder = home / "plugins" / name
    folder.mkdir(parents=True)
    (folder / "plugin.toml").write_text(f'name = "{name}"\n')
    (folder / "__init__.py").write_text("from talaria import hookimpl\n\n@hookimpl\ndef on_turn_end(turn):\n    pass\n")


@pytest.mark.parametrize("how", ["allow-list", "no-plugin", "config"])
def test_excluded_plugin_is_never_imported(home: Path, how: str) -> None:
    _user_plugin(home, "sentinel")
    env = {}
    args = []
    if how == "allow-list":
        env["TALARIA_PLUGINS"] = "files"
    elif how == "no-plugin":
        args = ["--no-plugin", "sentinel"]
    else:
        (home / "config.toml").write_text('[plugins]\ndisabled = ["sentinel"]\n')
    probe = (
        "import sys, io, contextlib\nfrom talaria.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({args + ['plugins', 'list']!r})\n"
        "print(sorted(m for m in sys.modules if 'sentinel' in m))\n"
    )
    import os
    import subprocess

    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env={**os.environ, **env}, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    control = subprocess.run([sys.executable, "-c", probe.replace(repr(args + ['plugins', 'list']), "['plugins', 'list']")],
                             capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "TALARIA_PLUGINS"}, timeout=60)
    if how != "config":
        assert "_talaria_user.sentinel" in control.stdout  # without the exclusion it is imported


def test_config_set_get_and_errors_name_the_key(home: Path) -> None:
    assert run_talaria("config", "set", "turn.max_iterations", "12").returncode == 0
    got = run_talaria("config", "get", "turn.max_iterations")
    assert got.stdout.strip() == "12"
    bad = run_talaria("config", "set", "turn.max_iterations", "lots")
    assert bad.returncode != 0 and "turn.max_iterations" in bad.stderr and "integer" in bad.stderr
    unknown = run_talaria("config", "set", "modle", "x")
    assert unknown.returncode != 0 and "modle" in unknown.stderr
    assert "max_iterations = 12" in (home / "config.toml").read_text()


def test_doctor_reports_plugin_errors(home: Path) -> None:
    folder = home / "plugins" / "broken_one"
    folder.mkdir(parents=True)
    (folder / "plugin.toml").write_text('name = "broken_one"\n')
    (folder / "__init__.py").write_text("raise RuntimeError('kaboom')\n")
    result = run_talaria("doctor")
    assert result.returncode == 1
    assert "broken_one" in result.stdout and "kaboom" in result.stdout
