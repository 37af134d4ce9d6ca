"""search_files: regex over contents, glob over names, .gitignore honoured, capped."""

from __future__ import annotations

from pathlib import Path

import pytest

from talaria import ToolError

from talaria.testing import load_plugin_module

T = {tool.name: tool for tool in load_plugin_module("files").TOOLS}


async def call(tool, arguments, ctx):  # type: ignore[no-untyped-def]
    return await tool.handler(arguments, ctx)


@pytest.fixture
def tree(workspace: Path) -> Path:
    files = {
        "src/app.py": "import os\nTODO = 'fix me'\n",
        "src/util.py": "def helper():\n    return 'todo later'\n",
        "src/gen/out.py": "TODO generated\n",
        "docs/readme.md": "TODO: write docs\n",
        "build/artifact.py": "TODO in build\n",
        "debug.log": "TODO in log\n",
        "keep.log": "TODO kept\n",
        ".git/config": "TODO in git\n",
        "data.bin": "TODO\0binary",
    }
    for rel, text in files.items():
        path = workspace / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (workspace / ".gitignore").write_text("# comment\n/build/\n*.log\n!keep.log\n")
    (workspace / "src/.gitignore").write_text("gen/\n")
    return workspace


async def test_regex_search_skips_git_and_gitignored(tree: Path, ctx) -> None:
    out = await call(T["search_files"], {"pattern": "TODO"}, ctx)
    assert "src/app.py:2: TODO = 'fix me'" in out
    assert "docs/readme.md:1:" in out and "keep.log:1:" in out
    for hidden in ("build/", "debug.log", ".git/", "src/gen/", "data.bin"):
        assert hidden not in out


async def test_glob_lists_files_by_name(tree: Path, ctx) -> None:
    out = await call(T["search_files"], {"glob": "*.py"}, ctx)
    assert sorted(out.splitlines()) == ["src/app.py", "src/util.py"]
    nested = await call(T["search_files"], {"glob": "src/**/*.py"}, ctx)
    assert "src/app.py" in nested


async def test_pattern_and_glob_and_path_combine(tree: Path, ctx) -> None:
    out = await call(T["search_files"], {"pattern": "(?i)todo", "glob": "*.py", "path": "src"}, ctx)
    assert out.splitlines() == ["src/app.py:2: TODO = 'fix me'", "src/util.py:2: return 'todo later'"]


async def test_results_are_capped_with_a_note(workspace: Path, make_ctx) -> None:
    (workspace / "many.txt").write_text("hit\n" * 50)
    ctx = make_ctx(config={"tools": {"files": {"max_results": 10}}})
    out = await call(T["search_files"], {"pattern": "hit"}, ctx)
    assert len(out.splitlines()) == 11 and "40 more" in out


async def test_bad_inputs(tree: Path, ctx) -> None:
    with pytest.raises(ToolError, match="invalid regex"):
        await call(T["search_files"], {"pattern": "("}, ctx)
    with pytest.raises(ToolError, match="pattern"):
        await call(T["search_files"], {}, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(T["search_files"], {"pattern": "x", "path": "../.."}, ctx)
    assert "No matching lines" in await call(T["search_files"], {"pattern": "zzz-not-there"}, ctx)
