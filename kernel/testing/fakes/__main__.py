"""``python -m talaria.testing.fakes --port N [--script FILE.json]``: run the fake LLM server.

Prints ``fake-llm listening on http://HOST:PORT`` once the socket listens (``--port 0``
picks a free port; read it from that line). Without a script every request gets a short
default text reply; a script file lists replies served in order (see
:func:`talaria.testing.fakes.load_script`), after which the default reply is used.
"""

from __future__ import annotations

import argparse
import sys

from .app import FakeLLMApp
from .script import load_script
from .server import bind_socket, make_uvicorn_server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m talaria.testing.fakes",
                                     description="Fake OpenAI/Anthropic API server for tests.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file: a list of replies served in order")
    args = parser.parse_args(argv)
    try:
        replies = load_script(args.script) if args.script else []
    except (OSError, ValueError, TypeError) as exc:
        print(f"fake-llm: cannot read script {args.script}: {exc}", file=sys.stderr)
        return 2
    app = FakeLLMApp(replies)
    sock = bind_socket(args.host, args.port)
    server = make_uvicorn_server(app)
    sock.listen(128)  # connections made right after the line below queue until uvicorn accepts
    host, port = sock.getsockname()[:2]
    print(f"fake-llm listening on http://{host}:{port}", flush=True)
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
