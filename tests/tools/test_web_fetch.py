"""web_fetch: private networks refused (also after a redirect), HTML to text, caps, errors.

A local ``http.server`` in a thread serves the pages; fetching it needs
``[tools.web] allow_private = true`` — which is itself the contract under test.
"""

from __future__ import annotations

import importlib
import ipaddress
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from talaria import ToolError
from talaria.testing import load_plugin_module

PLUGIN = load_plugin_module("web")
NET = importlib.import_module(PLUGIN.__name__ + "._net")
HTML = importlib.import_module(PLUGIN.__name__ + "._html")
FETCH = PLUGIN.TOOLS[0]

PAGE = b"""<!doctype html><html><head><title>Test  Page</title>
<style>body{color:red}</style><script>var secret = 1;</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Main heading</h1><p>First <b>para</b> with a <a href="/docs/intro">relative link</a>.</p>
<h2>Sub</h2><ul><li>alpha</li><li>beta</li></ul>
<pre>code:
    indented</pre></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif self.path == "/big":
            self._send(200, b"word " * 20000, "text/plain")
        elif self.path == "/json":
            self._send(200, b'{"ok": true}', "application/json")
        elif self.path == "/png":
            self._send(200, b"\x89PNG\r\n\x1a\n\0\0" + bytes(200), "image/png")
        elif self.path == "/to-private":
            self._send(302, b"", "text/plain", {"Location": "http://10.0.0.1/internal"})
        elif self.path == "/hop":
            self._send(302, b"", "text/plain", {"Location": "/page"})
        elif self.path == "/loop":
            self._send(302, b"", "text/plain", {"Location": "/loop"})
        else:
            self._send(404, b"nothing here", "text/plain")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def open_ctx(make_ctx):  # type: ignore[no-untyped-def]
    return make_ctx(config={"tools": {"web": {"allow_private": True, "trust_env": False}}})


async def fetch(ctx, url: str, **extra):  # type: ignore[no-untyped-def]
    return await FETCH.handler({"url": url, **extra}, ctx)


def test_results_are_marked_untrusted() -> None:
    assert FETCH.untrusted is True


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8080/x",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://172.16.5.4/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[fd00::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
    ],
)
async def test_private_addresses_are_refused(url: str, ctx) -> None:
    with pytest.raises(ToolError, match="private"):
        await fetch(ctx, url)


async def test_non_http_schemes_are_refused(ctx) -> None:
    with pytest.raises(ToolError, match="http"):
        await fetch(ctx, "file:///etc/passwd")


def test_public_addresses_are_not_private() -> None:
    assert not NET.is_private(ipaddress.ip_address("93.184.216.34"))
    assert not NET.is_private(ipaddress.ip_address("2606:4700::1111"))


@pytest.mark.slow
async def test_redirect_to_private_address_is_refused(server: str, ctx, monkeypatch) -> None:
    real = NET.is_private
    # Pretend the test server's loopback address is public; the redirect target is not.
    monkeypatch.setattr(NET, "is_private", lambda ip: str(ip) != "127.0.0.1" and real(ip))
    with pytest.raises(ToolError, match="10.0.0.1"):
        await fetch(ctx, f"{server}/to-private")


@pytest.mark.slow
async def test_html_becomes_readable_text(server: str, open_ctx) -> None:
    out = await fetch(open_ctx, f"{server}/hop")
    assert out.startswith(f"URL: {server}/page\nTitle: Test Page\n")
    assert "# Main heading" in out and "## Sub" in out
    assert f"[relative link]({server}/docs/intro)" in out
    assert "- alpha\n- beta" in out
    assert "code:\n    indented" in out
    for hidden in ("color:red", "var secret", "About"):
        assert hidden not in out


@pytest.mark.slow
async def test_text_is_capped_with_a_note(server: str, open_ctx) -> None:
    out = await fetch(open_ctx, f"{server}/big", max_chars=1000)
    assert "[truncated: showing 1000 of 100000 characters" in out
    assert len(out) < 1300


@pytest.mark.slow
async def test_json_passes_and_binary_is_refused(server: str, open_ctx) -> None:
    assert '{"ok": true}' in await fetch(open_ctx, f"{server}/json")
    with pytest.raises(ToolError, match="image/png"):
        await fetch(open_ctx, f"{server}/png")


@pytest.mark.slow
async def test_http_errors_and_redirect_loops(server: str, open_ctx) -> None:
    with pytest.raises(ToolError, match="HTTP 404"):
        await fetch(open_ctx, f"{server}/missing")
    with pytest.raises(ToolError, match="redirected more than 5 times"):
        await fetch(open_ctx, f"{server}/loop")


@pytest.mark.slow
async def test_unreachable_url_is_a_clear_error(open_ctx) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again when the block ends: nothing listens
    with pytest.raises(ToolError, match="could not reach"):
        await fetch(open_ctx, f"http://127.0.0.1:{port}/")


async def test_unresolvable_host_is_a_clear_error(ctx, monkeypatch) -> None:
    def no_dns(*args: object, **kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)  # no real DNS query leaves the test
    with pytest.raises(ToolError, match="could not resolve"):
        await fetch(ctx, "http://no-such-host.invalid/")


def test_html_to_text_skips_chrome_and_keeps_structure() -> None:
    title, text = HTML.html_to_text(
        "<title>T</title><body><nav>menu</nav><h3>Head</h3><p>a&amp;b <a href='#x'>jump</a> "
        "<a href='https://e.com/'>https://e.com/</a></p><table><tr><td>1</td><td>2</td></tr></table>"
        "<button>Click</button><footer>foot</footer></body>",
        "https://base/",
    )
    assert title == "T"
    assert text.splitlines()[0] == "### Head"
    assert "a&b jump https://e.com/" in text
    assert "| 1 | 2" in text and "menu" not in text and "Click" not in text


@pytest.mark.parametrize("host", ["intranet.example.com", "mixed.example.com"])
async def test_a_public_name_resolving_to_a_private_address_is_refused(host: str, ctx, monkeypatch) -> None:
    answers = {"intranet.example.com": ["10.0.0.5"], "mixed.example.com": ["93.184.216.34", "127.0.0.1"]}

    def fake_dns(name: str, *args: object, **kwargs: object) -> list:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 80)) for ip in answers[name]]

    monkeypatch.setattr(socket, "getaddrinfo", fake_dns)  # no real DNS query, nothing is contacted
    with pytest.raises(ToolError, match=f"{host} resolves to the private/local address"):
        await fetch(ctx, f"http://{host}/")
