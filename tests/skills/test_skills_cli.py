"""`talaria skills list|show|install|remove` and `talaria trust`, driven through click."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner


@dataclass
class FakeCli:
    home: Path
    workspace: Path
    config: dict[str, Any] = field(default_factory=dict)


@pytest.fixture
def run(skills_mod, home, tmp_path):
    root = click.Group("talaria")
    skills_mod.register_commands(root)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    obj = FakeCli(home=home, workspace=workspace)

    def invoke(*args: str):
        return CliRunner().invoke(root, list(args), obj=obj, catch_exceptions=False)

    invoke.obj = obj
    return invoke


def test_list_shows_bundled_and_user_skills_with_overrides(run, home, make_skill):
    make_skill(home / "skills", "reviewing-git-diffs", description="My own review steps.")
    make_skill(home / "skills", "mine")
    result = run("skills", "list")
    assert result.exit_code == 0
    lines = {line.split()[0]: line for line in result.output.splitlines()}
    assert "user" in lines["mine"]
    assert "My own review steps." in lines["reviewing-git-diffs"]
    assert "(overrides bundled)" in lines["reviewing-git-diffs"]
    assert "bundled" in lines["writing-agents-md"]
    data = json.loads(run("skills", "list", "--json").output)
    assert {"name": "mine", "source": "user"}.items() <= next(s for s in data["skills"] if s["name"] == "mine").items()


def test_show_prints_metadata_and_body(run):
    result = run("skills", "show", "reviewing-git-diffs")
    assert result.exit_code == 0
    assert "source:      bundled" in result.output and "# Reviewing a git diff" in result.output
    missing = run("skills", "show", "nope")
    assert missing.exit_code == 1 and "no skill named 'nope'" in missing.output


def test_install_validates_copies_and_refuses_to_clobber(run, home, tmp_path, make_skill):
    src = make_skill(tmp_path / "src", "fresh-skill", files={"ref.md": "details"})
    result = run("skills", "install", str(src))
    assert result.exit_code == 0, result.output
    assert (home / "skills" / "fresh-skill" / "ref.md").read_text() == "details"
    assert "fresh-skill" in run("skills", "list").output

    again = run("skills", "install", str(src))
    assert again.exit_code == 1 and "--force" in again.output
    assert run("skills", "install", "--force", str(src / "SKILL.md")).exit_code == 0

    bad = make_skill(tmp_path / "src", "broken", description=None)
    refused = run("skills", "install", str(bad))
    assert refused.exit_code == 1 and "description" in refused.output
    assert not (home / "skills" / "broken").exists()
    assert not [p for p in (home / "skills").iterdir() if p.name.startswith(".")]  # no staging left


def test_install_rejects_an_invalid_name(run, home, tmp_path, make_skill):
    src = make_skill(tmp_path / "src", "Bad_Name")
    result = run("skills", "install", str(src))
    assert result.exit_code == 1 and "lowercase" in result.output
    assert not (home / "skills").exists() or not any((home / "skills").iterdir())


def test_remove_only_removes_user_skills(run, home, make_skill):
    make_skill(home / "skills", "mine")
    assert run("skills", "remove", "mine").exit_code == 0
    assert not (home / "skills" / "mine").exists()
    refused = run("skills", "remove", "reviewing-git-diffs")
    assert refused.exit_code == 1 and "bundled skill" in refused.output
    assert "only user skills" in refused.output


def test_trust_enables_project_skills(run, home, make_skill):
    workspace = run.obj.workspace
    make_skill(workspace / ".agents" / "skills", "repo-only")
    assert "repo-only" not in run("skills", "list").output

    result = run("trust")
    assert result.exit_code == 0 and "Trusted" in result.output
    assert json.loads((home / "trusted.json").read_text()) == {"workspaces": [str(workspace.resolve())]}
    assert "Already trusted" in run("trust", str(workspace)).output
    assert str(workspace.resolve()) in run("trust", "--list").output
    assert "project" in run("skills", "list").output

    assert run("trust", "--remove").exit_code == 0
    assert "repo-only" not in run("skills", "list").output
    assert run("trust", "--remove").exit_code == 1
    assert "No trusted workspaces." in run("trust", "--list").output
