"""skills_list / skill_view (progressive disclosure) and the /skill-name activation text."""

from __future__ import annotations

from pathlib import Path

import pytest

import talaria


def _ctx(home: Path, workspace: Path) -> talaria.ToolContext:
    return talaria.ToolContext(session_id="s", session_key="k", workspace=workspace, home=home)


@pytest.fixture
def tools(skills_mod):
    registered: list[talaria.Tool] = []
    skills_mod.register_tools(registered.append)
    return {t.name: t for t in registered}


@pytest.fixture
def pdf_skill(home, make_skill):
    return make_skill(
        home / "skills",
        "pdf-forms",
        description="Fill PDF forms. Use for PDFs.",
        body="# PDF forms\n\nRead `forms.md` for field types, then run scripts/fill.py.",
        files={"forms.md": "Field types: text, checkbox.", "scripts/fill.py": "print('fill')\n"},
    )


def test_tools_are_registered_with_terse_schemas(tools):
    assert set(tools) == {"skills_list", "skill_view"}
    view = tools["skill_view"]
    assert view.parameters["required"] == ["name"]
    assert len(view.description) < 80 and len(tools["skills_list"].description) < 80


def test_skill_view_returns_body_then_a_referenced_file(tools, home, tmp_path, pdf_skill):
    ctx = _ctx(home, tmp_path)
    body = tools["skill_view"].handler({"name": "pdf-forms"}, ctx)
    assert "# PDF forms" in body and "Read `forms.md`" in body
    assert "description:" not in body and "---" not in body  # frontmatter stripped
    assert "forms.md" in body and "scripts/fill.py" in body  # files listed for the next step

    ref = tools["skill_view"].handler({"name": "pdf-forms", "file": "forms.md"}, ctx)
    assert "Field types: text, checkbox." in ref
    nested = tools["skill_view"].handler({"name": "pdf-forms", "file": "scripts/fill.py"}, ctx)
    assert "print('fill')" in nested


@pytest.mark.parametrize("escape", ["../../secret.txt", "/etc/passwd", "scripts/../../x"])
def test_skill_view_refuses_paths_outside_the_skill(tools, home, tmp_path, pdf_skill, escape):
    (home / "secret.txt").write_text("top secret")
    with pytest.raises(talaria.ToolError, match="outside the skill folder"):
        tools["skill_view"].handler({"name": "pdf-forms", "file": escape}, _ctx(home, tmp_path))


def test_skill_view_missing_file_lists_available_files(tools, home, tmp_path, pdf_skill):
    with pytest.raises(talaria.ToolError) as err:
        tools["skill_view"].handler({"name": "pdf-forms", "file": "nope.md"}, _ctx(home, tmp_path))
    assert "no file 'nope.md'" in str(err.value) and "forms.md, scripts/fill.py" in str(err.value)


def test_skill_view_unknown_skill_names_the_available_ones(tools, home, tmp_path, pdf_skill):
    with pytest.raises(talaria.ToolError, match="no skill named 'pdf'.*pdf-forms"):
        tools["skill_view"].handler({"name": "pdf"}, _ctx(home, tmp_path))


def test_skills_list_shows_every_skill_with_its_source(tools, home, tmp_path, pdf_skill):
    listing = tools["skills_list"].handler({}, _ctx(home, tmp_path))
    assert "pdf-forms [user]: Fill PDF forms. Use for PDFs." in listing
    assert "reviewing-git-diffs [bundled]" in listing


def test_activate_skill_message_carries_instructions_and_request(skills_mod, home, tmp_path, pdf_skill):
    text = skills_mod.activate_skill_message("/pdf-forms", "fill in tax.pdf", workspace=tmp_path)
    assert "'pdf-forms' skill" in text and "# PDF forms" in text
    assert text.rstrip().endswith("Request: fill in tax.pdf")
    with pytest.raises(talaria.UsageError, match="no skill named 'nope'"):
        skills_mod.activate_skill_message("nope", workspace=tmp_path)
