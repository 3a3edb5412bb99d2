"""The HTTP layer of ``retro serve``: uvicorn's httptools protocol, bounded.

uvicorn buffers a request head of any size (httptools has no limit, and gathering a
96 MB header costs time quadratic in its size while every other client of the
worker waits), never times out a client that sends a head or a body slowly, and
caps connections only once a request has arrived, answering in plain text. So
:class:`BoundedProtocol` subclasses its httptools protocol (the faster of its two
parsers: see the README), with the :class:`Limits` that :func:`config` gives it:

* a request line of more than ``max_head`` bytes gets 414 and a head of more than
  ``max_head`` bytes 431, as soon as that many bytes have come, before more is
  read (the parser is only ever given ``max_head`` bytes of a head);
* a head must arrive within ``head_timeout`` seconds of its first byte (or of the
  connection), a body within ``body_timeout`` of the end of its head: else 408 (a
  connection that sent nothing is closed without a word); an idle keep-alive
  connection is closed after ``keep_alive`` seconds (uvicorn's own timer);
* past ``max_connections`` open connections in a worker, a new connection's request
  gets 503 (with ``Retry-After``) and the connection is closed;
* whatever is not HTTP gets 400, and a WebSocket upgrade is a plain HTTP request
  (``ws="none"``: the API has no WebSocket).

Each of these answers is JSON ``{"error": ...}`` with ``Access-Control-Allow-Origin:
*``, like every answer of the application, and closes the connection.
"""

from __future__ import annotations

import json

import uvicorn
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from .limits import Limits


def error_answer(status: int, message: str, default_headers=(), extra: bytes = b"") -> bytes:
    """A whole HTTP answer ``{"error": message}`` that closes the connection."""
    body = json.dumps({"error": message}).encode()
    head = [STATUS_LINE[status]]
    for name, value in default_headers:
        head += [name, b": ", value, b"\r\n"]
    head.append(b"content-type: application/json\r\ncache-control: no-store\r\n"
                b"access-control-allow-origin: *\r\nconnection: close\r\n" + extra
                + b"content-length: %d\r\n\r\n" % len(body))
    return b"".join(head) + body


def config(app, limits: Limits = Limits(), **options) -> uvicorn.Config:
    """The uvicorn configuration of ``retro serve`` (and of the tests' live servers)."""
    options = {"log_level": "warning", "access_log": False, "server_header": False,
               "lifespan": "on", **options}
    settings = uvicorn.Config(app, http=BoundedProtocol, ws="none",
                              timeout_keep_alive=limits.keep_alive, **options)
    settings.retro_limits = limits  # read by each connection; pickled with the rest for spawned workers
    return settings


class BoundedProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with the :class:`Limits` of its configuration."""

    def __init__(self, config, *args, **kwargs) -> None:
        super().__init__(config, *args, **kwargs)
        self.limits: Limits = getattr(config, "retro_limits", Limits())

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._timer = None
        self._heads = 0  # heads parsed so far on this connection
        self._awaiting_body = False
        self._over_limit = len(self.connections) > self.limits.max_connections
        self._expect_head()
        self._start_timer(self.limits.head_timeout, self._head_timed_out)

    def connection_lost(self, exc) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def _expect_head(self) -> None:
        self._head_left = self.limits.max_head  # bytes the head may still take; None: complete
        self._head_started = False
        self._line_done = False

    # --- bytes in -------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():
            return
        self._feed(data)
        # A timer only for what these bytes left incomplete: a request that comes
        # whole, as nearly all do, costs no timer (keep-alive pauses have uvicorn's).
        if self._timer is None and not self.transport.is_closing():
            if self._head_left is not None and self._head_started:
                self._start_timer(self.limits.head_timeout, self._head_timed_out)
            elif self._head_left is None and self._awaiting_body:
                self._start_timer(self.limits.body_timeout, self._body_timed_out)

    def _feed(self, data: bytes) -> None:
        if self._head_left is None:
            super().data_received(data)
            return
        self._head_started = True
        if len(data) <= self._head_left:
            self._head_left -= len(data)
            self._line_done = self._line_done or b"\n" in data
            super().data_received(data)
            return
        # Only what the head may still take goes to the parser: if the head does not
        # end within it, the rest is never buffered.
        allowed, heads = self._head_left, self._heads
        self._line_done = self._line_done or b"\n" in data[:allowed]
        super().data_received(data[:allowed])
        if self.transport.is_closing():
            return
        if self._heads == heads:
            if self._line_done:
                self._refuse(431, f"the request head is larger than {self.limits.max_head:,} bytes")
            else:
                self._refuse(414, f"the request line is longer than {self.limits.max_head:,} bytes")
            return
        self._feed(data[allowed:])

    # --- parser callbacks -------------------------------------------------------------

    def on_headers_complete(self) -> None:
        self._heads += 1
        self._head_left = None
        self._stop_timer()
        if self._over_limit:
            self._refuse(503, f"the server has {self.limits.max_connections:,} connections open; "
                         "try again shortly", b"retry-after: 1\r\n")
            return
        self._awaiting_body = True
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self.transport.is_closing():
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self.transport.is_closing():
            return
        self._stop_timer()
        self._awaiting_body = False
        self._expect_head()
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, "the request is not valid HTTP")

    def _unsupported_upgrade_warning(self) -> None:
        """An upgrade request is answered as plain HTTP: nothing to warn about (and no log
        line a client could make the server write at will)."""

    # --- timers and refusals --------------------------------------------------------------

    def _start_timer(self, seconds: float, callback) -> None:
        self._stop_timer()
        self._timer = self.loop.call_later(seconds, callback)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_timed_out(self) -> None:
        self._timer = None
        if not self._head_started:  # nothing sent: no request to answer
            self.transport.close()
            return
        self._refuse(408, f"the request head did not arrive within {self.limits.head_timeout:g} s")

    def _body_timed_out(self) -> None:
        self._timer = None
        if self.cycle is not None and self.cycle.response_started:
            self.transport.close()  # answered already (without reading the whole body)
            return
        self._refuse(408, f"the request body did not arrive within {self.limits.body_timeout:g} s")

    def _refuse(self, status: int, message: str, extra: bytes = b"") -> None:
        """Answer ``status`` with ``message`` and close, whatever the application is doing."""
        self._stop_timer()
        if self.transport.is_closing():
            return
        if self.cycle is not None:  # the application's answer, if any comes, goes nowhere
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self.transport.write(error_answer(status, message, self.server_state.default_headers, extra))
        self.transport.close()
