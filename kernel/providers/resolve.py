"""Resolve ``provider/model`` strings into :class:`ResolvedModel` and build the model chain.

Accepted forms, tried in this order:

- ``provider/model`` — ``provider`` is a provider name or alias; ``model`` is a model id or
  alias of that provider (unknown ids are allowed: providers add models faster than
  profiles). Only the first ``/`` splits, so ``openrouter/anthropic/claude-sonnet-4`` works.
- ``provider`` or ``provider/`` — that provider's default model.
- ``model`` — a model id or alias that some provider lists (``claude-sonnet``); when several
  do, one whose key is present wins, then registration order.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from talaria import ConfigError, ModelInfo, ProviderProfile

from .._values import value_type
from .profiles import ProviderSet, effective_profiles

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "ResolvedModel",
    "default_model_chain",
    "env_has_key",
    "first_run_message",
    "resolve_model",
]

#: Window assumed when neither the model nor its provider says.
DEFAULT_CONTEXT_WINDOW = 128_000

#: Providers tried first when detecting keys in the environment (then registry order).
_DETECT_ORDER = ("openai", "anthropic", "openrouter", "gemini", "deepseek", "groq", "mistral", "xai")


@value_type
class ResolvedModel:
    """One concrete model to call: the effective profile plus what is known of the model."""

    profile: ProviderProfile
    model_id: str
    model_info: ModelInfo | None
    context_window: int
    max_output: int | None
    api_mode: str

    @property
    def provider(self) -> str:
        return self.profile.name

    @property
    def base_url(self) -> str | None:
        return self.profile.base_url

    @property
    def spec(self) -> str:
        """The canonical ``provider/model`` string."""
        return f"{self.profile.name}/{self.model_id}"

    def __str__(self) -> str:
        return self.spec


def resolve_model(
    spec: str,
    profiles: Mapping[str, ProviderProfile],
    config: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    api_modes: Collection[str] | None = None,
    where: str = "model",
) -> ResolvedModel:
    """Resolve one model string against the effective profiles.

    :param spec: ``provider/model``, ``provider``, or a bare model id / alias.
    :param profiles: registered profiles (or an already merged :class:`ProviderSet`).
    :param config: parsed ``config.toml`` (for ``[providers.*]`` tables).
    :param env: the environment (used to prefer a provider whose key is present).
    :param where: the config key the string came from, named in error messages.
    :raises talaria.ConfigError: unknown provider (lists the known ones), a provider with
        no default model, or an unknown bare model id.
    """
    pset = effective_profiles(profiles, config or {}, api_modes=api_modes)
    env = env or {}
    text = spec.strip()
    if not text:
        raise ConfigError(f"{where}: empty model name; write it as provider/model, e.g. openai/gpt-4.1-mini")
    head, sep, tail = text.partition("/")
    profile = pset.lookup(head)
    if profile is not None:
        return _build(profile, tail, where)
    found = _by_model(pset, text, env)
    if found is not None:
        return found
    known = ", ".join(sorted(pset)) or "(none registered)"
    if sep:
        raise ConfigError(
            f"{where}: unknown provider {head!r} in {text!r}; known providers: {known}. "
            f"Define it in config.toml with [providers.{head}] base_url = \"…\", "
            f"or install its plugin."
        )
    raise ConfigError(
        f"{where}: unknown model {text!r}; write it as provider/model "
        f"(e.g. openai/{text}); known providers: {known}. "
        f"`talaria models list` shows the known models."
    )


def _build(profile: ProviderProfile, model: str, where: str) -> ResolvedModel:
    if not model:
        if not profile.default_model:
            raise ConfigError(
                f"{where}: provider {profile.name!r} has no default model; "
                f"write it as {profile.name}/<model>"
            )
        model = profile.default_model
    info = profile.model_info(model)
    model_id = info.id if info is not None else model
    window = (info and info.context_window) or profile.context_window or DEFAULT_CONTEXT_WINDOW
    max_output = (info and info.max_output) or profile.max_output
    return ResolvedModel(
        profile=profile, model_id=model_id, model_info=info, context_window=window,
        max_output=max_output, api_mode=profile.api_mode,
    )


def _by_model(pset: ProviderSet, text: str, env: Mapping[str, str]) -> ResolvedModel | None:
    low = text.lower()
    hits = [
        p for p in pset.values()
        if any(m.id.lower() == low or low in (a.lower() for a in m.aliases) for m in p.models)
    ]
    if not hits:
        return None
    hits.sort(key=lambda p: 0 if env_has_key(p, env) else 1)  # stable: registry order kept
    profile = hits[0]
    info = next(m for m in profile.models if m.id.lower() == low or low in (a.lower() for a in m.aliases))
    return _build(profile, info.id, "model")


def env_has_key(profile: ProviderProfile, env: Mapping[str, str]) -> bool:
    """True when one of the profile's key variables (or its ``_2``… siblings) is set."""
    for name in profile.key_env:
        if env.get(name):
            return True
        if any(k.startswith(f"{name}_") and k[len(name) + 1:].isdigit() and v for k, v in env.items()):
            return True
    return False


def default_model_chain(
    config: Mapping[str, Any],
    env: Mapping[str, str],
    profiles: Mapping[str, ProviderProfile],
    *,
    stored: Collection[str] = (),
    api_modes: Collection[str] | None = None,
) -> list[ResolvedModel]:
    """Return the configured model followed by its fallbacks.

    With no ``model`` in config, the first provider (openai, anthropic, openrouter, …, then
    registration order) whose key is in ``env`` — or that has a key stored with
    ``talaria auth add`` (``stored`` names those providers) — supplies its default model.

    :raises talaria.ConfigError: nothing configured and no key found (the message says
        exactly what to set), or a bad model string.
    """
    pset = effective_profiles(profiles, config, api_modes=api_modes)
    chain: list[ResolvedModel] = []
    model = config.get("model")
    if model is not None and not isinstance(model, str):
        raise ConfigError("model: expected a string such as \"openai/gpt-4.1-mini\"")
    if model:
        chain.append(resolve_model(model, pset, config, env, where="model"))
    else:
        detected = _detect(pset, env, stored)
        if detected is None:
            raise ConfigError(first_run_message(pset))
        chain.append(detected)
    fallback = config.get("fallback", [])
    if isinstance(fallback, str):
        fallback = [fallback]
    if not isinstance(fallback, Sequence) or not all(isinstance(f, str) for f in fallback):
        raise ConfigError('fallback: expected a list of "provider/model" strings')
    for i, spec in enumerate(fallback):
        resolved = resolve_model(spec, pset, config, env, where=f"fallback[{i}]")
        if all(r.spec != resolved.spec for r in chain):
            chain.append(resolved)
    return chain


def _detect(pset: ProviderSet, env: Mapping[str, str], stored: Collection[str]) -> ResolvedModel | None:
    order = [n for n in _DETECT_ORDER if n in pset] + [n for n in pset if n not in _DETECT_ORDER]
    for name in order:
        profile = pset[name]
        if profile.keyless or not profile.default_model:
            continue  # a local server is never guessed: it may not be running
        if env_has_key(profile, env) or name in stored:
            return _build(profile, "", "model")
    return None


def first_run_message(profiles: Mapping[str, ProviderProfile]) -> str:
    """The message shown when no model is configured and no key is found."""
    lines = [
        "No model is configured and no API key was found in the environment.",
        "",
        "Choose one of these:",
        "",
        "  1. A hosted provider: export its API key, then run talaria again.",
    ]
    hosted = [p for p in profiles.values() if p.key_env and not p.keyless and p.default_model]
    hosted.sort(key=lambda p: _DETECT_ORDER.index(p.name) if p.name in _DETECT_ORDER else 99)
    width = max((len(p.key_env[0]) for p in hosted[:6]), default=0)
    for p in hosted[:6]:
        lines.append(f"       export {(p.key_env[0] + '=...').ljust(width + 4)}  # {p.name}/{p.default_model}")
    if not hosted:
        lines.append("       export OPENAI_API_KEY=...    # or the key variable of your provider")
    lines += [
        "     Or store a key instead of exporting it:  talaria auth add <provider>",
        "",
        "  2. A local OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp):",
        "     add to $TALARIA_HOME/config.toml (default ~/.talaria/config.toml):",
        "",
        '       model = "local/qwen3"',
        "       [providers.local]",
        '       base_url = "http://127.0.0.1:11434/v1"',
        "",
        "  `talaria providers list` shows every provider and whether its key is set;",
        "  pass --model provider/model to choose a model for one run.",
    ]
    return "\n".join(lines)
