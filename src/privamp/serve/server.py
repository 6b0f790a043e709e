"""The planner's HTTP server: the page's files and the JSON API, on the standard library's ``ThreadingHTTPServer``.

Why no web framework: the server answers two kinds of ``GET`` (a handful of static files, and one API route whose
work is the command line's), both fit in one small handler; the standard library has everything else, and a
framework would be one more dependency for the core install to carry. What a framework would add here (routing,
templates, sessions) the planner does not need; what it must have, bounded work under load, is :mod:`~.worker`'s.

Bounded under load: a connection is one thread, at most ``max_connections`` at once (the next is refused with a
503 by the accepting thread); the page's files are read once at start-up and answered from memory by the
connection's own thread, so they never wait behind a computation; computations go through the
:class:`~privamp.serve.worker.Pool`; answers are kept in a small cache bounded in bytes. No request reads or writes a
file. Bound to a loopback address (the default), requests must name a loopback host (``Host`` header), so that a web
page elsewhere cannot reach the server under a name of its own.
"""

from __future__ import annotations

import contextlib
import ipaddress
import select
import socket
import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from privamp.serve.api import ApiError, Options, argv_of
from privamp.serve.worker import Pool, Reply, error_reply

#: The page's files (in ``privamp/serve/static``) by URL path, with their content type.
FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/planner.css": ("planner.css", "text/css; charset=utf-8"),
    "/planner.js": ("planner.js", "text/javascript; charset=utf-8"),
    "/plot.js": ("plot.js", "text/javascript; charset=utf-8"),
    "/snippets.js": ("snippets.js", "text/javascript; charset=utf-8"),
}
#: Everything the page loads comes from this server: the browser refuses any other source.
SECURITY_HEADERS = (
    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
)
#: The names of a loopback server, as a ``Host`` header gives them.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 2\r\n"
         b"Connection: close\r\n\r\n{\"error\": \"too many connections: try again in a few seconds\"}")


def load_files() -> dict[str, tuple[bytes, str]]:
    """The page's files by URL path, read once (at start-up) from the package."""
    root = resources.files("privamp.serve") / "static"
    return {path: ((root / name).read_bytes(), kind) for path, (name, kind) in FILES.items()}


class Cache:
    """The answers to recent API requests (status 200 or 400), least recently used dropped beyond ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, ...], Reply] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, ...]) -> Reply | None:
        with self._lock:
            reply = self._items.get(key)
            if reply is not None:
                self._items.move_to_end(key)
            return reply

    def put(self, key: tuple[str, ...], reply: Reply) -> None:
        if reply.status not in (200, 400) or len(reply.body) > self.max_bytes // 8:
            return
        with self._lock:
            old = self._items.pop(key, None)
            self._bytes += len(reply.body) - (len(old.body) if old else 0)
            self._items[key] = reply
            while self._bytes > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped.body)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class PlannerServer(ThreadingHTTPServer):
    """The planner: the page's files, the API (``commands``: :func:`privamp.serve.api.command_options`) through
    ``pool``, at most ``max_connections`` connections at once."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], pool: Pool, commands: Mapping[str, Options], *,
                 max_connections: int = 64, cache_bytes: int = 8 * 2**20) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.pool = pool
        self.commands = commands
        self.cache = Cache(cache_bytes)
        self.files = load_files()
        self.loopback_only = is_loopback(address[0])
        self._connections = threading.BoundedSemaphore(max_connections)
        super().__init__(address, Handler)

    @property
    def url(self) -> str:
        address, port = self.server_address[:2]
        host = address.decode() if isinstance(address, bytes) else address
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._connections.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._connections.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-answer is no error of the server's; anything else is (printed)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    """``GET /`` and the page's files; ``GET /api/<command>?<options>`` (:mod:`privamp.serve.api`)."""

    server: PlannerServer
    timeout = 30  # seconds a connection may take to send its request
    server_version = "privamp-planner"

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged (the terminal shows the server's address and errors only)."""

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        host = self._host()  # none: not a browser (every browser names the host it asked for)
        if self.server.loopback_only and host and not is_loopback(host):
            self._send(error_reply(403, "the planner answers requests for localhost only"))
        elif parts.path.startswith("/api/"):
            reply = self._api(parts.path[len("/api/"):], parts.query)
            if reply is not None:
                self._send(reply)
        elif parts.path in self.server.files:
            body, kind = self.server.files[parts.path]
            self._send(Reply(200, body), kind, cache="no-cache")
        else:
            self._send(error_reply(404, f"no such page: {parts.path}"))

    def _host(self) -> str:
        """The host named by the request (``Host`` header without the port)."""
        host = (self.headers.get("Host") or "").strip()
        if host.startswith("["):
            return host[1:].partition("]")[0]
        return host.rpartition(":")[0] if host.count(":") == 1 else host

    def _api(self, command: str, query: str) -> Reply | None:
        try:
            argv = tuple(argv_of(self.server.commands, command, query))
        except ApiError as exc:
            return error_reply(exc.status, str(exc))
        cached = self.server.cache.get(argv)
        if cached is not None:
            return cached
        reply = self.server.pool.run(argv, self._gone)
        if reply is not None:
            self.server.cache.put(argv, reply)
        return reply

    def _gone(self) -> bool:
        """Whether the client closed its connection (a page abandons a request by closing it)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _send(self, reply: Reply, kind: str = "application/json", *, cache: str = "no-store") -> None:
        try:
            self.send_response(reply.status)
            for name, value in (("Content-Type", kind), ("Content-Length", str(len(reply.body))),
                                ("Cache-Control", cache), *SECURITY_HEADERS, *reply.headers):
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)
        except ConnectionError:
            pass
