"""The ``openai`` SDK, imported on first use: client construction and the one request call.

Only this module imports ``openai`` (inside its functions), so importing the plugin stays
cheap and nothing beyond the SDK itself is imported on the way to the first request.

Requests go through the client's generic ``post`` with the JSON body the API mode already
built, not through ``client.chat.completions.create(...)`` / ``client.responses.create(...)``.
The SDK still does the transport, the auth and ``X-Stainless-*`` headers, ``extra_body``
merging, timeouts, error classes and SSE parsing (error events included); what is skipped is
what Talaria never uses: importing the resource modules and their typed models (~50 ms for
chat, ~150 ms for responses on the first call), re-walking the body against the SDK's
TypedDicts, and building a pydantic model per stream event (~100 ms for the Responses
event union on the first call). Events and bodies arrive as plain JSON dicts, which is what
the API modes read anyway (through :func:`talaria.sdk_field`).
"""

from __future__ import annotations

from typing import Any

from talaria import ModelRequest, plaintext_client_options, sdk_post

__all__ = ["CONNECT_TIMEOUT", "new_client", "post_json", "request_timeout"]

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


async def post_json(client: Any, path: str, payload: dict[str, Any], request: ModelRequest) -> Any:
    """``POST path`` (relative to the client's base URL) with ``payload`` as the JSON body,
    bearer-authenticated, through :func:`talaria.sdk_post`: the decoded JSON object or, for a
    streamed payload, an ``openai.AsyncStream`` of decoded JSON events. Failures raise the
    SDK's own exceptions (``APIStatusError``, ``APIConnectionError``…), for the caller to classify.
    """
    import openai

    return await sdk_post(openai, client, path, payload, request, timeout=request_timeout(request),
                          options={"security": {"bearer_auth": True}})
