"""Installed plugins are found from a cache between processes, and the cache never hides a
change: installing, removing or editing a distribution's entry points is seen at once."""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import time
from pathlib import Path

import pytest

from talaria.loader import _entry_points as eps
from talaria.loader._candidates import entry_point_candidates

OLD = time.time() - 3600  # an hour ago: older than the racy window


def _dist(site: Path, name: str, version: str, points: str) -> Path:
    meta = site / f"{name}-{version}.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (meta / "entry_points.txt").write_text(f"[talaria]\n{points}\n")
    return meta


def _age(*paths: Path, when: float = OLD) -> None:
    for path in paths:
        os.utime(path, (when, when))


@pytest.fixture()
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sys.path holding only a fresh site directory (and a module the plugins point to)."""
    root = tmp_path / "site"
    root.mkdir()
    (root / "bench_plugin_mod.py").write_text("MARK = 'loaded'\n\nclass Holder:\n    inner = 42\n")
    monkeypatch.setattr(sys, "path", [str(root)])
    monkeypatch.delitem(sys.modules, "bench_plugin_mod", raising=False)
    return root


@pytest.fixture()
def cache(tmp_path: Path) -> Path:
    return tmp_path / "home" / "cache" / "entry-points.json"


def _names(cache: Path) -> list[tuple[str, str, str, str]]:
    return sorted((e.name, e.value, e.distribution, e.version) for e in eps.installed_entry_points(cache))


def _no_rescan(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(**_: object) -> None:
        raise AssertionError("importlib.metadata was asked again: the cache was not used")

    monkeypatch.setattr(importlib.metadata, "entry_points", fail)


def test_unchanged_installation_is_answered_from_the_cache(site: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    meta = _dist(site, "bench_one", "1.0", "bench = bench_plugin_mod")
    _age(meta / "entry_points.txt", meta, site)
    first = _names(cache)
    assert first == [("bench", "bench_plugin_mod", "bench_one", "1.0")]
    assert cache.is_file()
    _no_rescan(monkeypatch)
    assert _names(cache) == first
    [candidate] = entry_point_candidates(cache=cache)
    assert candidate.origin == "bench_one 1.0, entry point talaria:bench = bench_plugin_mod"
    assert candidate.load().MARK == "loaded"


def test_installing_and_removing_a_distribution_is_seen(site: Path, cache: Path) -> None:
    one = _dist(site, "bench_one", "1.0", "bench = bench_plugin_mod")
    _age(one / "entry_points.txt", one, site)
    assert [n[0] for n in _names(cache)] == ["bench"]
    two = _dist(site, "bench_two", "2.0", "other = bench_plugin_mod:Holder.inner")
    _age(two / "entry_points.txt", two, site, when=OLD + 10)  # even with an old-looking time
    assert [n[0] for n in _names(cache)] == ["bench", "other"]
    [other] = [c for c in entry_point_candidates(cache=cache) if c.name == "other"]
    assert other.load() == 42
    for child in two.iterdir():
        child.unlink()
    two.rmdir()
    _age(site, when=OLD + 20)
    assert [n[0] for n in _names(cache)] == ["bench"]


def test_entry_point_edited_in_place_is_seen(site: Path, cache: Path) -> None:
    meta = _dist(site, "bench_one", "1.0", "bench = bench_plugin_mod")
    _age(meta / "entry_points.txt", meta, site)
    assert _names(cache)[0][1] == "bench_plugin_mod"
    (meta / "entry_points.txt").write_text("[talaria]\nbench = bench_plugin_mod:Holder\n")
    _age(meta / "entry_points.txt", when=OLD + 10)
    assert _names(cache)[0][1] == "bench_plugin_mod:Holder"


def test_a_change_within_the_racy_window_is_not_cached(site: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(site, "bench_one", "1.0", "bench = bench_plugin_mod")  # just now: timestamps may be coarse
    assert [n[0] for n in _names(cache)] == ["bench"]
    assert not cache.exists()


@pytest.mark.parametrize("damage", ["not json", json.dumps({"format": 1, "entries": [{"key": {"path": 3}}]}),
                                    json.dumps({"format": 1, "entries": "x"})])
def test_a_damaged_cache_only_costs_a_rescan(site: Path, cache: Path, damage: str) -> None:
    meta = _dist(site, "bench_one", "1.0", "bench = bench_plugin_mod")
    _age(meta / "entry_points.txt", meta, site)
    cache.parent.mkdir(parents=True)
    cache.write_text(damage)
    assert [n[0] for n in _names(cache)] == ["bench"]
    assert json.loads(cache.read_text())["entries"][0]["entry_points"][0]["name"] == "bench"


def test_each_interpreter_path_keeps_its_own_answer(site: Path, cache: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    other_site = tmp_path / "other-site"
    other_site.mkdir()
    meta = _dist(site, "bench_one", "1.0", "bench = bench_plugin_mod")
    _age(meta / "entry_points.txt", meta, site, other_site)
    assert [n[0] for n in _names(cache)] == ["bench"]
    monkeypatch.setattr(sys, "path", [str(other_site), str(site)])
    assert [n[0] for n in _names(cache)] == ["bench"]
    _no_rescan(monkeypatch)
    assert [n[0] for n in _names(cache)] == ["bench"]
    monkeypatch.setattr(sys, "path", [str(site)])
    assert [n[0] for n in _names(cache)] == ["bench"]
