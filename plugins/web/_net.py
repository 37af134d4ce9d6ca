"""Which hosts ``web_fetch`` may reach.

Contract: :func:`check_url` resolves the URL's host and raises :class:`ToolError` when the
scheme is not http(s) or when any address it resolves to is not globally routable —
loopback, RFC 1918, link-local (incl. the cloud metadata address 169.254.169.254),
carrier-grade NAT, IPv6 ULA, multicast, unspecified or reserved, also when written as an
IPv4-mapped IPv6 address — unless ``allow_private`` is true.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

from talaria import ToolError

__all__ = ["check_url", "is_private"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def is_private(ip: IPAddress) -> bool:
    """True for any address that is not publicly routable."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


async def check_url(url: str, *, allow_private: bool) -> None:
    """Validate ``url`` for fetching (see module doc)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ToolError(f"{url!r}: only http:// and https:// URLs can be fetched.")
    host = parts.hostname
    if not host:
        raise ToolError(f"{url!r}: the URL has no host.")
    if allow_private:
        return
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            raise ToolError(f"{url!r}: invalid port.") from exc
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), timeout=10
            )
        except (OSError, TimeoutError) as exc:
            raise ToolError(f"could not resolve host {host!r}: check the URL ({exc}).") from exc
        addresses = [ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos]
    for ip in addresses:
        if is_private(ip):
            raise ToolError(
                f"refused: {host} resolves to the private/local address {ip}; web_fetch only "
                "reaches public addresses (the user can allow private ones with "
                "[tools.web] allow_private = true)."
            )
