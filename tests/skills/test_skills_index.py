"""The prompt index: volatile tier, budget (shorten, then drop), none without skills, frozen."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import talaria


def _session(home: Path, workspace: Path, *, sid: str | None = None, window: int = 128_000, config=None):
    return talaria.SessionInfo(
        id=sid or talaria.new_id("s"), session_key="k", home=home, workspace=workspace,
        context_window=window, config=config or {},
    )


@pytest.fixture
def no_bundled(skills_mod, tmp_path, monkeypatch):
    monkeypatch.setattr(skills_mod.sources, "bundled_skills_dir", lambda: tmp_path / "no-bundled")


def _many(make_skill, root: Path, n: int, words: int = 40) -> None:
    for i in range(n):
        make_skill(root, f"skill-{i:02d}", description=" ".join(["procedure"] * words) + f" number {i}.")


def test_index_lists_names_and_descriptions(skills_mod, home, tmp_path, make_skill, no_bundled):
    make_skill(home / "skills", "deploy-app", description="Deploy the app. Use when shipping.")
    section = skills_mod.prompt_sections(_session(home, tmp_path))
    assert section.tier == "volatile" and section.source == "skills"
    assert "- deploy-app: Deploy the app. Use when shipping." in section.text
    assert "skill_view" in section.text


def test_no_section_without_skills(skills_mod, home, tmp_path, no_bundled):
    assert skills_mod.prompt_sections(_session(home, tmp_path)) is None


def test_index_within_budget_shortens_descriptions_first(skills_mod, home, tmp_path, make_skill, no_bundled):
    _many(make_skill, home / "skills", 10)
    window = 20_000  # 2 % = 400 tokens ≈ 1,600 chars; the full index is ~4,000
    budget = skills_mod.prompt_index.budget_chars(window)
    assert budget == 1600
    section = skills_mod.prompt_sections(_session(home, tmp_path, window=window))
    assert len(section.text) <= budget
    assert all(f"skill-{i:02d}" in section.text for i in range(10))  # all kept, shortened
    assert "…" in section.text


def test_index_drops_skills_with_a_warning_when_shortening_is_not_enough(
    skills_mod, home, tmp_path, make_skill, no_bundled, caplog
):
    _many(make_skill, home / "skills", 60)
    window = 20_000
    with caplog.at_level(logging.WARNING, logger="talaria.skills"):
        section = skills_mod.prompt_sections(_session(home, tmp_path, window=window))
    assert len(section.text) <= 1600
    kept = [i for i in range(60) if f"skill-{i:02d}:" in section.text]
    assert 0 < len(kept) < 60
    assert kept == list(range(len(kept)))  # the last names are left out first
    warning = "\n".join(r.getMessage() for r in caplog.records)
    assert "left out" in warning and "skill-59" in warning


def test_lower_precedence_skills_are_dropped_first(skills_mod, tmp_path, make_skill):
    bundled_root, user_root = tmp_path / "b", tmp_path / "u"
    for i in range(6):
        make_skill(bundled_root, f"b-{i}", description="x " * 60)
        make_skill(user_root, f"u-{i}", description="y " * 60)
    index = skills_mod.discover_skills([("bundled", bundled_root), ("user", user_root)])
    rendered = skills_mod.prompt_index.render_index(list(index), 400)
    assert len(rendered.text) <= 400
    assert rendered.dropped and all(name.startswith("b-") for name in rendered.dropped)


def test_budget_is_configurable(skills_mod, home, tmp_path, make_skill, no_bundled):
    _many(make_skill, home / "skills", 10)
    config = {"skills": {"index_max_chars": 900}}
    section = skills_mod.prompt_sections(_session(home, tmp_path, config=config))
    assert len(section.text) <= 900


def test_index_is_frozen_per_session(skills_mod, home, tmp_path, make_skill, no_bundled):
    make_skill(home / "skills", "first")
    first = skills_mod.prompt_sections(_session(home, tmp_path, sid="same"))
    make_skill(home / "skills", "second")
    again = skills_mod.prompt_sections(_session(home, tmp_path, sid="same"))
    assert again.text == first.text and "second" not in again.text
    fresh = skills_mod.prompt_sections(_session(home, tmp_path, sid="next"))
    assert "second" in fresh.text


def test_bundled_skills_fit_the_default_budget(skills_mod, home, tmp_path):
    section = skills_mod.prompt_sections(_session(home, tmp_path))
    assert section is not None and "writing-talaria-plugins" in section.text
    assert "…" not in section.text  # the default 128k window has room for full descriptions
