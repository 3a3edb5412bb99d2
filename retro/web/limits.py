"""The bounds of ``retro serve`` on each client (:class:`Limits`), apart from the HTTP
layer that applies them (:mod:`retro.web.http`) so that the command line can show
their defaults without importing a server."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What one client may hold of a worker; all but ``max_head`` are ``retro serve`` options."""

    max_head: int = 32 << 10  # bytes of the request line, and of the whole head
    head_timeout: float = 10.0  # seconds to receive a request head
    body_timeout: float = 30.0  # seconds to receive a body, from the end of its head
    keep_alive: float = 5.0  # seconds an idle keep-alive connection stays open
    max_connections: int = 500  # open connections per worker
