"""``[channels.cli]``: a misspelled option or a wrong value is reported, never silently used.

The REPL falls back to the default for what it cannot use; ``talaria doctor`` (and the REPL's
banner) name the option and say what to write instead.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from talaria.testing import load_plugin_module, make_kernel

_PKG = load_plugin_module("cli_channel").__name__
settings = importlib.import_module(_PKG + ".settings")
doctor = importlib.import_module(_PKG + ".doctor")


@pytest.mark.parametrize(("table", "expected"), [
    (None, []),
    ({}, []),
    ({"markdown": False, "code_theme": "dracula"}, []),
    ({"markdwn": False}, ["[channels.cli] has no option 'markdwn' (known: code_theme, markdown); it is ignored"]),
    ({"markdown": "no"}, ["[channels.cli] markdown must be true or false, not 'no'; the default is used"]),
    ({"markdown": 0}, ["[channels.cli] markdown must be true or false, not 0; the default is used"]),
    ({"code_theme": ""}, ['[channels.cli] code_theme must be a Pygments style name such as "monokai", '
                          "not ''; the default is used"]),
    ("plain", ["[channels.cli] must be a table (e.g. `[channels.cli]` then `markdown = false`); it is ignored"]),
], ids=["absent", "empty", "valid", "unknown-key", "string-bool", "int-bool", "empty-theme", "not-a-table"])
def test_settings_problems_name_the_option_and_the_fix(table: Any, expected: list[str]) -> None:
    config = {} if table is None else {"channels": {"cli": table}}
    assert settings.settings_problems(config) == expected


def test_doctor_reports_ignored_cli_options(tmp_path: Path) -> None:
    [fine] = doctor.settings_check(make_kernel(tmp_path / "a", config={"channels": {"cli": {"markdown": False}}}))
    assert fine.ok

    kernel = make_kernel(tmp_path / "b", config={"channels": {"cli": {"markdwn": False, "code_theme": 3}}})
    results = doctor.settings_check(kernel)
    assert [r.level for r in results] == ["warn", "warn"]  # the REPL still works: not a failure
    assert "'markdwn'" in results[0].detail and "code_theme must be" in results[1].detail
    assert all("markdown = true or false" in r.hint for r in results)


def test_the_doctor_check_is_registered(tmp_path: Path) -> None:
    kernel = make_kernel(tmp_path, bundled=("cli_channel",), config={})
    assert "channels.cli" in kernel.registries.doctor_checks.names()


async def test_the_repl_banner_warns_about_ignored_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from talaria import Runtime, TurnOptions
    from talaria.testing import ScriptedModel

    monkeypatch.setenv("TALARIA_HOME", str(tmp_path / "home"))
    repl_mod = importlib.import_module(_PKG + ".repl")
    kernel = make_kernel(tmp_path / "home", ScriptedModel(default="hi").plugin(),
                         config={"model": "scripted/test", "channels": {"cli": {"markdown": "off"}}},
                         workspace=tmp_path)
    repl = repl_mod.Repl(state=None)
    out: list[str] = []
    repl.say = out.append  # type: ignore[method-assign]
    async with Runtime(kernel, options=TurnOptions(channel="cli")) as runtime:
        repl.runtime = runtime
        repl._banner()
    assert out[0].startswith("talaria ")
    assert out[1:] == ["warning: [channels.cli] markdown must be true or false, not 'off'; the default is used"]
