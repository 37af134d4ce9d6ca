"""The credential pool: several keys per provider, their health, and which one to use next.

Sources of a provider's keys, in pool order:

1. its profile's ``key_env`` variables, each followed by its numbered siblings
   (``OPENAI_API_KEY``, ``OPENAI_API_KEY_2``, …) — only when the request goes to the host
   the profile points at;
2. keys stored with ``talaria auth add`` — only when the request goes to the host they
   were added for.

Status per key: ``ok``; ``exhausted`` until a time (after a 401: ``auth_cooldown``, 300 s;
after a 429: the server's ``retry-after`` or ``rate_limit_cooldown``, 3600 s); ``dead``
after ``dead_after`` (2) auth failures in a row with no success between. Status, use counts
and the round-robin cursor live in ``$TALARIA_HOME/credential_state.json``, keyed by the
credential's non-secret id, and are shared by every process (read-modify-write under a
file lock). Keys themselves are never written there, nor logged.

Config::

    [credentials]
    strategy = "fill_first"        # fill_first | round_robin | random | least_used
    auth_cooldown = 300
    rate_limit_cooldown = 3600
    dead_after = 2
    [credentials.strategies]
    openrouter = "round_robin"     # per-provider override
"""

from __future__ import annotations

import random as _random
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from talaria import Credential, ErrorKind, ProviderError, ProviderProfile

from .._values import value_type
from ._files import locked, read_json, write_json
from .auth_store import credential_id, load_keys
from .pool_settings import STRATEGIES, PoolSettings
from .profiles import host_of

__all__ = ["STRATEGIES", "CredentialPool", "PoolEntry", "PoolSettings"]

STATE_FILE = "credential_state.json"
KEYLESS_ID = "keyless"


@value_type
class PoolEntry:
    """One key of a provider as the pool sees it now (for ``auth list``; no key inside)."""

    credential: Credential
    source: str  # "env:OPENAI_API_KEY_2", "stored", "stored:key_env:NAME"
    status: str  # ok | exhausted | dead | missing
    until: float | None = None
    uses: int = 0
    last_error: str = ""


class CredentialPool:
    """Picks a key per request and records what happened to it. Thread- and process-safe.

    :param home: ``$TALARIA_HOME``.
    :param config: parsed config (``[credentials]``).
    :param env: the environment keys are read from (``os.environ`` in production).
    :param clock: wall-clock seconds (injectable for tests).
    :param rng: randomness for the ``random`` strategy.
    """

    def __init__(
        self, home: Path, config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None,
        *, clock: Callable[[], float] = time.time, rng: _random.Random | None = None,
    ) -> None:
        import os

        self.home = Path(home)
        self.settings = PoolSettings.from_config(config or {})
        self.env = os.environ if env is None else env
        self.clock = clock
        self.rng = rng or _random.Random()
        self._state_path = self.home / STATE_FILE

    # ------------------------------------------------------------------ reading

    def entries(self, profile: ProviderProfile, *, base_url: str | None = None) -> list[PoolEntry]:
        """Every key usable for ``profile`` at the target host, with its current status."""
        state = self._read_state()
        now = self.clock()
        out = []
        for cred, source in self._candidates(profile, base_url):
            rec = state["credentials"].get(_skey(cred), {})
            status, until = _status(rec, now)
            if cred.key is None:
                status = "missing"
            out.append(PoolEntry(credential=cred, source=source, status=status, until=until,
                                 uses=int(rec.get("uses", 0)), last_error=str(rec.get("last_error", ""))))
        return out

    def available(self, profile: ProviderProfile, *, base_url: str | None = None) -> int:
        """How many keys are ``ok`` right now (a keyless provider counts as 1)."""
        ok = sum(1 for e in self.entries(profile, base_url=base_url) if e.status == "ok")
        return ok if ok or not profile.keyless else 1

    # ------------------------------------------------------------------ choosing

    def acquire(
        self, profile: ProviderProfile, *, base_url: str | None = None, include_exhausted: bool = False,
    ) -> Credential:
        """Choose the key for one request (counts a use).

        :param base_url: where the request goes (default: the profile's base URL); keys
            bound to another host are never returned.
        :param include_exhausted: when no key is ``ok``, return the exhausted one that
            recovers first instead of failing (used after the policy waited).
        :raises talaria.ProviderError: ``auth`` when the provider has no key for this host,
            or every key is dead; ``rate_limit`` when every key is cooling down after a 429.
        """
        if profile.keyless and not any(c.key is not None for c, _ in self._candidates(profile, base_url)):
            return Credential(provider=profile.name, key=None, id=KEYLESS_ID)  # nothing to choose or count
        with locked(self._state_path):
            state = self._read_state()
            now = self.clock()
            cands = [(c, s) for c, s in self._candidates(profile, base_url) if c.key is not None]
            if not cands:
                if profile.keyless:
                    return Credential(provider=profile.name, key=None, id=KEYLESS_ID)
                raise ProviderError(ErrorKind.AUTH, _no_key_message(profile, self._candidates(profile, base_url)),
                                    provider=profile.name)
            recs = state["credentials"]
            ok = [c for c, _ in cands if _status(recs.get(_skey(c), {}), now)[0] == "ok"]
            if ok:
                chosen = self._pick(profile.name, ok, recs, state["cursor"])
            else:
                waiting = [(c, _status(recs.get(_skey(c), {}), now)[1]) for c, _ in cands
                           if _status(recs.get(_skey(c), {}), now)[0] == "exhausted"]
                if include_exhausted and waiting:
                    chosen = min(waiting, key=lambda cu: cu[1] or 0)[0]
                elif profile.keyless:
                    return Credential(provider=profile.name, key=None, id=KEYLESS_ID)
                else:
                    raise _all_unavailable(profile, cands, recs, now)
            rec = recs.setdefault(_skey(chosen), {})
            rec["uses"] = int(rec.get("uses", 0)) + 1
            rec["last_used"] = now
            state["cursor"][profile.name] = chosen.id
            write_json(self._state_path, state)
            return chosen

    def _pick(self, provider: str, ok: list[Credential], recs: dict, cursor: dict) -> Credential:
        strategy = self.settings.strategy_for(provider)
        if strategy == "random":
            return self.rng.choice(ok)
        if strategy == "least_used":
            return min(ok, key=lambda c: int(recs.get(_skey(c), {}).get("uses", 0)))
        if strategy == "round_robin" and cursor.get(provider):
            ids = [c.id for c in ok]
            last = cursor[provider]
            if last in ids:
                return ok[(ids.index(last) + 1) % len(ok)]
            return ok[0]
        return ok[0]

    # ------------------------------------------------------------------ reporting

    def report_failure(self, credential: Credential, error: ProviderError) -> str:
        """Record a failed call; returns the key's new status (``ok``, ``exhausted``, ``dead``).

        Only ``rate_limit`` and ``auth`` are the key's fault; other kinds change nothing.
        """
        if credential.id == KEYLESS_ID or error.kind not in (ErrorKind.RATE_LIMIT, ErrorKind.AUTH):
            return "ok"
        s = self.settings
        with locked(self._state_path):
            state = self._read_state()
            now = self.clock()
            rec = state["credentials"].setdefault(_skey(credential), {})
            rec["last_error"] = f"{error.kind.value}{f' {error.status}' if error.status else ''}"
            if error.kind is ErrorKind.RATE_LIMIT:
                wait = error.retry_after if error.retry_after and error.retry_after > 0 else s.rate_limit_cooldown
                rec.update(status="exhausted", until=now + wait)
            else:
                rec["failures"] = int(rec.get("failures", 0)) + 1
                if rec["failures"] >= s.dead_after:
                    rec.update(status="dead", until=None)
                else:
                    rec.update(status="exhausted", until=now + s.auth_cooldown)
            write_json(self._state_path, state)
            return str(rec["status"])

    def report_success(self, credential: Credential) -> None:
        """Record a successful call: the key is ``ok`` and its auth-failure count resets."""
        if credential.id == KEYLESS_ID:
            return
        with locked(self._state_path):
            state = self._read_state()
            rec = state["credentials"].get(_skey(credential))
            if rec is not None and (rec.get("status", "ok") != "ok" or rec.get("failures")):
                rec.update(status="ok", until=None, failures=0)
                write_json(self._state_path, state)

    def reset(self, provider: str, cred_id: str | None = None) -> int:
        """Forget status and counts of ``provider``'s keys (one id, or all); returns how many."""
        with locked(self._state_path):
            state = self._read_state()
            gone = [k for k in state["credentials"]
                    if k.startswith(f"{provider}:") and (cred_id is None or k == f"{provider}:{cred_id}")]
            for k in gone:
                del state["credentials"][k]
            write_json(self._state_path, state)
            return len(gone)

    # ------------------------------------------------------------------ internals

    def _candidates(self, profile: ProviderProfile, base_url: str | None) -> list[tuple[Credential, str]]:
        target = host_of(base_url or profile.base_url)
        out: list[tuple[Credential, str]] = []
        seen: set[str] = set()

        def add(key: str | None, cid: str, source: str, label: str = "") -> None:
            if key is not None and key in seen:
                return
            if key is not None:
                seen.add(key)
            out.append((Credential(provider=profile.name, key=key, id=cid, label=label), source))

        if target == host_of(profile.base_url):  # the profile's own keys go to its own host only
            for name in profile.key_env:
                for var in _siblings(name, self.env):
                    add(self.env[var], credential_id(self.env[var]), f"env:{var}")
        for stored in load_keys(self.home):
            if stored.provider != profile.name or stored.host != target:
                continue
            if stored.key is not None:
                add(stored.key, stored.id, "stored", stored.label)
            else:
                value = self.env.get(stored.key_env or "") or None
                add(value, stored.id, f"stored:key_env:{stored.key_env}", stored.label)
        return out

    def _read_state(self) -> dict[str, Any]:
        data = read_json(self._state_path) or {}  # unreadable state is a cache: start fresh
        if not isinstance(data.get("credentials"), dict):
            data["credentials"] = {}
        if not isinstance(data.get("cursor"), dict):
            data["cursor"] = {}
        data["version"] = 1
        return data


def _skey(credential: Credential) -> str:
    return f"{credential.provider}:{credential.id}"


def _siblings(name: str, env: Mapping[str, str]) -> list[str]:
    """``NAME`` then ``NAME_2``, ``NAME_3``… (numeric order) among the set variables."""
    pattern = re.compile(rf"^{re.escape(name)}_(\d+)$")
    numbered = sorted((int(m.group(1)), k) for k in env if (m := pattern.match(k)) and env[k])
    return ([name] if env.get(name) else []) + [k for _, k in numbered]


def _status(rec: Mapping[str, Any], now: float) -> tuple[str, float | None]:
    status = rec.get("status", "ok")
    if status == "dead":
        return "dead", None
    until = rec.get("until")
    if status == "exhausted" and isinstance(until, (int, float)) and until > now:
        return "exhausted", float(until)
    return "ok", None


def _no_key_message(profile: ProviderProfile, cands: list[tuple[Credential, str]]) -> str:
    refs = [s.split(":", 2)[2] for _, s in cands if s.startswith("stored:key_env:")]
    names = list(profile.key_env) + refs
    hint = f"export {names[0]}=… or run `talaria auth add {profile.name}`" if names else (
        f"run `talaria auth add {profile.name}`, or set key_env = \"VAR\" in [providers.{profile.name}]"
    )
    return (f"no API key for provider {profile.name!r} (host {host_of(profile.base_url) or 'default'}): "
            f"{hint}. Keys declared for another host are never sent here.")


def _all_unavailable(profile: ProviderProfile, cands: list[tuple[Credential, str]], recs: dict, now: float) -> ProviderError:
    parts, cooling_after_429 = [], False
    for cred, _ in cands:
        rec = recs.get(_skey(cred), {})
        status, until = _status(rec, now)
        err = str(rec.get("last_error", ""))
        cooling_after_429 = cooling_after_429 or (status == "exhausted" and err.startswith("rate_limit"))
        when = f" until {time.strftime('%H:%M:%S', time.localtime(until))}" if until else ""
        parts.append(f"{cred.id} {status}{when} ({err})")
    return ProviderError(
        ErrorKind.RATE_LIMIT if cooling_after_429 else ErrorKind.AUTH,
        f"every key of {profile.name} is unavailable: {'; '.join(parts)}. "
        f"Add one with `talaria auth add {profile.name}`, reset with `talaria auth reset {profile.name}`, "
        f"or configure a fallback model.",
        provider=profile.name,
    )
