"""Plugin discovery, override order, blocking and error isolation (in-process)."""

from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from talaria import ProviderProfile, Tool, hookimpl
from talaria.kernel import load_kernel
from talaria.loader._folder import folder_module_name


def user_plugin(home: Path, name: str, body: str, manifest: str | None = None) -> Path:
    folder = home / "plugins" / name
    folder.mkdir(parents=True)
    (folder / "plugin.toml").write_text(manifest if manifest is not None else f'name = "{name}"\nversion = "9.9"\n')
    (folder / "__init__.py").write_text(textwrap.dedent(body))
    return folder


PROVIDER_BODY = """
from talaria import ProviderProfile, hookimpl

@hookimpl
def register_providers(register):
    register(ProviderProfile(name="{provider}", base_url="{url}"))
"""


def kernel(home: Path, **kw):
    kw.setdefault("config", {})
    kw.setdefault("entry_points", [])
    kw.setdefault("env", {"TALARIA_PLUGINS": ",".join(kw.pop("allow", ()))} if "allow" in kw else {})
    return load_kernel(home=home, **kw)


def test_user_plugin_registers_a_provider(home: Path) -> None:
    user_plugin(home, "acme_ok", PROVIDER_BODY.format(provider="acme", url="http://acme"))
    k = kernel(home)
    record = k.plugins.records["acme_ok"]
    assert record.tier == "user" and record.status == "loaded" and record.version == "9.9"
    assert k.registries.providers.get("acme").base_url == "http://acme"
    assert "provider:acme" in record.registered


def test_user_folder_overrides_installed_plugin_by_name(home: Path, tmp_path: Path) -> None:
    pkg = tmp_path / "site" / "acme_installed_mod"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(PROVIDER_BODY.format(provider="acme2", url="http://installed")))
    sys.path.insert(0, str(tmp_path / "site"))
    try:
        ep = EntryPoint(name="acme2", value="acme_installed_mod", group="talaria")
        user_plugin(home, "acme2", PROVIDER_BODY.format(provider="acme2", url="http://user"))
        k = kernel(home, entry_points=[ep])
    finally:
        sys.path.remove(str(tmp_path / "site"))
    record = k.plugins.records["acme2"]
    assert record.tier == "user"
    assert any(o.startswith("installed:") for o in record.overrides)
    assert k.registries.providers.get("acme2").base_url == "http://user"
    assert "acme_installed_mod" not in sys.modules  # the overridden plugin was never imported


def test_named_collisions_are_settled_by_tier_and_reported(home: Path) -> None:
    user_plugin(home, "prov_user", PROVIDER_BODY.format(provider="shared", url="http://user"))

    class Explicit:
        @hookimpl
        def register_providers(self, register):
            register(ProviderProfile(name="shared", base_url="http://explicit"))

    k = kernel(home, explicit=[("explicit_prov", Explicit())])
    assert k.registries.providers.get("shared").base_url == "http://explicit"
    assert k.registries.providers.registration("shared").plugin == "explicit_prov"
    assert any("shared (from prov_user)" in s for s in k.plugins.records["explicit_prov"].shadows)


@pytest.mark.parametrize(
    ("body", "phase", "needle"),
    [
        ("import no_such_module_xyz\n", "import", "No module named 'no_such_module_xyz'"),
        ("from talaria import hookimpl\n@hookimpl\ndef register_provider(register):\n    pass\n", "validate", "register_provider"),
        ("from talaria import hookimpl\n@hookimpl\ndef register_tools(registrar):\n    pass\n", "validate", "registrar"),
        ("from talaria import hookimpl\n@hookimpl\nasync def pre_tool_call(call, ctx):\n    return None\n", "validate", "must be synchronous"),
        ("from talaria import hookimpl\n@hookimpl\ndef register_tools(register):\n    register('not a tool')\n", "register", "register_tools accepts"),
    ],
    ids=["import", "misspelled-hook", "bad-signature", "async-sync-hook", "bad-registration"],
)
def test_a_broken_plugin_is_one_error_and_the_rest_load(home: Path, body: str, phase: str, needle: str) -> None:
    name = f"broken_{phase}_{abs(hash(body)) % 10_000}"
    user_plugin(home, name, body)
    user_plugin(home, f"fine_{name}", PROVIDER_BODY.format(provider=f"p_{name}", url="http://ok"))
    k = kernel(home)
    errors = [e for e in k.plugins.errors if e.plugin == name]
    assert len(errors) == 1, k.plugins.errors
    assert errors[0].phase == phase and needle in errors[0].message
    assert str(home / "plugins" / name) in errors[0].line()
    assert k.plugins.records[f"fine_{name}"].status == "loaded"
    assert f"p_{name}" in k.registries.providers


def test_bad_manifest_is_reported(home: Path) -> None:
    user_plugin(home, "badmanifest", "", manifest='name = "badmanifest"\nversoin = "1"\n')
    k = kernel(home)
    (error,) = [e for e in k.plugins.errors if e.plugin == "badmanifest"]
    assert error.phase == "manifest" and "versoin" in error.message


def test_blocked_and_not_allowed_plugins_are_never_imported(home: Path) -> None:
    user_plugin(home, "sentinel_blocked", PROVIDER_BODY.format(provider="sb", url="x"))
    user_plugin(home, "sentinel_cfg", PROVIDER_BODY.format(provider="sc", url="x"))
    user_plugin(home, "sentinel_allowed", PROVIDER_BODY.format(provider="sa", url="x"))
    user_plugin(home, "sentinel_other", PROVIDER_BODY.format(provider="so", url="x"))
    k = kernel(
        home,
        blocked=["sentinel_blocked"],
        config={"plugins": {"disabled": ["sentinel_cfg"]}},
        allow=["sentinel_allowed", "sentinel_blocked"],
    )
    status = {n: r.status for n, r in k.plugins.records.items()}
    assert status["sentinel_blocked"] == "blocked"
    assert status["sentinel_cfg"] == "blocked"
    assert status["sentinel_other"] == "not-allowed"
    assert status["sentinel_allowed"] == "loaded"
    for name in ("sentinel_blocked", "sentinel_cfg", "sentinel_other"):
        assert folder_module_name("user", name) not in sys.modules


def test_empty_allow_list_loads_only_essential_plugins(home: Path) -> None:
    user_plugin(home, "not_essential_x", PROVIDER_BODY.format(provider="nx", url="x"))
    k = kernel(home, env={"TALARIA_PLUGINS": ""})
    loaded = {n for n, r in k.plugins.records.items() if r.status == "loaded"}
    assert all(k.plugins.records[n].essential for n in loaded)
    assert k.plugins.records["not_essential_x"].status == "not-allowed"


def test_plugins_shipped_disabled_need_opt_in(home: Path) -> None:
    user_plugin(home, "optin", PROVIDER_BODY.format(provider="oi", url="x"), manifest='name = "optin"\nenabled = false\n')
    assert kernel(home).plugins.records["optin"].status == "disabled"
    k = kernel(home, config={"plugins": {"enabled": ["optin"]}})
    assert k.plugins.records["optin"].status == "loaded"


def test_failing_register_hook_is_attributed_and_rolled_back(home: Path) -> None:
    class Half:
        @hookimpl
        def register_tools(self, register):
            register(Tool(name="half_tool", description="d", parameters={"type": "object"}, handler=lambda a, c: "x"))
            raise RuntimeError("boom after one registration")

    k = kernel(home, explicit=[("half", Half())])
    assert "half_tool" not in k.registries.tools
    (error,) = k.plugins.records["half"].errors
    assert error.phase == "register" and "boom" in error.message


def test_higher_tier_wins_firstresult_hooks(home: Path) -> None:
    user_plugin(home, "policy_user", """
from talaria import Verdict, hookimpl

@hookimpl
def pre_tool_call(call, ctx):
    return Verdict.deny("user tier says no")
""")

    class ExplicitPolicy:
        @hookimpl
        def pre_tool_call(self, call, ctx):
            return Verdict.allow("explicit tier says yes")

    from talaria import ToolCall, ToolContext, Verdict

    k = kernel(home, explicit=[("policy_explicit", ExplicitPolicy())])
    ctx = ToolContext(session_id="s", session_key="k", workspace=home, home=home)
    verdict, plugin = k.hooks.pre_tool_call(ToolCall(id="1", name="t"), ctx)
    assert verdict.action == "allow" and plugin == "policy_explicit"
