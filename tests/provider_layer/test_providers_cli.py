"""`talaria providers list`, `models list`, `auth add|list|remove|reset` — never printing a key."""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from talaria.providers.cli import add_provider_commands


@dataclass
class Ctx:
    home: Path
    config: dict[str, Any] = field(default_factory=dict)
    workspace: Path = Path(".")


@pytest.fixture
def cli(registry):
    root = click.Group("talaria")
    add_provider_commands(root, lambda: registry, lambda: {"openai": "bundled (openai)"})
    return root


def invoke(cli, home, *args, config=None, env=None, input=None):
    result = CliRunner().invoke(cli, list(args), obj=Ctx(home, config or {}), env=env or {}, input=input)
    return result


def test_providers_list_shows_origin_mode_url_and_key_presence(cli, home):
    config = {"providers": {"local": {"base_url": "http://127.0.0.1:11434/v1"}}}
    r = invoke(cli, home, "providers", "list", config=config, env={"OPENAI_API_KEY": "sk-visible-no"})
    assert r.exit_code == 0, r.output
    lines = {line.split()[0]: line for line in r.output.splitlines()[1:]}
    assert "bundled (openai)" in lines["openai"] and "responses" in lines["openai"]
    assert "yes (1: OPENAI_API_KEY)" in lines["openai"]
    assert "no (set ANTHROPIC_API_KEY)" in lines["anthropic"]
    assert "config" in lines["local"] and "not needed" in lines["local"]
    assert "sk-visible-no" not in r.output


def test_providers_list_json(cli, home):
    r = invoke(cli, home, "providers", "list", "--json")
    rows = {row["name"]: row for row in json.loads(r.output)}
    assert rows["ollama"]["key_present"] is True and rows["openai"]["key_present"] is False
    assert rows["openai"]["base_url"] == "https://api.openai.com/v1"


def test_models_list_for_one_provider_and_unknown_provider(cli, home):
    r = invoke(cli, home, "models", "list", "anthropic")
    assert r.exit_code == 0 and "anthropic/claude-sonnet-4-5" in r.output and "200k" in r.output
    assert "$3 / $15" in r.output and "openai/" not in r.output
    r = invoke(cli, home, "models", "list", "nope")
    assert r.exit_code == 2 and "unknown provider 'nope'" in r.output and "openai" in r.output


def test_auth_add_from_stdin_list_and_remove(cli, home):
    r = invoke(cli, home, "auth", "add", "openai", "--label", "work", input="sk-secret-123\n")
    assert r.exit_code == 0, r.output
    assert "sk-secret" not in r.output and "api.openai.com only" in r.output
    assert stat.S_IMODE((home / "auth.json").stat().st_mode) == 0o600
    listing = invoke(cli, home, "auth", "list", "--json", env={"OPENAI_API_KEY_2": "sk-env-456"})
    rows = json.loads(listing.output)
    assert {(row["source"], row["label"], row["status"]) for row in rows} == {
        ("env:OPENAI_API_KEY_2", "", "ok"), ("stored", "work", "ok")}
    assert "sk-" not in listing.output
    stored_id = next(row["id"] for row in rows if row["source"] == "stored")
    env_id = next(row["id"] for row in rows if row["source"] != "stored")
    refused = invoke(cli, home, "auth", "remove", "openai", env_id, env={"OPENAI_API_KEY_2": "sk-env-456"})
    assert refused.exit_code == 1 and "unset that variable" in refused.output
    assert invoke(cli, home, "auth", "remove", "openai", stored_id).exit_code == 0
    assert json.loads(invoke(cli, home, "auth", "list", "--json").output) == []


def test_auth_add_key_env_reference_and_duplicate(cli, home):
    r = invoke(cli, home, "auth", "add", "claude", "--key-env", "TEAM_KEY")
    assert r.exit_code == 0 and "$TEAM_KEY for anthropic" in r.output
    again = invoke(cli, home, "auth", "add", "anthropic", "--key-env", "TEAM_KEY")
    assert "already stored" in again.output
    r = invoke(cli, home, "auth", "list", "anthropic", env={"TEAM_KEY": "sk-team"})
    assert "stored:key_env:TEAM_KEY" in r.output and "sk-team" not in r.output


def test_auth_add_rejects_empty_key_and_conflicting_options(cli, home):
    assert invoke(cli, home, "auth", "add", "openai", input="\n").exit_code == 2
    assert invoke(cli, home, "auth", "add", "openai", "--key", "--key-env", "X").exit_code == 2
    assert not (home / "auth.json").exists()


def test_auth_reset_clears_a_dead_key(cli, home, registry):
    from talaria import ProviderError
    from talaria.providers import CredentialPool

    pool = CredentialPool(home, {}, {"OPENAI_API_KEY": "sk-a"})
    cred = pool.acquire(registry["openai"])
    pool.report_failure(cred, ProviderError("auth", "401"))
    pool.report_failure(cred, ProviderError("auth", "401"))
    assert "dead" in invoke(cli, home, "auth", "list", env={"OPENAI_API_KEY": "sk-a"}).output
    assert invoke(cli, home, "auth", "reset", "openai").exit_code == 0
    assert "dead" not in invoke(cli, home, "auth", "list", env={"OPENAI_API_KEY": "sk-a"}).output


def test_bad_config_is_reported_not_a_traceback(cli, home):
    r = invoke(cli, home, "providers", "list", config={"providers": {"x": {"api_mode": "chat_completions"}}})
    assert r.exit_code == 1 and "providers.x.base_url: required" in r.output


def test_commands_join_existing_groups(registry):
    root = click.Group("talaria")
    existing = click.Group("auth")
    root.add_command(existing)
    add_provider_commands(root, lambda: registry)
    assert root.commands["auth"] is existing and "add" in existing.commands
