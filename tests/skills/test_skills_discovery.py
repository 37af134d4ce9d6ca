"""Skill discovery: sources, precedence, shadowing, lenient validation, skipped skills."""

from __future__ import annotations

import logging
from pathlib import Path

import talaria


def _session(home: Path, workspace: Path, **kw) -> talaria.SessionInfo:
    return talaria.SessionInfo(id=talaria.new_id("s"), session_key="k", home=home, workspace=workspace, **kw)


def test_precedence_across_every_source(skills_mod, home, tmp_path, make_skill, monkeypatch):
    bundled, plugin_dir, extra = tmp_path / "bundled", tmp_path / "plugin", tmp_path / "extra"
    workspace = tmp_path / "ws"
    project = workspace / ".agents" / "skills"
    for root in (bundled, plugin_dir, extra, home / "skills", project):
        make_skill(root, "shared", description=f"from {root.name}")
    make_skill(bundled, "only-bundled")
    make_skill(plugin_dir, "only-plugin")
    make_skill(home / "skills", "only-user")
    make_skill(project, "only-project")
    monkeypatch.setattr(skills_mod.sources, "bundled_skills_dir", lambda: bundled)

    sources = skills_mod.default_sources(
        home, workspace, {"skills": {"extra_dirs": [str(extra)]}},
        trusted=True, plugin_dirs=[("plugin:acme", plugin_dir)],
    )
    assert [label for label, _ in sources] == ["bundled", "plugin:acme", "extra", "user", "project"]

    index = skills_mod.discover_skills(sources)
    assert set(index.skills) == {"shared", "only-bundled", "only-plugin", "only-user", "only-project"}
    assert index.get("shared").source == "project"
    assert index.get("shared").description == "from skills"  # the project .agents/skills copy
    losers = [s.loser.source for s in index.shadowed if s.winner.name == "shared"]
    # Each higher source shadowed the one below it, in order.
    assert losers == ["bundled", "plugin:acme", "extra", "user"]


def test_project_skills_need_a_trusted_workspace(skills_mod, home, tmp_path, make_skill, monkeypatch):
    monkeypatch.setattr(skills_mod.sources, "bundled_skills_dir", lambda: tmp_path / "none")
    workspace = tmp_path / "ws"
    make_skill(workspace / ".agents" / "skills", "repo-skill")

    untrusted = skills_mod.discover_skills(skills_mod.default_sources(home, workspace))
    assert "repo-skill" not in untrusted

    skills_mod.trust.add_trusted(home, workspace)
    trusted = skills_mod.discover_skills(skills_mod.default_sources(home, workspace))
    assert trusted.get("repo-skill").source == "project"
    # A subfolder of a trusted workspace is trusted too.
    sub = workspace / "pkg"
    sub.mkdir()
    assert skills_mod.trust.is_trusted(home, sub)


def test_session_trust_flag_enables_project_skills(skills_mod, home, tmp_path, make_skill, monkeypatch):
    monkeypatch.setattr(skills_mod.sources, "bundled_skills_dir", lambda: tmp_path / "none")
    workspace = tmp_path / "ws"
    make_skill(workspace / ".agents" / "skills", "repo-skill")
    section = skills_mod.prompt_sections(_session(home, workspace, trusted_workspace=True))
    assert section is not None and "repo-skill" in section.text
    assert skills_mod.prompt_sections(_session(home, workspace)) is None


def test_plugin_dirs_set_by_the_kernel_rank_above_bundled(skills_mod, home, tmp_path, make_skill, monkeypatch):
    bundled, plugin_dir = tmp_path / "bundled", tmp_path / "plugin"
    make_skill(bundled, "dup", description="bundled copy")
    make_skill(plugin_dir, "dup", description="plugin copy")
    monkeypatch.setattr(skills_mod.sources, "bundled_skills_dir", lambda: bundled)
    skills_mod.set_plugin_skill_dirs([("plugin:acme", plugin_dir)])
    try:
        index = skills_mod.discover_skills(skills_mod.default_sources(home, None))
    finally:
        skills_mod.set_plugin_skill_dirs([])
    assert index.get("dup").description == "plugin copy"
    assert index.get("dup").source == "plugin:acme"


def test_malformed_skills_are_skipped_with_a_warning(skills_mod, tmp_path, make_skill, caplog):
    root = tmp_path / "skills"
    make_skill(root, "good-one")
    make_skill(root, "bad-yaml", frontmatter="name: bad-yaml\ndescription: [unclosed")
    make_skill(root, "no-description", description=None)
    make_skill(root, "not-a-mapping", frontmatter="- just\n- a list")
    (root / "no-frontmatter").mkdir()
    (root / "no-frontmatter" / "SKILL.md").write_text("# Just markdown\n")
    (root / "no-skill-md").mkdir()  # not a skill at all: silently ignored

    with caplog.at_level(logging.WARNING, logger="talaria.skills"):
        index = skills_mod.discover_skills([("user", root)])

    assert list(index.skills) == ["good-one"]
    joined = "\n".join(index.warnings)
    for name in ("bad-yaml", "no-description", "not-a-mapping", "no-frontmatter"):
        assert name in joined
    assert "not valid YAML" in joined and "'description' is missing" in joined
    assert any("bad-yaml" in r.getMessage() for r in caplog.records if r.name == "talaria.skills")


def test_lenient_validation_loads_with_warnings(skills_mod, tmp_path, make_skill):
    root = tmp_path / "skills"
    make_skill(
        root,
        "lenient",
        frontmatter="""
            name: Other_Name
            description: A skill with quirks.
            license: Apache-2.0
            compatibility: Needs git.
            metadata: {author: me}
            allowed-tools: Bash(git:*) Read
            user-invocable: true
            version: 3
        """,
    )
    make_skill(root, "unnamed", frontmatter="description: No name field.")
    index = skills_mod.discover_skills([("user", root)])

    quirky = index.get("Other_Name")
    assert quirky is not None  # loaded under its declared name
    assert quirky.license == "Apache-2.0" and quirky.metadata == {"author": "me"}
    assert quirky.allowed_tools == "Bash(git:*) Read"
    assert any("differs from its folder" in w for w in quirky.warnings)
    assert any("lowercase letters" in w for w in quirky.warnings)
    assert not any("user-invocable" in w or "version" in w for w in quirky.warnings)  # unknown keys tolerated
    assert index.get("unnamed").name == "unnamed"  # falls back to the folder name


def test_edited_skill_is_reparsed(skills_mod, tmp_path, make_skill):
    root = tmp_path / "skills"
    folder = make_skill(root, "changing", description="first version")
    assert skills_mod.discover_skills([("user", root)]).get("changing").description == "first version"
    text = (folder / "SKILL.md").read_text().replace("first version", "second, longer version")
    (folder / "SKILL.md").write_text(text)
    assert skills_mod.discover_skills([("user", root)]).get("changing").description == "second, longer version"
