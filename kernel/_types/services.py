"""What the kernel lends long-lived plugin objects (tool sources, memory providers).

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from .._values import value_type
from .model_calls import ModelResponse
from .sessions import Event


__all__ = ["Services"]


@value_type(slots=False)
class Services:
    """What the kernel lends long-lived plugin objects (tool sources, memory providers).

    :param complete: ``await complete(messages, system="", model=None, max_tokens=1024)``
        asks a model (the configured one unless ``model`` names ``provider/model``) and
        returns a :class:`ModelResponse`; retries and fallback apply. None when no model
        is configured.
    :param elicit: ``await elicit(message, schema)`` asks the channel's human to fill a
        form; returns the answers, or None when declined or nobody can answer.
    :param emit: report an :class:`Event` to whoever renders events.
    """

    config: Mapping[str, Any]
    home: Path
    workspace: Path
    emit: Callable[[Event], None] = lambda event: None
    complete: Callable[..., Awaitable[ModelResponse]] | None = None
    elicit: Callable[[str, Mapping[str, Any]], Awaitable[Mapping[str, Any] | None]] | None = None
    store: Any = None
