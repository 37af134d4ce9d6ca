"""Plugin manifests and provider profile tables are parsed once per change: a later start
reads them from ``$TALARIA_HOME/cache/toml.json``, and no edit, replacement or damaged cache
ever shows a stale or wrong table."""

from __future__ import annotations

import json
import os
import sys
import time
import tomllib
from pathlib import Path

import pytest

import talaria
from talaria.kernel import load_kernel
from talaria.loader._toml_cache import caching, read_toml

OLD = time.time() - 3600  # older than the racy window

PLUGIN = '''
from pathlib import Path
import talaria

@talaria.hookimpl
def register_providers(register):
    for profile in talaria.profiles_from_toml(Path(__file__).with_name("profiles.toml")):
        register(profile)
'''


@pytest.fixture(autouse=True)
def _fresh_plugin_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test imports its own ``acme`` folder (the name is the same in every home)."""
    monkeypatch.delitem(sys.modules, "_talaria_user.acme", raising=False)


def _age(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (OLD, OLD))


def _user_plugin(home: Path, *, description: str = "first", model: str = "acme-large") -> Path:
    folder = home / "plugins" / "acme"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.toml").write_text(f'name = "acme"\nversion = "1.0"\ndescription = "{description}"\n')
    (folder / "__init__.py").write_text(PLUGIN)
    (folder / "profiles.toml").write_text(
        f'[acme]\napi_mode = "chat_completions"\nbase_url = "http://127.0.0.1:9/v1"\nkeyless = true\n'
        f'default_model = "{model}"\nmodels = [{{ id = "{model}", context_window = 8192, input_price = 0.5 }}]\n')
    _age(*folder.iterdir())
    return folder


def _load(home: Path) -> talaria.Kernel:
    return load_kernel(home=home, workspace=home, config={})


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: object, **__: object) -> None:
        raise AssertionError("a TOML file was parsed again: the cache was not used")

    monkeypatch.setattr(tomllib, "loads", fail)
    monkeypatch.setattr(tomllib, "load", fail)


def test_a_second_start_parses_no_manifest_or_profile_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    _user_plugin(home)
    first = _load(home)
    assert (home / "cache" / "toml.json").is_file()
    _no_parsing(monkeypatch)
    second = _load(home)
    assert second.plugins.records["acme"].description == "first"
    assert second.registries.providers.get("acme") == first.registries.providers.get("acme")
    assert second.registries.providers.get("acme").models[0].input_price == 0.5
    assert sorted(second.plugins.records) == sorted(first.plugins.records)


def test_an_edit_is_seen_even_when_size_and_mtime_look_unchanged(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = _user_plugin(home, description="first", model="acme-large")
    assert _load(home).plugins.records["acme"].description == "first"
    _user_plugin(home, description="other", model="acme-small")  # same sizes, mtime set back to OLD
    kernel = _load(home)
    assert kernel.plugins.records["acme"].description == "other"
    assert kernel.registries.providers.get("acme").default_model == "acme-small"
    assert (folder / "plugin.toml").stat().st_mtime == pytest.approx(OLD)


def test_a_broken_manifest_is_reported_after_it_was_cached(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = _user_plugin(home)
    assert _load(home).plugins.records["acme"].status == "loaded"
    (folder / "plugin.toml").write_text('name = "acme"\nversion = \n')
    _age(folder / "plugin.toml")
    record = _load(home).plugins.records["acme"]
    assert record.status == "failed"
    assert "plugin.toml" in record.errors[0].line()


@pytest.mark.parametrize("damage", ["{not json", '{"format": 1, "files": {"x": 3}}', '[]', ""])
def test_a_damaged_cache_only_costs_a_parse(tmp_path: Path, damage: str) -> None:
    home = tmp_path / "home"
    _user_plugin(home)
    (home / "cache").mkdir(parents=True)
    (home / "cache" / "toml.json").write_text(damage)
    kernel = _load(home)
    assert kernel.plugins.records["acme"].description == "first"
    assert kernel.registries.providers.get("acme").default_model == "acme-large"
    assert json.loads((home / "cache" / "toml.json").read_text())["format"] == 1  # rewritten


def test_a_cache_entry_with_the_wrong_table_for_a_stat_is_never_trusted_for_another_stat(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = _user_plugin(home)
    _load(home)
    cache = home / "cache" / "toml.json"
    data = json.loads(cache.read_text())
    key = str((folder / "plugin.toml").absolute())
    data["files"][key]["stat"][1] += 1  # as if recorded for another size
    data["files"][key]["table"]["description"] = "stale"
    cache.write_text(json.dumps(data))
    assert _load(home).plugins.records["acme"].description == "first"


def test_a_file_changed_just_now_is_parsed_but_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "fresh.toml"
    path.write_text('a = 1\n')
    cache = tmp_path / "cache.json"
    with caching(cache):
        assert read_toml(path) == {"a": 1}
    assert not cache.exists() or str(path.absolute()) not in json.loads(cache.read_text())["files"]
    _age(path)
    with caching(cache):
        assert read_toml(path) == {"a": 1}
    assert str(path.absolute()) in json.loads(cache.read_text())["files"]


def test_tables_json_cannot_keep_exactly_are_parsed_every_time(tmp_path: Path) -> None:
    path = tmp_path / "dated.toml"
    path.write_text('when = 2024-05-01\nratio = 1.0\ncount = 1\n')
    _age(path)
    cache = tmp_path / "cache.json"
    for _ in range(2):
        with caching(cache):
            table = read_toml(path)
        assert str(table["when"]) == "2024-05-01" and type(table["ratio"]) is float and type(table["count"]) is int
    assert not cache.exists()


def test_floats_and_integers_keep_their_type_through_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "numbers.toml"
    path.write_text('ratio = 1.0\ncount = 1\nbig = inf\nflag = true\nnested = { list = [1, 2.5, "x"] }\n')
    _age(path)
    cache = tmp_path / "cache.json"
    with caching(cache):
        parsed = read_toml(path)
    with caching(cache):
        cached = read_toml(path)
    assert cached == parsed
    assert [type(cached[k]) for k in ("ratio", "count", "big", "flag")] == [float, int, float, bool]
    assert [type(v) for v in cached["nested"]["list"]] == [int, float, str]


def test_an_unwritable_cache_still_loads_everything(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _user_plugin(home)
    (home / "cache").mkdir(parents=True)
    (home / "cache" / "toml.json").mkdir()  # a directory where the file should be
    kernel = _load(home)
    assert kernel.plugins.records["acme"].status == "loaded"
    assert kernel.registries.providers.get("acme") is not None


def test_profiles_from_toml_outside_a_kernel_load_parses_directly(tmp_path: Path) -> None:
    path = tmp_path / "profiles.toml"
    path.write_text('[solo]\napi_mode = "chat_completions"\nbase_url = "http://127.0.0.1:9/v1"\n')
    [profile] = talaria.profiles_from_toml(path)
    assert profile.name == "solo"
    with pytest.raises(talaria.RegistrationError, match="cannot read provider profiles"):
        talaria.profiles_from_toml(tmp_path / "missing.toml")
