"""Every file tool against the workspace's escape hatches and odd files (issue 7's bad inputs).

A symlink planted in the workspace — to a directory or to a single file outside it — must
not let any file tool read, list, search or write outside; ``..`` is refused by every tool;
missing paths and binary files get errors the model can act on.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from talaria import ToolError
from talaria.testing import load_plugin_module

T = {tool.name: tool for tool in load_plugin_module("files").TOOLS}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace holding a credential."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "creds").write_text("api_key = hunter2\n")
    return path


@pytest.fixture
def planted(workspace: Path, outside: Path) -> Path:
    """``dirlink`` → the outside directory, ``filelink`` → the outside credential."""
    os.symlink(outside, workspace / "dirlink")
    os.symlink(outside / "creds", workspace / "filelink")
    return workspace


ESCAPES = [
    ("read_file", {"path": "filelink"}),
    ("read_file", {"path": "dirlink/creds"}),
    ("write_file", {"path": "filelink", "content": "pwned"}),
    ("write_file", {"path": "dirlink/creds", "content": "pwned"}),
    ("write_file", {"path": "dirlink/new.txt", "content": "pwned"}),
    ("edit_file", {"path": "filelink", "old": "hunter2", "new": "pwned"}),
    ("list_dir", {"path": "dirlink"}),
    ("search_files", {"pattern": "hunter2", "path": "dirlink"}),
    ("search_files", {"pattern": "hunter2", "path": "filelink"}),
]


@pytest.mark.parametrize(("tool", "args"), ESCAPES, ids=[f"{t}:{a['path']}" for t, a in ESCAPES])
async def test_symlink_escapes_are_refused_by_every_tool(tool: str, args: dict, planted: Path, outside: Path, ctx) -> None:
    with pytest.raises(ToolError, match="outside the workspace .*through a symlink"):
        await T[tool].handler(args, ctx)
    assert (outside / "creds").read_text() == "api_key = hunter2\n"
    assert sorted(p.name for p in outside.iterdir()) == ["creds"]


async def test_a_workspace_wide_search_does_not_read_through_planted_symlinks(planted: Path, ctx) -> None:
    (planted / "notes.txt").write_text("hunter2 is the example password in the docs\n")
    os.symlink(planted / "notes.txt", planted / "notes-alias.txt")  # a link that stays inside is fine
    out = await T["search_files"].handler({"pattern": "hunter2"}, ctx)
    assert sorted(out.splitlines()) == ["notes-alias.txt:1: hunter2 is the example password in the docs",
                                        "notes.txt:1: hunter2 is the example password in the docs"]
    names = (await T["search_files"].handler({"glob": "*"}, ctx)).splitlines()
    assert "filelink" not in names and not any(n.startswith("dirlink") for n in names)


@pytest.mark.parametrize("tool", ["edit_file", "search_files"])
async def test_dotdot_escape_is_refused(tool: str, workspace: Path, outside: Path, ctx) -> None:
    args = {"path": "../outside/creds"} | ({"old": "hunter2", "new": "pwned"} if tool == "edit_file" else {"pattern": "hunter2"})
    with pytest.raises(ToolError, match="outside the workspace"):
        await T[tool].handler(args, ctx)
    assert (outside / "creds").read_text() == "api_key = hunter2\n"


async def test_missing_paths_say_how_to_find_the_right_one(workspace: Path, ctx) -> None:
    (workspace / "settings.toml").write_text("a = 1\n")
    with pytest.raises(ToolError, match="no such file.*list_dir"):
        await T["edit_file"].handler({"path": "setings.toml", "old": "a", "new": "b"}, ctx)
    with pytest.raises(ToolError, match="setings"):
        await T["search_files"].handler({"pattern": "a", "path": "setings.toml"}, ctx)
    assert not (workspace / "setings.toml").exists()


async def test_binary_files_are_never_returned_as_text(workspace: Path, ctx) -> None:
    (workspace / "blob.bin").write_bytes(b"needle\x00\x01\x02" * 100)
    (workspace / "text.txt").write_text("needle in text\n")
    out = await T["search_files"].handler({"pattern": "needle"}, ctx)
    assert out.splitlines() == ["text.txt:1: needle in text"]
    with pytest.raises(ToolError, match="binary"):
        await T["read_file"].handler({"path": "blob.bin"}, ctx)
