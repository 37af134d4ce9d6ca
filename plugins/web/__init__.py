"""``web_fetch``: fetch a URL and return readable text (toolset ``web``).

Contract: only http(s); every hop (at most 5 redirects) is re-checked against the
private-network rule (see ``_net``); HTML becomes readable text (``_html``); text, JSON and
XML pass through; other content types are refused. Bounded by ``[tools.web]``:
``timeout`` (30 s for the whole fetch), ``max_bytes`` (5 MB read from the server),
``max_chars`` (20 000 characters returned unless the call asks for up to 100 000),
``allow_private`` (false). Results are marked untrusted: page text is data, not
instructions. httpx, the HTML parser and the address checks are imported on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

import talaria
from talaria import Tool, ToolContext, ToolError, Toolset

__all__ = ["TOOLS", "web_fetch"]

MAX_REDIRECTS = 5
HARD_MAX_CHARS = 100_000
_TEXTUAL = ("json", "xml", "javascript", "ecmascript", "yaml", "toml", "csv", "markdown")


def _options(ctx: ToolContext) -> Mapping[str, Any]:
    tools = ctx.config.get("tools") or {}
    section = tools.get("web") if isinstance(tools, Mapping) else None
    return section if isinstance(section, Mapping) else {}


async def web_fetch(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    url = str(arguments["url"]).strip()
    opts = _options(ctx)
    max_chars = min(int(arguments.get("max_chars") or opts.get("max_chars", 20_000)), HARD_MAX_CHARS)
    time_cap = float(opts.get("timeout", 30))
    import asyncio

    try:
        async with asyncio.timeout(time_cap):
            return await _fetch(
                url,
                allow_private=bool(opts.get("allow_private", False)),
                max_bytes=int(opts.get("max_bytes", 5_000_000)),
                max_chars=max_chars,
                time_cap=time_cap,
                trust_env=bool(opts.get("trust_env", True)),
            )
    except TimeoutError as exc:
        raise ToolError(f"fetching {url} took longer than {time_cap:g}s and was stopped.") from exc


async def _fetch(url: str, *, allow_private: bool, max_bytes: int, max_chars: int, time_cap: float, trust_env: bool) -> str:
    import httpx

    from ._net import check_url

    headers = {
        "User-Agent": f"Talaria/{talaria.__version__} (web_fetch)",
        "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5",
    }
    timeout = httpx.Timeout(time_cap, connect=min(10.0, time_cap))
    async with httpx.AsyncClient(follow_redirects=False, timeout=timeout, headers=headers, trust_env=trust_env) as client:
        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            await check_url(current, allow_private=allow_private)
            try:
                response = await client.send(client.build_request("GET", current), stream=True)
            except httpx.InvalidURL as exc:
                raise ToolError(f"{current!r} is not a valid URL: {exc}") from exc
            except httpx.HTTPError as exc:
                raise ToolError(f"could not reach {current}: {type(exc).__name__}: {exc or 'no response'}") from exc
            try:
                if response.is_redirect:
                    location = response.headers.get("location")
                    if not location:
                        raise ToolError(f"{current} redirected without a Location header.")
                    current = urljoin(str(response.url), location)
                    continue
                return await _render(response, max_bytes=max_bytes, max_chars=max_chars)
            except httpx.HTTPError as exc:
                raise ToolError(f"reading {current} failed: {type(exc).__name__}: {exc}") from exc
            finally:
                await response.aclose()
    raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times; giving up.")


async def _render(response: Any, *, max_bytes: int, max_chars: int) -> str:
    final = str(response.url)
    body = bytearray()
    cut = False
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > max_bytes:
            del body[max_bytes:]
            cut = True
            break
    ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
    text = _decode(bytes(body), response.encoding)
    if response.status_code >= 400:
        snippet = " ".join(text.split())[:300] if not ctype.endswith("html") else ""
        raise ToolError(
            f"HTTP {response.status_code} {response.reason_phrase} from {final}"
            + (f": {snippet}" if snippet else "")
        )
    head = bytes(body[:1024]).lower()
    title = ""
    if "html" in ctype or (not ctype and (b"<html" in head or b"<!doctype html" in head)):
        from ._html import html_to_text

        title, text = html_to_text(text, final)
    elif not (ctype.startswith("text/") or any(kind in ctype for kind in _TEXTUAL) or (not ctype and b"\0" not in head)):
        raise ToolError(
            f"{final} returned {ctype or 'binary data'} ({len(body)} bytes), which is not text; "
            "web_fetch only reads HTML and text."
        )
    header = f"URL: {final}\n" + (f"Title: {title}\n" if title else "") + "\n"
    if len(text) > max_chars:
        more = "" if max_chars >= HARD_MAX_CHARS else f"; call again with max_chars up to {HARD_MAX_CHARS} for more"
        text = text[:max_chars] + f"\n[truncated: showing {max_chars} of {len(text)} characters{more}]"
    elif cut:
        text += f"\n[page cut after {max_bytes} bytes]"
    return header + (text or "(empty page)")


def _decode(body: bytes, encoding: str | None) -> str:
    try:
        return body.decode(encoding or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


TOOLS = (
    Tool(
        name="web_fetch",
        description="Fetch a URL (http/https) and return its readable text.",
        parameters={
            "type": "object",
            "properties": {"url": {"type": "string"}, "max_chars": {"type": "integer", "minimum": 100}},
            "required": ["url"],
        },
        handler=web_fetch,
        toolset="web",
        untrusted=True,
        max_output=HARD_MAX_CHARS + 500,
    ),
)


@talaria.hookimpl
def register_tools(register: talaria.Registrar[Any]) -> None:
    for tool in TOOLS:
        register(tool)
    register(Toolset(name="web", tools=("web_fetch",), description="Read web pages."))
