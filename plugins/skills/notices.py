"""Skill-loading warnings are logged once per process, however often skills are discovered."""

from __future__ import annotations

import logging
from collections import OrderedDict

__all__ = ["warn_once"]

log = logging.getLogger("talaria.skills")

_LOGGED: OrderedDict[str, None] = OrderedDict()
_MAX = 512


def warn_once(message: str) -> None:
    """Log ``message`` as a warning on ``talaria.skills`` unless this process already did."""
    if message in _LOGGED:
        return
    _LOGGED[message] = None
    if len(_LOGGED) > _MAX:
        _LOGGED.popitem(last=False)
    log.warning("%s", message)
