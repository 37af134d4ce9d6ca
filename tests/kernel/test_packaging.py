"""Packaging and third-party plugins, for real: a wheel, a throwaway venv, pip install."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
pytestmark = pytest.mark.slow


def test_wheel_ships_plugins_skills_and_mcp_presets(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("kernel", "plugins", "skills", "optional-mcps"):
        shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(REPO / name, src / name)
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", str(src), "-w", str(tmp_path / "dist")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (wheel,) = (tmp_path / "dist").glob("talaria-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "talaria/__init__.py" in names and "talaria/turn/runtime.py" in names
    for plugin in (p.name for p in (REPO / "plugins").iterdir() if (p / "plugin.toml").exists()):
        assert f"talaria/_bundled/plugins/{plugin}/plugin.toml" in names, plugin
    for skill in (p.name for p in (REPO / "skills").iterdir() if (p / "SKILL.md").exists()):
        assert f"talaria/_bundled/skills/{skill}/SKILL.md" in names, skill
    assert any(n.startswith("talaria/_bundled/optional-mcps/") for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "talaria = talaria.cli:main" in text


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(root)], check=True, timeout=120)
    fixtures = [str(FIXTURES / f"talaria-{n}") for n in ("good-provider", "broken-import", "typo-hook", "bad-signature", "bundled-clash")]
    out = subprocess.run([str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", *fixtures],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return root


def talaria(venv: Path, home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / "python"), "-m", "talaria", *args], capture_output=True, text=True,
                          env={**os.environ, "TALARIA_HOME": str(home), **(env or {})}, timeout=120)


def test_installed_plugins_appear_with_distribution_and_errors_are_one_line_each(venv: Path, tmp_path: Path) -> None:
    listing = talaria(venv, tmp_path, "plugins", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    plugins = {p["name"]: p for p in json.loads(listing.stdout)["plugins"]}
    good = plugins["goodprov"]
    assert good["tier"] == "installed" and good["version"] == "1.2.3" and good["status"] == "loaded"
    assert "talaria-good-provider 1.2.3" in good["origin"] and "provider:goodprov" in good["registered"]
    # the installed plugin named like a bundled one overrides it, and says so
    clash = plugins["todo"]
    assert clash["tier"] == "installed" and any(o.startswith("bundled:") for o in clash["overrides"])

    text = talaria(venv, tmp_path, "plugins", "list")
    error_lines = [line for line in text.stderr.splitlines() if line.startswith("talaria: plugin")]
    for name, dist in (("brokenimport", "talaria-broken-import"), ("typohook", "talaria-typo-hook"), ("badsignature", "talaria-bad-signature")):
        mine = [line for line in error_lines if f"'{name}'" in line]
        assert len(mine) == 1, (name, error_lines)
        assert dist in mine[0]
    assert plugins["files"]["status"] == "loaded"  # everything else still loads
    assert talaria(venv, tmp_path, "plugins", "list", "--strict").returncode != 0


def test_user_folder_overrides_the_installed_plugin(venv: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plugins" / "goodprov"
    folder.mkdir(parents=True)
    (folder / "plugin.toml").write_text('name = "goodprov"\nversion = "7.0"\n')
    (folder / "__init__.py").write_text(
        "from talaria import ProviderProfile, hookimpl\n\n@hookimpl\ndef register_providers(register):\n"
        "    register(ProviderProfile(name='goodprov', base_url='http://user.example/v1'))\n")
    plugins = {p["name"]: p for p in json.loads(talaria(venv, tmp_path, "plugins", "list", "--json").stdout)["plugins"]}
    record = plugins["goodprov"]
    assert record["tier"] == "user" and record["version"] == "7.0"
    assert any("talaria-good-provider 1.2.3" in o for o in record["overrides"])


def test_allow_list_keeps_installed_plugins_unimported(venv: Path, tmp_path: Path) -> None:
    probe = ("import sys, io, contextlib\nfrom talaria.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
             "    main(['plugins', 'list'])\nprint('talaria_good_provider' in sys.modules)\n")
    for allow, expected in (("files", "False"), (None, "True")):
        env = {**os.environ, "TALARIA_HOME": str(tmp_path)}
        env.pop("TALARIA_PLUGINS", None)
        if allow is not None:
            env["TALARIA_PLUGINS"] = allow
        out = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, env=env, timeout=120)
        assert out.stdout.strip() == expected, out.stderr
