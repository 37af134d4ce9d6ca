"""read_file / write_file / edit_file / list_dir: behaviour and bad inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from talaria import ToolError

from talaria.testing import load_plugin_module

T = {tool.name: tool for tool in load_plugin_module("files").TOOLS}


async def call(tool, arguments, ctx):  # type: ignore[no-untyped-def]
    return await tool.handler(arguments, ctx)


async def test_read_file_numbers_lines_and_pages(workspace: Path, ctx) -> None:
    (workspace / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await call(T["read_file"], {"path": "a.txt", "offset": 3, "limit": 2}, ctx)
    assert out.splitlines()[:2] == ["3\tline 3", "4\tline 4"]
    assert "offset=5" in out and "of 10" in out
    whole = await call(T["read_file"], {"path": "a.txt"}, ctx)
    assert whole.splitlines()[-1] == "10\tline 10"


async def test_read_file_caps_lines_by_config(workspace: Path, make_ctx) -> None:
    (workspace / "big.txt").write_text("x\n" * 5000)
    ctx = make_ctx(config={"tools": {"files": {"max_lines": 100}}})
    out = await call(T["read_file"], {"path": "big.txt"}, ctx)
    assert out.count("\n") == 100  # 100 rows + the continuation note
    assert "offset=101" in out


async def test_read_missing_file_suggests_how_to_find_it(workspace: Path, ctx) -> None:
    (workspace / "config.toml").write_text("x")
    with pytest.raises(ToolError) as err:
        await call(T["read_file"], {"path": "confg.toml"}, ctx)
    message = str(err.value)
    assert "no such file" in message and "list_dir" in message and "config.toml" in message


async def test_read_binary_file_is_refused(workspace: Path, ctx) -> None:
    (workspace / "img.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))
    with pytest.raises(ToolError, match="binary"):
        await call(T["read_file"], {"path": "img.bin"}, ctx)


async def test_read_directory_points_to_list_dir(workspace: Path, ctx) -> None:
    (workspace / "src").mkdir()
    with pytest.raises(ToolError, match="list_dir"):
        await call(T["read_file"], {"path": "src"}, ctx)


@pytest.mark.parametrize("tool", ["read_file", "write_file", "list_dir"])
async def test_dotdot_escape_is_refused(tool: str, workspace: Path, ctx, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    args = {"path": "../secret.txt"} | ({"content": "pwned"} if tool == "write_file" else {})
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(T[tool], args, ctx)
    assert secret.read_text() == "top secret"


async def test_absolute_path_outside_is_refused(ctx) -> None:
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(T["read_file"], {"path": "/etc/hostname"}, ctx)


async def test_symlink_escape_is_refused(workspace: Path, ctx, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "creds").write_text("key")
    os.symlink(outside, workspace / "link")
    with pytest.raises(ToolError, match="symlink"):
        await call(T["read_file"], {"path": "link/creds"}, ctx)
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(T["edit_file"], {"path": "link/creds", "old": "key", "new": "x"}, ctx)
    assert (outside / "creds").read_text() == "key"


async def test_symlink_inside_workspace_is_fine(workspace: Path, ctx) -> None:
    (workspace / "real.txt").write_text("hello\n")
    os.symlink(workspace / "real.txt", workspace / "alias.txt")
    assert "hello" in await call(T["read_file"], {"path": "alias.txt"}, ctx)


async def test_confine_false_allows_outside(make_ctx, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("out there\n")
    ctx = make_ctx(config={"tools": {"files": {"confine": False}}})
    assert "out there" in await call(T["read_file"], {"path": str(target)}, ctx)


async def test_write_file_creates_parents_and_reports_bytes(workspace: Path, ctx) -> None:
    out = await call(T["write_file"], {"path": "deep/er/new.txt", "content": "héllo"}, ctx)
    assert (workspace / "deep/er/new.txt").read_text() == "héllo"
    assert "6 bytes" in out and "Created" in out
    out = await call(T["write_file"], {"path": "deep/er/new.txt", "content": "x"}, ctx)
    assert "Overwrote" in out and "1 bytes" in out


async def test_write_file_keeps_mode_of_existing_file(workspace: Path, ctx) -> None:
    script = workspace / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    await call(T["write_file"], {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}, ctx)
    assert script.stat().st_mode & 0o777 == 0o755


async def test_edit_file_replaces_unique_match(workspace: Path, ctx) -> None:
    (workspace / "m.py").write_text("def a():\n    return 1\n")
    out = await call(T["edit_file"], {"path": "m.py", "old": "return 1", "new": "return 2"}, ctx)
    assert (workspace / "m.py").read_text() == "def a():\n    return 2\n"
    assert "line 2" in out


async def test_edit_file_zero_matches_shows_closest_lines(workspace: Path, ctx) -> None:
    (workspace / "m.py").write_text("alpha = 1\nbeta_value = compute(2)\ngamma = 3\n")
    with pytest.raises(ToolError) as err:
        await call(T["edit_file"], {"path": "m.py", "old": "beta_valu = compute(2)", "new": "x"}, ctx)
    message = str(err.value)
    assert "not found" in message and "2\tbeta_value = compute(2)" in message
    assert (workspace / "m.py").read_text().startswith("alpha")


async def test_edit_file_whitespace_only_mismatch_is_explained(workspace: Path, ctx) -> None:
    (workspace / "m.py").write_text("if x:\n    y = 1\n")
    with pytest.raises(ToolError, match="whitespace"):
        await call(T["edit_file"], {"path": "m.py", "old": "if x:\n  y = 1", "new": "z"}, ctx)


async def test_edit_file_many_matches_lists_lines(workspace: Path, ctx) -> None:
    (workspace / "m.txt").write_text("foo\nbar\nfoo\nfoo\n")
    with pytest.raises(ToolError) as err:
        await call(T["edit_file"], {"path": "m.txt", "old": "foo", "new": "baz"}, ctx)
    assert "3 times" in str(err.value) and "1, 3, 4" in str(err.value)
    out = await call(T["edit_file"], {"path": "m.txt", "old": "foo", "new": "baz", "replace_all": True}, ctx)
    assert "3 occurrences" in out
    assert (workspace / "m.txt").read_text() == "baz\nbar\nbaz\nbaz\n"


async def test_edit_file_handles_crlf_files(workspace: Path, ctx) -> None:
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    await call(T["edit_file"], {"path": "w.txt", "old": "one\ntwo", "new": "1\n2"}, ctx)
    assert (workspace / "w.txt").read_bytes() == b"1\r\n2\r\n"


async def test_edit_binary_file_is_refused(workspace: Path, ctx) -> None:
    (workspace / "b.bin").write_bytes(b"\0\1\2abc")
    with pytest.raises(ToolError, match="binary"):
        await call(T["edit_file"], {"path": "b.bin", "old": "abc", "new": "x"}, ctx)


async def test_list_dir_shows_types_sizes_and_caps(workspace: Path, make_ctx) -> None:
    (workspace / "sub").mkdir()
    (workspace / "f.txt").write_text("x" * 2048)
    for i in range(10):
        (workspace / f"n{i}").write_text("")
    ctx = make_ctx(config={"tools": {"files": {"max_entries": 5}}})
    out = await call(T["list_dir"], {}, ctx)
    lines = out.splitlines()
    assert lines[0].startswith("d") and lines[0].endswith("sub/")
    assert "7 more entries" in lines[-1]  # 12 entries, 5 shown
    full = await call(T["list_dir"], {"path": "."}, make_ctx())
    assert any(line.startswith("f") and "2.0K" in line and "f.txt" in line for line in full.splitlines())


async def test_list_missing_dir_is_an_error(ctx) -> None:
    with pytest.raises(ToolError, match="no such directory"):
        await call(T["list_dir"], {"path": "nope"}, ctx)
