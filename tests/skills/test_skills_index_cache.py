"""The finished skills index is reused across sessions until something it depends on changes.

Every test builds the prompt of a *next* session (a fresh session id) after a change and
checks the change is visible: a stale index must never be served.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import talaria

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_bundled(skills_mod, tmp_path, monkeypatch):
    monkeypatch.setattr(skills_mod.sources, "bundled_skills_dir", lambda: tmp_path / "no-bundled")


def _prompt(mod, home: Path, workspace: Path, **kw) -> str:
    """The skills section text a new session gets ("" when there is none)."""
    info = talaria.SessionInfo(id=talaria.new_id("s"), session_key="k", home=home, workspace=workspace, **kw)
    section = mod.prompt_sections(info)
    return "" if section is None else section.text


def _index_file(home: Path) -> Path:
    return home / "cache" / "skills-index.json"


def test_added_edited_and_removed_skills_show_in_the_next_session(skills_mod, home, tmp_path, make_skill, no_bundled):
    ws = tmp_path / "ws"
    make_skill(home / "skills", "alpha", description="First version of alpha.")
    assert "- alpha: First version of alpha." in _prompt(skills_mod, home, ws)
    assert _index_file(home).is_file()
    assert "- alpha: First version of alpha." in _prompt(skills_mod, home, ws)  # reused, still right

    make_skill(home / "skills", "beta", description="Beta arrived later.")
    assert "- beta: Beta arrived later." in _prompt(skills_mod, home, ws)

    make_skill(home / "skills", "alpha", description="Alpha, rewritten with a longer description.")
    text = _prompt(skills_mod, home, ws)
    assert "- alpha: Alpha, rewritten with a longer description." in text
    assert "First version" not in text

    shutil.rmtree(home / "skills" / "beta")
    text = _prompt(skills_mod, home, ws)
    assert "beta" not in text and "- alpha:" in text

    shutil.rmtree(home / "skills" / "alpha")
    assert _prompt(skills_mod, home, ws) == ""  # no skills, no section


def test_trusting_and_untrusting_a_workspace_shows_in_the_next_session(skills_mod, home, tmp_path, make_skill, no_bundled):
    ws = tmp_path / "ws"
    make_skill(ws / ".agents" / "skills", "repo-skill", description="From the repository.")
    make_skill(home / "skills", "mine")
    assert "repo-skill" not in _prompt(skills_mod, home, ws)

    skills_mod.trust.add_trusted(home, ws)
    assert "- repo-skill: From the repository." in _prompt(skills_mod, home, ws)

    skills_mod.trust.remove_trusted(home, ws)
    text = _prompt(skills_mod, home, ws)
    assert "repo-skill" not in text and "- mine:" in text
    # The kernel's own trust flag counts the same way.
    assert "repo-skill" in _prompt(skills_mod, home, ws, trusted_workspace=True)


def test_config_window_and_plugin_folders_show_in_the_next_session(skills_mod, home, tmp_path, make_skill, no_bundled):
    ws, extra, plugin_dir = tmp_path / "ws", tmp_path / "extra", tmp_path / "plugin-skills"
    long = "A description long enough to be shortened when the budget is tight, " * 3
    make_skill(home / "skills", "wordy", description=long.strip())
    make_skill(extra, "extra-skill", description="Listed through extra_dirs.")
    make_skill(plugin_dir, "shipped", description="Shipped by a plugin.")

    base = _prompt(skills_mod, home, ws)
    assert "extra-skill" not in base and "shipped" not in base

    with_extra = _prompt(skills_mod, home, ws, config={"skills": {"extra_dirs": [str(extra)]}})
    assert "- extra-skill: Listed through extra_dirs." in with_extra

    tight = _prompt(skills_mod, home, ws, config={"skills": {"index_max_chars": 300}})
    assert "…" in tight and long.strip() not in tight
    assert _prompt(skills_mod, home, ws, context_window=2_000) != base  # a 160-char budget: shortened or empty

    with_plugin = _prompt(skills_mod, home, ws, skill_dirs=(("plugin:acme", plugin_dir),))
    assert "- shipped: Shipped by a plugin." in with_plugin
    assert _prompt(skills_mod, home, ws) == base  # back to the first setup: the same index


def test_each_workspace_and_home_gets_its_own_index(skills_mod, home, tmp_path, make_skill, no_bundled):
    ws_a, ws_b = tmp_path / "a", tmp_path / "b"
    # Look-alike clones: same skill folder name, size and mtime — only the place differs.
    for ws, letter in ((ws_a, "A"), (ws_b, "B")):
        folder = make_skill(ws / ".agents" / "skills", "same", description=f"Clone {letter}.")
        os.utime(folder / "SKILL.md", ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
        skills_mod.trust.add_trusted(home, ws)
    for _ in range(2):  # alternating: each key is kept, none overwrites the other
        assert "- same: Clone A." in _prompt(skills_mod, home, ws_a)
        assert "- same: Clone B." in _prompt(skills_mod, home, ws_b)

    other_home = tmp_path / "other-home"
    make_skill(other_home / "skills", "elsewhere", description="Another home's skill.")
    assert "- elsewhere: Another home's skill." in _prompt(skills_mod, other_home, ws_a)
    assert "elsewhere" not in _prompt(skills_mod, home, ws_a)


def _damage_text_field(file: Path) -> None:
    data = json.loads(file.read_text())
    data["entries"][0]["text"] = 42
    file.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "damage",
    [
        lambda f: f.write_text("{not json"),
        lambda f: f.write_bytes(b"\xff\xfe\x00garbage"),
        lambda f: f.write_text(""),
        lambda f: f.write_text(json.dumps({"version": 999, "entries": []})),
        lambda f: f.write_text(json.dumps({"version": 1, "entries": {"not": "a list"}})),
        _damage_text_field,
    ],
    ids=["truncated", "binary", "empty", "other-version", "wrong-shape", "bad-entry"],
)
def test_a_damaged_index_cache_only_costs_a_rebuild(skills_mod, home, tmp_path, make_skill, no_bundled, damage):
    ws = tmp_path / "ws"
    make_skill(home / "skills", "sturdy", description="Survives a damaged cache.")
    expected = _prompt(skills_mod, home, ws)
    assert "- sturdy: Survives a damaged cache." in expected
    damage(_index_file(home))

    assert _prompt(skills_mod, home, ws) == expected
    data = json.loads(_index_file(home).read_text())  # rewritten whole
    assert [e["text"] for e in data["entries"]] == [expected]


def test_an_unwritable_index_cache_still_gives_the_index(skills_mod, home, tmp_path, make_skill, no_bundled):
    ws = tmp_path / "ws"
    make_skill(home / "skills", "stubborn", description="Works without a cache.")
    _index_file(home).mkdir(parents=True)  # a directory where the file should be
    assert "- stubborn: Works without a cache." in _prompt(skills_mod, home, ws)
    assert "- stubborn: Works without a cache." in _prompt(skills_mod, home, ws)


def test_a_warm_start_loads_no_discovery_code_and_still_warns(home, tmp_path, make_skill):
    """A fresh process with an unchanged setup reuses the index: same text, same warnings."""
    make_skill(home / "skills", "no-description", description=None)  # skipped, with a warning
    make_skill(home / "skills", "fine", description="A perfectly fine skill. " * 8)
    script = textwrap.dedent(
        f"""
        import json, logging, sys
        from pathlib import Path
        import talaria
        from talaria.testing import load_plugin_module
        warned = []
        handler = logging.Handler()
        handler.emit = lambda record: warned.append(record.getMessage())
        logging.getLogger("talaria.skills").addHandler(handler)
        mod = load_plugin_module(Path({str(REPO / "plugins" / "skills")!r}))
        home = Path({str(home)!r})
        info = talaria.SessionInfo(id="x", session_key="k", home=home, workspace=home, context_window=6_000)
        section = mod.prompt_sections(info)
        loaded = sorted(m.rpartition(".")[2] for m in sys.modules if m.startswith(mod.__name__ + "."))
        print(json.dumps({{"text": section.text, "loaded": loaded, "warned": warned}}))
        """
    )
    cold, warm = (
        json.loads(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                                  check=True).stdout)
        for _ in range(2)
    )
    assert "- fine: A perfectly fine skill." in warm["text"] and warm["text"] == cold["text"]
    assert {"discovery", "skillfile", "prompt_index"} <= set(cold["loaded"])
    assert not {"discovery", "skillfile", "prompt_index", "diskcache"} & set(warm["loaded"]), warm["loaded"]
    assert any("'description' is missing" in w for w in warm["warned"])
    assert any("over its budget" in w for w in warm["warned"])  # 6,000-token window: 480 chars
    assert sorted(warm["warned"]) == sorted(cold["warned"])
