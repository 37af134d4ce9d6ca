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

from talaria import ModelRequest, json_plain, plaintext_client_options

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
    """``POST path`` (relative to the client's base URL) with ``payload`` as the JSON body.

    ``request.headers`` are sent as extra headers and ``request.extra_body`` is merged into
    the body (its keys win), exactly as the SDK's ``extra_headers``/``extra_body`` do. Returns
    the decoded JSON object, or — when ``payload["stream"]`` is true — an ``openai.AsyncStream``
    of decoded JSON events (``async for``; ``close()``). Failures raise the SDK's own
    exceptions (``APIStatusError``, ``APIConnectionError``…), for the caller to classify.
    """
    import openai

    options: dict[str, Any] = {"timeout": request_timeout(request), "security": {"bearer_auth": True}}
    if request.headers:
        options["headers"] = dict(request.headers)
    if request.extra_body:
        options["extra_json"] = json_plain(request.extra_body)
    if payload.get("stream"):
        return await client.post(path, body=payload, options=options, cast_to=object, stream=True,
                                 stream_cls=openai.AsyncStream[object])
    return await client.post(path, body=payload, options=options, cast_to=object)
