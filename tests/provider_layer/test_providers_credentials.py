"""The credential pool: sources, key-host isolation, strategies, cool-downs, persistence."""

from __future__ import annotations

import json
import random
import stat

import pytest

from talaria import ConfigError, ErrorKind, ProviderError
from talaria.providers import CredentialPool, effective_profiles, resolve_model
from talaria.providers.auth_store import add_key, load_keys

ENV3 = {"OPENAI_API_KEY": "sk-a", "OPENAI_API_KEY_2": "sk-b", "OPENAI_API_KEY_3": "sk-c"}


def keys_of(pool, profile, n):
    return [pool.acquire(profile).key for _ in range(n)]


def test_env_key_and_numbered_siblings_form_the_pool_in_order(home, registry):
    env = {"OPENAI_API_KEY_10": "sk-j", **ENV3, "OPENAI_API_KEY_X": "ignored"}
    pool = CredentialPool(home, {}, env)
    entries = pool.entries(registry["openai"])
    assert [e.source for e in entries] == ["env:OPENAI_API_KEY", "env:OPENAI_API_KEY_2",
                                           "env:OPENAI_API_KEY_3", "env:OPENAI_API_KEY_10"]
    assert all(e.status == "ok" for e in entries)


def test_credential_ids_are_not_the_key_and_repr_hides_it(home, registry):
    pool = CredentialPool(home, {}, {"OPENAI_API_KEY": "sk-secret-value"})
    cred = pool.acquire(registry["openai"])
    assert cred.key == "sk-secret-value"
    assert "sk-secret" not in cred.id and "sk-secret" not in repr(cred)
    state = (home / "credential_state.json").read_text()
    assert "sk-secret" not in state and cred.id in state


def test_env_keys_are_never_sent_to_another_host(home, registry):
    env = {"OPENAI_API_KEY": "sk-openai"}
    pool = CredentialPool(home, {}, env)
    with pytest.raises(ProviderError) as info:  # same profile, request aimed elsewhere
        pool.acquire(registry["openai"], base_url="http://127.0.0.1:8080/v1")
    assert info.value.kind is ErrorKind.AUTH and "never sent here" in str(info.value)
    moved = effective_profiles(registry, {"providers": {"openai": {"base_url": "http://127.0.0.1:8080/v1"}}})
    with pytest.raises(ProviderError, match="talaria auth add openai"):
        pool.acquire(moved["openai"])


def test_config_defined_provider_gets_only_its_own_key_env(home, registry):
    env = {"OPENAI_API_KEY": "sk-openai", "LOCAL_API_KEY": "sk-local"}
    config = {"providers": {"local": {"base_url": "http://127.0.0.1:9/v1", "key_env": "LOCAL_API_KEY"},
                            "bare": {"base_url": "http://127.0.0.1:10/v1"}}}
    pool = CredentialPool(home, config, env)
    assert pool.acquire(resolve_model("local/m", registry, config).profile).key == "sk-local"
    keyless = pool.acquire(resolve_model("bare/m", registry, config).profile)
    assert keyless.key is None  # keyless: no key at all, certainly not OPENAI_API_KEY


def test_stored_keys_are_bound_to_the_host_they_were_added_for(home, registry):
    add_key(home, "openai", host="api.openai.com", key="sk-stored", label="work")
    pool = CredentialPool(home, {}, {})
    cred = pool.acquire(registry["openai"])
    assert (cred.key, cred.label) == ("sk-stored", "work")
    moved = effective_profiles(registry, {"providers": {"openai": {"base_url": "http://127.0.0.1:1/v1"}}})
    with pytest.raises(ProviderError):
        pool.acquire(moved["openai"])


def test_auth_file_is_private_and_holds_key_env_references(home, registry):
    add_key(home, "openai", host="api.openai.com", key_env="TEAM_OPENAI_KEY")
    mode = stat.S_IMODE((home / "auth.json").stat().st_mode)
    assert mode == 0o600
    assert json.loads((home / "auth.json").read_text())["credentials"][0]["key_env"] == "TEAM_OPENAI_KEY"
    pool = CredentialPool(home, {}, {"TEAM_OPENAI_KEY": "sk-team"})
    assert pool.acquire(registry["openai"]).key == "sk-team"
    assert "sk-" not in repr(load_keys(home))


def test_fill_first_sticks_to_the_first_ok_key(home, registry):
    pool = CredentialPool(home, {}, ENV3)
    assert keys_of(pool, registry["openai"], 3) == ["sk-a", "sk-a", "sk-a"]


def test_round_robin_cycles_and_per_provider_override_applies(home, registry):
    config = {"credentials": {"strategy": "fill_first", "strategies": {"openai": "round_robin"}}}
    pool = CredentialPool(home, config, ENV3)
    assert keys_of(pool, registry["openai"], 4) == ["sk-a", "sk-b", "sk-c", "sk-a"]


def test_least_used_balances_use_counts(home, registry):
    pool = CredentialPool(home, {"credentials": {"strategy": "least_used"}}, ENV3)
    got = keys_of(pool, registry["openai"], 6)
    assert sorted(got) == ["sk-a", "sk-a", "sk-b", "sk-b", "sk-c", "sk-c"]


def test_random_strategy_uses_the_injected_rng(home, registry):
    config = {"credentials": {"strategy": "random"}}
    a = keys_of(CredentialPool(home, config, ENV3, rng=random.Random(7)), registry["openai"], 8)
    b = keys_of(CredentialPool(home, config, ENV3, rng=random.Random(7)), registry["openai"], 8)
    assert a == b and len(set(a)) > 1


def test_unknown_strategy_is_a_config_error(home):
    with pytest.raises(ConfigError, match=r"credentials.strategies.openai: unknown strategy 'fastest'"):
        CredentialPool(home, {"credentials": {"strategies": {"openai": "fastest"}}}, {})


def test_rate_limit_exhausts_a_key_for_an_hour_then_it_recovers(home, registry, clock):
    pool = CredentialPool(home, {}, ENV3, clock=clock)
    first = pool.acquire(registry["openai"])
    assert pool.report_failure(first, ProviderError("rate_limit", "429")) == "exhausted"
    assert pool.acquire(registry["openai"]).key == "sk-b"
    clock.now += 3599
    assert pool.acquire(registry["openai"]).key == "sk-b"
    clock.now += 2
    assert pool.acquire(registry["openai"]).key == "sk-a"


def test_rate_limit_with_retry_after_cools_down_for_that_long(home, registry, clock):
    pool = CredentialPool(home, {}, {"OPENAI_API_KEY": "sk-a"}, clock=clock)
    cred = pool.acquire(registry["openai"])
    pool.report_failure(cred, ProviderError("rate_limit", "429", retry_after=20))
    assert pool.available(registry["openai"]) == 0
    clock.now += 21
    assert pool.available(registry["openai"]) == 1


def test_auth_failure_exhausts_for_five_minutes_then_repeated_failure_is_dead(home, registry, clock):
    pool = CredentialPool(home, {}, ENV3, clock=clock)
    cred = pool.acquire(registry["openai"])
    assert pool.report_failure(cred, ProviderError("auth", "401", status=401)) == "exhausted"
    clock.now += 301
    again = pool.acquire(registry["openai"])
    assert again.id == cred.id
    assert pool.report_failure(again, ProviderError("auth", "401", status=401)) == "dead"
    clock.now += 10_000_000
    assert pool.acquire(registry["openai"]).key == "sk-b"  # dead never comes back by itself
    assert {e.credential.id: e.status for e in pool.entries(registry["openai"])}[cred.id] == "dead"


def test_a_success_between_auth_failures_keeps_the_key_alive(home, registry, clock):
    pool = CredentialPool(home, {"credentials": {"auth_cooldown": 10}}, {"OPENAI_API_KEY": "sk-a"}, clock=clock)
    for _ in range(3):
        cred = pool.acquire(registry["openai"])
        pool.report_success(cred)
        assert pool.report_failure(cred, ProviderError("auth", "401")) == "exhausted"
        clock.now += 11


def test_other_error_kinds_do_not_mark_keys(home, registry):
    pool = CredentialPool(home, {}, ENV3)
    cred = pool.acquire(registry["openai"])
    for kind in ("server", "timeout", "overloaded", "bad_request"):
        assert pool.report_failure(cred, ProviderError(kind, "x")) == "ok"
    assert pool.available(registry["openai"]) == 3


def test_all_keys_cooling_down_raises_rate_limit_naming_ids_and_fix(home, registry, clock):
    pool = CredentialPool(home, {}, {"OPENAI_API_KEY": "sk-a"}, clock=clock)
    cred = pool.acquire(registry["openai"])
    pool.report_failure(cred, ProviderError("rate_limit", "429", status=429))
    with pytest.raises(ProviderError) as info:
        pool.acquire(registry["openai"])
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert cred.id in str(info.value) and "talaria auth add openai" in str(info.value)
    assert pool.acquire(registry["openai"], include_exhausted=True).id == cred.id


def test_state_persists_across_pool_instances(home, registry, clock):
    first = CredentialPool(home, {"credentials": {"strategy": "round_robin"}}, ENV3, clock=clock)
    cred = first.acquire(registry["openai"])
    first.report_failure(cred, ProviderError("rate_limit", "429"))
    second = CredentialPool(home, {"credentials": {"strategy": "round_robin"}}, ENV3, clock=clock)
    statuses = {e.credential.key: (e.status, e.uses) for e in second.entries(registry["openai"])}
    assert statuses["sk-a"] == ("exhausted", 1)
    assert second.acquire(registry["openai"]).key == "sk-b"  # cursor and status both carried over
    assert first.acquire(registry["openai"]).key == "sk-c"


def test_corrupt_state_file_is_treated_as_empty(home, registry):
    (home / "credential_state.json").write_text("{not json")
    pool = CredentialPool(home, {}, ENV3)
    assert pool.acquire(registry["openai"]).key == "sk-a"
    assert json.loads((home / "credential_state.json").read_text())["version"] == 1


def test_reset_clears_marks(home, registry, clock):
    pool = CredentialPool(home, {}, {"OPENAI_API_KEY": "sk-a"}, clock=clock)
    cred = pool.acquire(registry["openai"])
    pool.report_failure(cred, ProviderError("auth", "401"))
    pool.report_failure(cred, ProviderError("auth", "401"))
    assert pool.available(registry["openai"]) == 0
    assert pool.reset("openai") == 1
    assert pool.available(registry["openai"]) == 1


def test_concurrent_read_modify_write_loses_no_update(home, registry):
    import threading

    def worker() -> None:
        pool = CredentialPool(home, {"credentials": {"strategy": "least_used"}}, ENV3)
        for _ in range(40):
            pool.acquire(registry["openai"])

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    uses = [e.uses for e in CredentialPool(home, {}, ENV3).entries(registry["openai"])]
    assert sum(uses) == 160 and max(uses) - min(uses) <= 1
