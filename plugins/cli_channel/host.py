"""Build the :class:`talaria.Runtime` a terminal command drives, and pick the session key.

The runtime comes from the public API (``talaria.Runtime``, ``talaria.TurnOptions``),
resolved lazily inside :func:`make_runtime`. Nothing here imports a provider SDK: the API
mode does that when the first request is built.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any

from talaria import ConfigError, UsageError

__all__ = ["check_model", "key_for_session", "last_workspace_session", "make_runtime", "new_session_key"]


def new_session_key() -> str:
    """A fresh routing key for a new terminal conversation: ``cli:<random>``."""
    return f"cli:{secrets.token_hex(6)}"


def make_runtime(
    state: Any,
    *,
    model: str | None = None,
    toolsets: Sequence[str] | None = None,
    yolo: bool = False,
    emit: Callable[[Any], None] | None = None,
    ask: Callable[..., Any] | None = None,
) -> Any:
    """A not-yet-opened Runtime for the ``cli`` channel.

    :raises talaria.ConfigError: the config file is invalid, or no model can be resolved
        (the provider layer's first-run message says what to set). Raised here, before any
        prompt is shown or any request is made.
    """
    from talaria import Runtime, TurnOptions

    kernel = state.load_kernel()
    if getattr(state, "config_error", None):
        raise ConfigError(f"{state.config_error}\nFix it, or see `talaria config show`.")
    options = TurnOptions(channel="cli", model=model, toolsets=list(toolsets) if toolsets else None, yolo=yolo)
    runtime = Runtime(kernel, options=options, emit=emit, ask=ask)
    check_model(runtime, model)
    return runtime


def check_model(runtime: Any, model: str | None) -> list[Any]:
    """Resolve the model chain (no network); raises :class:`talaria.ConfigError` with what to set."""
    return runtime.models.chain(model)


async def key_for_session(store: Any, ident: str) -> Any:
    """The session row named by an id (or unique id prefix) or, failing that, by its title.

    :raises talaria.UsageError: no such session, or the prefix/title is ambiguous.
    """
    ident = ident.strip()
    ids = await store.resolve_session_id(ident)
    if len(ids) == 1 or (ids and ids[0] == ident):
        row = await store.get_session(ids[0])
        if row is not None:
            return row
    if len(ids) > 1:
        raise UsageError(f"session id prefix {ident!r} is ambiguous; give more characters (see `talaria sessions list`)")
    low = ident.lower()
    rows = await store.list_sessions(limit=500)
    exact = [r for r in rows if (r.title or "").lower() == low]
    partial = exact or [r for r in rows if low in (r.title or "").lower() or low in (r.preview or "").lower()]
    if len(partial) == 1 or exact:
        return partial[0]
    if partial:
        names = ", ".join(r.id[:14] for r in partial[:5])
        raise UsageError(f"{len(partial)} sessions match {ident!r} ({names}…); give an id")
    raise UsageError(f"no session matches {ident!r}; `talaria sessions list` shows them")


async def last_workspace_session(store: Any, workspace: str) -> Any | None:
    """The newest terminal (``cli``) session started in ``workspace``, or None."""
    rows = await store.list_sessions(limit=1, workspace=workspace, source="cli")
    return rows[0] if rows else None
