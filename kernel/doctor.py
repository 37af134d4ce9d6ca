"""``talaria doctor``: the kernel's own checks plus every plugin's ``register_doctor_checks``."""

from __future__ import annotations

import os
from typing import Any

from .types import CheckResult

__all__ = ["run_checks"]


def _home(state: Any) -> CheckResult:
    home = state.home
    if not home.exists():
        return CheckResult(name="home", ok=True, level="warn", detail=f"{home} does not exist yet",
                           hint="it is created on first use")
    if not os.access(home, os.W_OK):
        return CheckResult(name="home", ok=False, detail=f"{home} is not writable",
                           hint="fix its permissions or set TALARIA_HOME to a writable folder")
    return CheckResult(name="home", ok=True, detail=str(home))


def _config(state: Any) -> CheckResult:
    _ = state.config
    if state.config_error:
        return CheckResult(name="config", ok=False, detail=state.config_error, hint="run `talaria config show`")
    return CheckResult(name="config", ok=True, detail="valid")


def _plugins(kernel: Any) -> list[CheckResult]:
    records = kernel.plugins.records.values()
    loaded = sum(r.status == "loaded" for r in records)
    results = [CheckResult(name="plugins", ok=True, detail=f"{loaded} loaded")]
    for error in kernel.plugins.errors:
        results.append(CheckResult(name=f"plugin {error.plugin}", ok=False, detail=f"{error.phase}: {error.message}",
                                   hint=f"origin: {error.origin}; disable it with `talaria plugins disable {error.plugin}`"))
    for warning in kernel.plugins.warnings:
        results.append(CheckResult(name="plugins", ok=True, level="warn", detail=warning))
    return results


def run_checks(state: Any) -> list[CheckResult]:
    """Run every check; a check that raises is reported as failed, never crashes doctor."""
    results = [_home(state), _config(state)]
    kernel = state.load_kernel()
    results.extend(_plugins(kernel))
    for name, check in kernel.registries.doctor_checks.items():
        try:
            outcome = check.run(kernel)
        except Exception as exc:
            results.append(CheckResult(name=name, ok=False, detail=f"check failed: {type(exc).__name__}: {exc}"))
            continue
        items = outcome if isinstance(outcome, (list, tuple)) else [outcome]
        results.extend(item for item in items if isinstance(item, CheckResult))
    return results
