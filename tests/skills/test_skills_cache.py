"""Parsed frontmatter is cached on disk so a cold start skips YAML; edits invalidate it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_disk_cache_is_reused_and_invalidated_by_edits(skills_mod, tmp_path, make_skill):
    root, cache = tmp_path / "skills", tmp_path / "cache" / "skills.json"
    folder = make_skill(root, "cached", description="version one")
    make_skill(root, "broken", description=None)
    first = skills_mod.discover_skills([("user", root)], cache=cache)
    assert first.get("cached").description == "version one"
    entries = json.loads(cache.read_text())["entries"]
    assert len(entries) == 2 and any("error" in e for e in entries.values())

    skills_mod.discovery._PARSED.clear()  # as in a fresh process
    again = skills_mod.discover_skills([("user", root)], cache=cache)
    assert again.get("cached") == first.get("cached") and "broken" not in again
    assert any("'description' is missing" in w for w in again.warnings)  # errors are cached too

    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text().replace("version one", "version 2, edited"))
    skills_mod.discovery._PARSED.clear()
    assert skills_mod.discover_skills([("user", root)], cache=cache).get("cached").description == "version 2, edited"


def test_corrupt_cache_is_ignored(skills_mod, tmp_path, make_skill):
    root, cache = tmp_path / "skills", tmp_path / "skills.json"
    make_skill(root, "fine")
    cache.write_text("{not json")
    assert "fine" in skills_mod.discover_skills([("user", root)], cache=cache)
    assert json.loads(cache.read_text())["version"] == 1  # rewritten


def test_warm_prompt_build_does_not_parse_yaml(home, tmp_path):
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        import talaria
        from talaria.testing import load_plugin_module
        mod = load_plugin_module(Path({str(REPO / "plugins" / "skills")!r}))
        home = Path({str(home)!r})
        calls = []
        real = mod.skillfile._load_yaml
        mod.skillfile._load_yaml = lambda raw: calls.append(1) or real(raw)
        info = talaria.SessionInfo(id="x", session_key="k", home=home, workspace=home)
        section = mod.prompt_sections(info)
        print(section is not None, bool(calls))
        """
    )
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60) for _ in range(2)]
    assert [r.stdout.split() for r in runs] == [["True", "True"], ["True", "False"]], [r.stderr for r in runs]
