"""The ``openai`` SDK, imported on first use: client construction and per-request timeouts.

Only this module imports ``openai`` (inside its functions), so importing the plugin stays
cheap and nothing beyond the SDK itself is imported on the way to the first request.
"""

from __future__ import annotations

from typing import Any

from talaria import ModelRequest, plaintext_client_options

__all__ = ["CONNECT_TIMEOUT", "new_client", "request_timeout"]

#: seconds allowed to open a connection (the whole call is bounded by ``request.timeout``).
CONNECT_TIMEOUT = 20.0


def new_client(base_url: str, key: str) -> Any:
    """An ``openai.AsyncOpenAI`` for ``base_url``; retries are left to the kernel's policy
    (a plaintext ``http://`` endpoint: see :func:`talaria.plaintext_client_options`)."""
    import openai

    return openai.AsyncOpenAI(base_url=base_url, api_key=key, max_retries=0,
                              **plaintext_client_options(openai, base_url))


def request_timeout(request: ModelRequest) -> Any:
    """The SDK's timeout for one request: the whole-call bound, connecting bounded too."""
    import openai

    return openai.Timeout(request.timeout, connect=min(request.timeout, CONNECT_TIMEOUT))
