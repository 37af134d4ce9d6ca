"""The public API and the hook contract, as plugin authors see them."""

from __future__ import annotations

import inspect
import re

import talaria
from talaria import hookspecs


def _specs() -> list[tuple[str, object]]:
    return [
        (name, fn)
        for name, fn in vars(hookspecs).items()
        if callable(fn) and hasattr(fn, "talaria_spec")
    ]


def test_every_public_name_is_importable_and_listed() -> None:
    for name in talaria.__all__:
        assert hasattr(talaria, name), name
    assert "hookimpl" in talaria.__all__ and "ProviderProfile" in talaria.__all__


def test_design_hooks_all_have_specs() -> None:
    names = {name for name, _ in _specs()}
    design = {
        "register_providers", "register_api_modes", "register_tools", "register_context_engines",
        "register_memory_providers", "register_channels", "register_commands", "register_skill_dirs",
        "prompt_sections", "on_session_start", "on_session_end", "pre_llm_call", "post_llm_call",
        "pre_tool_call", "post_tool_call", "on_turn_end",
    }
    assert design <= names


def test_every_spec_docstring_follows_the_template() -> None:
    for name, fn in _specs():
        doc = inspect.getdoc(fn) or ""
        assert doc, f"{name} has no docstring"
        lines = doc.splitlines()
        assert lines[0].endswith("."), f"{name}: summary line must be a sentence"
        assert "Called" in doc, f"{name}: must say when it is called"
        for param in inspect.signature(fn).parameters:
            assert f":param {param}:" in doc, f"{name}: missing ':param {param}:'"
        assert ":returns:" in doc or "Return value ignored." in doc, f"{name}: must state its return contract"
        assert re.search(r"Must be synchronous\.|May be ``async def``", doc), f"{name}: must state whether it may be async"
        if name in hookspecs.SYNC_ONLY:
            assert "Must be synchronous." in doc, f"{name} is sync-only but its docstring does not say so"


def test_firstresult_hooks_are_the_decision_hooks() -> None:
    firsts = {name for name, fn in _specs() if fn.talaria_spec.get("firstresult")}
    assert firsts == {"pre_tool_call"}


def test_value_types_are_frozen() -> None:
    profile = talaria.ProviderProfile(name="x")
    try:
        profile.name = "y"  # type: ignore[misc]
    except Exception as exc:  # dataclasses.FrozenInstanceError
        assert "cannot assign" in str(exc)
    else:
        raise AssertionError("ProviderProfile must be frozen")


def test_credential_repr_never_shows_the_key() -> None:
    cred = talaria.Credential(provider="openai", key="sk-secret-value", id="env:OPENAI_API_KEY")
    assert "sk-secret" not in repr(cred) and "sk-secret" not in str(cred)
