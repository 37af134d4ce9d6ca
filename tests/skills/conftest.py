"""Fixtures for the skills plugin tests: the plugin module, a temp home, a skill factory."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from talaria.testing import load_plugin_module

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def skills_mod():
    # An absolute path: a bare "skills" would resolve to the repo's skills/ folder in cwd.
    return load_plugin_module(REPO / "plugins" / "skills")


@pytest.fixture
def home(talaria_home: Path) -> Path:
    """This test's TALARIA_HOME (``talaria_home`` from the ``talaria.testing`` pytest plugin)."""
    return talaria_home


MakeSkill = Callable[..., Path]


@pytest.fixture
def make_skill() -> MakeSkill:
    """``make_skill(root, name, description=..., body=..., frontmatter=None, files={})``."""

    def make(
        root: Path,
        name: str,
        description: str | None = "Does a thing. Use when testing.",
        body: str = "Step 1. Do the thing.",
        *,
        frontmatter: str | None = None,
        files: dict[str, str] | None = None,
    ) -> Path:
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        if frontmatter is None:
            lines = [f"name: {name}"]
            if description is not None:
                lines.append(f"description: {description}")
            frontmatter = "\n".join(lines)
        text = f"---\n{textwrap.dedent(frontmatter).strip()}\n---\n\n{body}\n"
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        for rel, content in (files or {}).items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(content, encoding="utf-8")
        return folder

    return make
