"""Every bundled skill conforms strictly to the Agent Skills spec (agentskills.io)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
BUNDLED = sorted(p.parent for p in (REPO / "skills").glob("*/SKILL.md"))
SPEC_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def test_at_least_four_bundled_skills():
    names = {p.name for p in BUNDLED}
    assert {"writing-talaria-plugins", "connecting-mcp-servers", "reviewing-git-diffs", "writing-agents-md"} <= names


@pytest.mark.parametrize("folder", BUNDLED, ids=lambda p: p.name)
def test_bundled_skill_is_valid(folder: Path, skills_mod):
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    raw, body = text[4:].split("\n---\n", 1)
    meta = yaml.safe_load(raw)
    assert set(meta) <= SPEC_KEYS, f"keys outside the spec: {set(meta) - SPEC_KEYS}"
    assert meta["name"] == folder.name and NAME.match(meta["name"]) and len(meta["name"]) <= 64
    assert isinstance(meta["description"], str) and 40 <= len(meta["description"]) <= 1024
    assert "use when" in meta["description"].lower()  # says when to use it
    if "compatibility" in meta:
        assert 1 <= len(meta["compatibility"]) <= 500
    if "metadata" in meta:
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in meta["metadata"].items())
    lines = body.strip().splitlines()
    assert 30 <= len(lines) < 500, "a real body, under the spec's 500-line guidance"
    # The plugin's own lenient parser loads it without a single warning.
    skill = skills_mod.parse_skill_file(folder, "bundled")
    assert skill.warnings == ()
    # Files the body points the model at exist inside the skill.
    for ref in re.findall(r'file="([^"]+)"', body):
        assert (folder / ref).is_file(), f"{folder.name} references missing {ref}"


def test_writing_plugins_skill_uses_the_real_public_api():
    import talaria

    text = (REPO / "skills" / "writing-talaria-plugins" / "SKILL.md").read_text()
    text += (REPO / "skills" / "writing-talaria-plugins" / "reference.md").read_text()
    for name in re.findall(r"from talaria import ([\w, ]+)", text):
        for symbol in (s.strip() for s in name.split(",")):
            assert symbol in talaria.__all__, f"skill imports {symbol}, not in talaria.__all__"
    specs = importlib.import_module("talaria.hookspecs")
    hooks = set(re.findall(r"^def (\w+)\(", text, re.M)) & {h for h in dir(specs) if h.startswith("register_")}
    hooks |= set(re.findall(r"^\| `(\w+)\(", text, re.M))
    assert len(hooks) >= 10
    for hook in hooks:
        assert hasattr(specs, hook), f"skill names unknown hook {hook}"
