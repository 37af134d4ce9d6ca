"""``talaria doctor`` checks: the model chain resolved the way a turn would (no network), and
the ``[channels.cli]`` table."""

from __future__ import annotations

from typing import Any

from talaria import CheckResult, ConfigError

__all__ = ["model_check", "settings_check"]


def model_check(kernel: Any) -> list[CheckResult]:
    """One result per model of the chain, or a failure carrying the first-run message."""
    from talaria import Runtime  # resolves the chain exactly like a turn does

    try:
        chain = Runtime(kernel).models.chain(None)
    except ConfigError as exc:
        first, _, rest = str(exc).partition("\n")
        return [CheckResult(name="model", ok=False, detail=first, hint=rest.strip() or "set `model` in config.toml")]
    results = []
    for index, resolved in enumerate(chain):
        name = "model" if index == 0 else f"fallback {index}"
        where = f" at {resolved.base_url}" if resolved.base_url else ""
        detail = f"{resolved.spec} (API mode {resolved.api_mode}{where})"
        if resolved.api_mode not in kernel.registries.api_modes.names():
            results.append(CheckResult(name=name, ok=False, detail=f"{detail}: API mode not registered",
                                       hint="install or enable the plugin that provides it (`talaria plugins list`)"))
            continue
        results.append(CheckResult(name=name, ok=True, detail=detail))
    return results


def settings_check(kernel: Any) -> list[CheckResult]:
    """The ``[channels.cli]`` options: fine, or each ignored option or value named."""
    from .settings import OPTIONS, settings_problems

    problems = settings_problems(kernel.config)
    if not problems:
        return [CheckResult(name="channels.cli", ok=True, detail="options valid")]
    options = "; ".join(f"{name} = {expected}" for name, (_, expected) in OPTIONS.items())
    return [CheckResult(name="channels.cli", ok=True, level="warn", detail=problem, hint=f"options: {options}")
            for problem in problems]  # a warning: the REPL still works, with the defaults
