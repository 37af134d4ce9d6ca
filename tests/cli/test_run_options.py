"""``talaria run`` options and exit codes, in-process against a scripted model.

The subprocess tests (``test_run.py``) prove the wire and the cold start; these cover each
option and each end-reason class quickly through the command's own ``run_once``.
"""

from __future__ import annotations

import importlib
import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from talaria import ConfigError, ErrorKind, ModelResponse, ProviderError
from talaria.testing import ScriptedModel, load_plugin_module, make_kernel, reply, tool_call

oneshot = importlib.import_module(load_plugin_module("cli_channel").__name__ + ".oneshot")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Run:
    def __init__(self, home: Path, workspace: Path, model: ScriptedModel, config: dict[str, Any]) -> None:
        self.model = model
        self.kernel = make_kernel(home, model.plugin(), bundled=("files", "terminal", "approval"),
                                  config={"model": "scripted/test", **config}, workspace=workspace)
        self.out, self.err = io.StringIO(), io.StringIO()

    async def __call__(self, prompt: str, *, err: io.StringIO | None = None, **options: Any) -> int:
        self.out, self.err = io.StringIO(), err or io.StringIO()
        state = SimpleNamespace(load_kernel=lambda: self.kernel, config_error=None)
        return await oneshot.run_once(state, prompt, out=self.out, err=self.err, **options)

    def tools_offered(self, index: int = -1) -> set[str]:
        return {spec.name for spec in self.model.requests[index].tools}


@pytest.fixture()
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("TALARIA_HOME", str(home))

    def make(*script: Any, config: dict[str, Any] | None = None, default: str | None = None) -> _Run:
        return _Run(home, workspace, ScriptedModel(*script, default=default), config or {})

    make.workspace = workspace  # type: ignore[attr-defined]
    return make


async def test_progress_goes_to_a_terminal_stderr_never_to_stdout(run) -> None:  # type: ignore[no-untyped-def]
    (run.workspace / "notes.txt").write_text("alpha\n", encoding="utf-8")
    r = run(reply("", tool_call("read_file", {"path": "notes.txt"})), reply("It says alpha."))
    code = await r("read notes.txt", err=_Tty())
    assert code == 0
    assert r.out.getvalue() == "It says alpha.\n"
    lines = r.err.getvalue().splitlines()
    assert lines[0] == "⚙ read_file notes.txt …"
    assert lines[1].startswith("⚙ read_file notes.txt ") and lines[1].endswith(" ok")


@pytest.mark.parametrize(("script", "config", "reason", "code"), [
    ([reply("done")], {}, "completed", 0),
    ([ProviderError(ErrorKind.AUTH, "bad key", provider="scripted")], {}, "provider_error", 1),
    ([reply("", tool_call("todo_nope", {}))] * 3, {"turn": {"max_iterations": 2}}, "budget_exhausted", 3),
    ([ModelResponse(text="", finish_reason="stop")], {}, "empty_response", 7),
], ids=["completed", "provider_error", "budget_exhausted", "empty_response"])
async def test_each_end_reason_class_has_its_exit_code(run, script: list[Any], config: dict[str, Any],  # type: ignore[no-untyped-def]
                                                      reason: str, code: int) -> None:
    r = run(*script, config=config)
    assert await r("go", as_json=True) == code
    result = json.loads(r.out.getvalue().splitlines()[-1])
    assert result["end_reason"] == reason and result["exit_code"] == code
    if code:
        assert f"turn ended {reason}" in r.err.getvalue()


async def test_model_option_picks_the_model_and_a_bad_one_is_refused(run) -> None:  # type: ignore[no-untyped-def]
    r = run(default="ok")
    assert await r("hi", model="scripted/backup", as_json=True) == 0
    assert r.model.requests[-1].model == "backup"
    assert json.loads(r.out.getvalue().splitlines()[-1])["model"] == "backup"
    with pytest.raises(ConfigError):
        await r("hi", model="nosuch/model")
    assert len(r.model.requests) == 1  # refused before any request


async def test_toolsets_option_limits_the_offered_tools(run) -> None:  # type: ignore[no-untyped-def]
    r = run(default="ok")
    assert await r("hi") == 0
    assert {"read_file", "terminal"} <= r.tools_offered()
    assert await r("hi", toolsets=["files"]) == 0
    assert "read_file" in r.tools_offered() and "terminal" not in r.tools_offered()


async def test_yolo_runs_what_would_be_denied_without_an_approver(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    victim = tmp_path / "outside-victim"  # outside the workspace: needs approval
    victim.mkdir()
    delete = tool_call("terminal", {"command": f"rm -rf {victim}"})
    r = run(reply("", delete), reply("refused"), reply("", delete), reply("deleted"))
    assert await r("delete it") == 0
    assert victim.exists()
    denied = [m for m in r.model.requests[-1].messages if m.role == "tool"]
    assert denied and "Denied" in denied[-1].content

    assert await r("delete it", yolo=True) == 0
    assert not victim.exists()
