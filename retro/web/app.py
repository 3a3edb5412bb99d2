"""The Starlette application: API v1, the page, errors and caching headers.

Every route answers JSON (or the page's own files) and nothing else, and every
answer carries ``Access-Control-Allow-Origin: *`` (so do the HTTP layer's own,
:mod:`retro.web.http`):

* errors are ``{"error": "<one line>"}``, with retro's own words for bad input
  (400), 404 for an unknown path (a trailing slash too: never a redirect) or a
  board size not served, 405 for a method a path does not take, 413 for a body
  over 1 MB or a batch over 10,000 positions; anything unexpected is logged here
  and answered with a plain 400 line, never a 500, a traceback or a file name;
* the API's paths and /health refuse query parameters they do not take; the page
  and its files take any (the page reads its own);
* GET answers of the API carry ``Cache-Control`` and an ``ETag`` derived from the
  served databases' digest and retro's version (``If-None-Match`` gets 304).

Single probes run in the event loop's thread (tens of microseconds, no lock around
the databases' chunk caches); a batch runs in a thread of its own, one at a time,
so that the loop keeps answering during a batch on disk (seconds). Requests are
bounded before any work: query strings of at most 2 KiB, positions of at most 100
characters, bodies of at most 1 MB, read incrementally.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import logging
import math
import re
from collections import OrderedDict
from contextlib import asynccontextmanager
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from ..errors import BoardMismatchError, PositionError, PositionNotInDatabaseError, quoted
from .openapi import docs_html, openapi
from .service import (
    MAX_BATCH,
    RequestError,
    Service,
    TooLargeError,
    Unwritable,
    content_tag,
    public_error,
)
from .shared import POLL_SECONDS

log = logging.getLogger("retro.web")

MAX_BODY = 1 << 20  # bytes of a POST body
MAX_QUERY = 2048  # bytes of a query string
MAX_NUMBER_DIGITS = 100  # characters of a number in a body that are converted
ANSWER_CACHE_BYTES = 16 << 20  # recent GET answers kept per worker
API_CACHE = "public, max-age=3600"  # values never change for a given ETag; revalidate hourly
PAGE_CACHE = "no-cache"  # the page: always revalidated (a cheap 304)
ASSET_CACHE = "public, max-age=31536000, immutable"  # assets are named by their content
JSON = "application/json"
HTML = "text/html; charset=utf-8"
CORS = {"Access-Control-Allow-Origin": "*"}
PREFLIGHT = {
    **CORS,
    "Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
    "Access-Control-Max-Age": "86400",
}
SECURITY = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                               "base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
JS = "text/javascript; charset=utf-8"
# The page's files: its modules (app.js imports the others) and its style sheet.
STATIC = {"app.js": JS, "api.js": JS, "notation.js": JS, "board.js": JS, "chart.js": JS, "pieces.js": JS,
          "style.css": "text/css; charset=utf-8"}
# A module's imports of its neighbours, ``from './board.js'``: the server adds each
# one's version (?v=<content tag>), so that every asset can be cached for good.
IMPORT = re.compile(r"""(\bfrom\s*['"]\./)([\w-]+\.js)(['"])""")
README = "README.md"  # served as a page file too: /static/README.md, plain text


class AnswerCache:
    """The latest GET answers (their JSON), up to a number of bytes: a position's answer
    never changes while the server runs, and popular positions are asked again and again."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes, self.bytes = max_bytes, 0
        self._items: OrderedDict[tuple, bytes] = OrderedDict()

    def get(self, key: tuple) -> bytes | None:
        body = self._items.get(key)
        if body is not None:
            self._items.move_to_end(key)
        return body

    def put(self, key: tuple, body: bytes) -> None:
        size = len(body) + len(key[1]) + 100
        if size > self.max_bytes // 16 or key in self._items:
            return
        self._items[key] = body
        self.bytes += size
        while self.bytes > self.max_bytes:
            old_key, old = self._items.popitem(last=False)
            self.bytes -= len(old) + len(old_key[1]) + 100


class JSONAnswer(Response):
    """A 200 JSON answer whose headers were encoded once, in advance: Starlette's
    :meth:`Response.init_headers` costs about as much as a probe."""

    def __init__(self, body: bytes, raw_headers: list[tuple[bytes, bytes]]) -> None:
        self.status_code, self.background, self.body = 200, None, body
        self.raw_headers = [*raw_headers, (b"content-length", str(len(body)).encode())]


def _raw_headers(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    return [(key.lower().encode("latin-1"), value.encode("latin-1")) for key, value in headers.items()]


class NotFound(RequestError):
    status = 404


class NotAllowed(RequestError):
    status = 405


def create_app(service: Service, *, warm: bool = True, close: bool = False) -> Starlette:
    """The ASGI application serving ``service``.

    ``warm`` runs every kernel once at startup (the numba cache makes that fast), so
    the first request is as fast as the next; ``close`` closes the databases at
    shutdown.
    """
    secrets = service.paths
    assets, page = _static_files()
    readme = _readme()

    def error(exc: BaseException, *, headers: dict | None = None) -> Response:
        status, message = public_error(exc, secrets)
        if not isinstance(exc, (RequestError, PositionError, BoardMismatchError,
                                PositionNotInDatabaseError)):
            app.state.unexpected_errors += 1
            log.error("could not answer a request", exc_info=exc)
        return Response(json.dumps({"error": message}).encode(), status,
                        {"Cache-Control": "no-store", **CORS, **(headers or {})}, media_type=JSON)

    api_headers = _raw_headers({"Cache-Control": API_CACHE, **CORS, "ETag": service.etag,
                                "Content-Type": JSON})

    def answer(request: Request, body: bytes, *, cache: str = API_CACHE,
               etag: str | None = None) -> Response:
        if cache == API_CACHE and etag == service.etag:  # the hot path: a probe, a line
            if _matches(request.headers.get("if-none-match"), etag):
                return Response(None, 304, {"Cache-Control": cache, **CORS, "ETag": etag})
            return JSONAnswer(body, api_headers)
        headers = {"Cache-Control": cache, **CORS}
        if etag is None:
            return Response(body, 200, headers, media_type=JSON)
        return _revalidated(request, body, JSON, {**headers, "ETag": etag})

    answers = AnswerCache(ANSWER_CACHE_BYTES)

    def api(params: tuple[str, ...], compute):
        """A GET endpoint of the API: checked parameters in, cacheable JSON out."""

        async def endpoint(request: Request) -> Response:
            if request.method == "OPTIONS":
                return Response(None, 204, PREFLIGHT)
            key = (request.scope["path"], request.scope["query_string"])
            body = answers.get(key)
            if body is not None:
                return answer(request, body, etag=service.etag)
            try:
                query = _query(request, params)
                body, tagged = compute(query)
            except Exception as exc:  # noqa: BLE001 - the edge: everything becomes JSON
                return error(exc)
            if tagged:
                answers.put(key, body)
                return answer(request, body, etag=service.etag)
            # Unseeded play: any of the equally good moves; an ETag for revalidation only.
            return answer(request, body, cache="no-cache", etag="W/" + service.etag)

        return endpoint

    probe_get = api(("position", "game"),
                    lambda q: (service.probe(q.get("position"), q.get("game")), True))
    line = api(("position", "game"), lambda q: (service.line(q.get("position"), q.get("game")), True))
    standard = api(("fen",), lambda q: (service.tablebase(q.get("fen")), True))
    play = api(("position", "seed", "game"),
               lambda q: (service.play(q.get("position"), q.get("seed"), q.get("game")),
                          q.get("seed") is not None))

    batch_turns: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}

    async def probe(request: Request) -> Response:
        if request.method != "POST":
            return await probe_get(request)
        try:
            _query(request, ())
            items, game = _positions(await _body(request))
            # In a thread, so the event loop answers other requests meanwhile (a batch
            # on disk takes seconds); one at a time, so that a queue of batches waits
            # here rather than in threads that all compete for the interpreter.
            async with batch_turns.setdefault(asyncio.get_running_loop(), asyncio.Lock()):
                body = await run_in_threadpool(service.batch, items, game)
        except ClientDisconnect:
            return Response(None, 400)
        except Exception as exc:  # noqa: BLE001
            return error(exc)
        return Response(body, 200, {"Cache-Control": "no-store", **CORS}, media_type=JSON)

    async def info(request: Request) -> Response:
        if request.method == "OPTIONS":
            return Response(None, 204, PREFLIGHT)
        try:
            _query(request, ())
            body = json.dumps(service.info(), separators=(",", ":")).encode()
        except Exception as exc:  # noqa: BLE001
            return error(exc)
        # "values" and "loading" say whether the shared table has loaded yet: revalidate
        # every time, against a tag that changes with them.
        return answer(request, body, cache="no-cache", etag=service.info_etag())

    api_spec = openapi()
    spec = json.dumps(api_spec, indent=1).encode()
    docs = docs_html(api_spec).encode()
    spec_tag, docs_tag = content_tag(spec), content_tag(docs)

    async def openapi_json(request: Request) -> Response:
        try:
            _query(request, ())
        except RequestError as exc:
            return error(exc)
        return answer(request, spec, cache=PAGE_CACHE, etag=spec_tag)

    async def docs_page(request: Request) -> Response:
        try:
            _query(request, ())
        except RequestError as exc:
            return error(exc)
        return _revalidated(request, docs, HTML, {
            "ETag": docs_tag, "Cache-Control": PAGE_CACHE, **SECURITY, **CORS,
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})

    async def health(request: Request) -> Response:
        try:
            _query(request, ())
        except RequestError as exc:
            return error(exc)
        return Response(b'{"status":"ok"}', 200, {"Cache-Control": "no-store", **CORS},
                        media_type=JSON)

    # The page and its files take any query: the page reads its own (?start=...&moves=...)
    # and asset URLs carry a version (?v=...).
    async def index(request: Request) -> Response:
        body, tag = page
        return _revalidated(request, body, HTML, {"ETag": tag, "Cache-Control": PAGE_CACHE,
                                                  **SECURITY, **CORS})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name == README:  # its text changes only with the package: revalidated, not immutable
            body, tag = readme
            return _revalidated(request, body, "text/plain; charset=utf-8", {
                "ETag": tag, "Cache-Control": PAGE_CACHE, "X-Content-Type-Options": "nosniff", **CORS})
        if name not in assets:
            return error(NotFound("no such file"))
        body, tag = assets[name]
        return _revalidated(request, body, STATIC[name], {
            "ETag": tag, "Cache-Control": ASSET_CACHE, "X-Content-Type-Options": "nosniff", **CORS})

    async def http_error(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 405:
            allowed = (exc.headers or {}).get("Allow", "")
            return error(NotAllowed(f"method {request.method} is not allowed here; use {allowed}"),
                         headers={"Allow": allowed})
        if exc.status_code == 404:
            return error(NotFound("no such path; the API is described at "
                                  "/api/v1/openapi.json and /api/v1/docs"))
        return error(RequestError(exc.detail))

    async def unexpected(request: Request, exc: Exception) -> Response:
        return error(exc)

    async def pick_up_shared_values() -> None:
        while service.waiting():
            await asyncio.sleep(POLL_SECONDS)
            service.refresh()

    @asynccontextmanager
    async def lifespan(app):
        if warm:
            service.warm()
        waiter = asyncio.create_task(pick_up_shared_values())
        yield
        waiter.cancel()
        if close:
            service.close()

    api_methods = ["GET", "HEAD", "OPTIONS"]
    routes = [
        Route("/api/v1/probe", probe, methods=["GET", "HEAD", "POST", "OPTIONS"]),
        Route("/api/v1/play", play, methods=api_methods),
        Route("/api/v1/line", line, methods=api_methods),
        Route("/api/v1/info", info, methods=api_methods),
        Route("/standard", standard, methods=api_methods),  # lichess's tablebase API, for chess
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/", index, methods=["GET", "HEAD"]),
        Route("/static/{name}", static, methods=["GET", "HEAD"]),
        Route("/api/v1/openapi.json", openapi_json, methods=["GET", "HEAD"]),
        Route("/api/v1/docs", docs_page, methods=["GET", "HEAD"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, Exception: unexpected})
    # /health/ is not /health: a 404 like any unknown path, never a redirect (whose
    # Location Starlette would build from the Host header the client sent).
    app.router.redirect_slashes = False
    app.state.service = service
    app.state.unexpected_errors = 0  # answers that had to hide an exception (see the log)
    return app


def _readme() -> tuple[bytes, str]:
    """retro's README (the installed package's long description), for the page's link."""
    try:
        metadata = importlib.metadata.metadata("retro")
        # The standard library gives the README as the message's body; the backport
        # importlib_metadata (which Dask's import puts in its place) as a header.
        text = metadata.get_payload() or metadata.get("Description")
    except importlib.metadata.PackageNotFoundError:
        text = None
    if not text or not text.strip():
        text = ("retro: games strongly solved by retrograde analysis. The README is not "
                "installed with this copy.\n")
    body = text.encode("utf-8")
    return body, content_tag(body)


def _revalidated(request: Request, body: bytes, media_type: str, headers: dict) -> Response:
    """``body`` with ``headers``, or 304 when the client already holds its ``ETag``."""
    if _matches(request.headers.get("if-none-match"), headers["ETag"]):
        return Response(None, 304, headers)
    return Response(body, 200, headers, media_type=media_type)


def _matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header matches ``etag`` (weak comparison)."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    bare = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == bare for tag in header.split(","))


def _query(request: Request, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query parameters, each at most once and each one the endpoint takes."""
    raw = request.scope.get("query_string", b"")
    if len(raw) > MAX_QUERY:
        raise RequestError(f"the query string is too long (at most {MAX_QUERY:,} bytes)")
    if b"&" not in raw and b"%" not in raw and b"+" not in raw and b"=" in raw:
        # The common request, one parameter with nothing escaped, split as parse_qsl would.
        items = [raw.decode("latin-1").split("=", 1)]
    else:
        items = request.query_params.multi_items()
    query: dict[str, str] = {}
    for key, value in items:
        if key not in allowed:
            takes = f"it takes {', '.join(allowed)}" if allowed else "it takes none"
            raise RequestError(f"unknown parameter {quoted(key, 30)} for {request.url.path}; {takes}")
        if key in query:
            raise RequestError(f"parameter {quoted(key, 30)} is given more than once")
        query[key] = value
    return query


async def _body(request: Request) -> bytes:
    """The request body, read incrementally and refused beyond MAX_BODY bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > MAX_BODY:
        raise TooLargeError(f"the body is larger than {MAX_BODY:,} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise TooLargeError(f"the body is larger than {MAX_BODY:,} bytes")
    return bytes(body)


def _positions(body: bytes) -> tuple[list, str | None]:
    """The ``positions`` list of a batch body ``{"positions": [...], "game": ...}``, and its
    game (None when the body names none: each position's notation says it)."""
    usage = ('the body must be a JSON object {"positions": [...]} of at most 10,000 positions '
             '(and "game", a game\'s name, where the notation alone does not say)')
    if not body.strip():
        raise RequestError(f"empty body: {usage}")
    try:
        data = json.loads(body, parse_constant=_not_json, parse_int=_integer, parse_float=_float)
    except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, nesting too deep
        if isinstance(exc, json.JSONDecodeError):
            detail = f"{exc.msg.lower()} at line {exc.lineno}, column {exc.colno}"
        elif isinstance(exc, UnicodeDecodeError):
            detail = "not UTF-8"
        elif isinstance(exc, RecursionError):
            detail = "nested too deeply"
        else:
            detail = str(exc) if isinstance(exc, NotJSONError) else "not JSON"
        raise RequestError(f"the body is not valid JSON ({detail}): {usage}") from None
    if not isinstance(data, dict):
        raise RequestError(usage)
    unknown = sorted(set(data) - {"positions", "game"})
    if unknown:
        raise RequestError(f"unknown field {quoted(unknown[0], 30)}: {usage}")
    items = data.get("positions")
    if not isinstance(items, list):
        raise RequestError(usage)
    game = data.get("game")
    if game is not None and not isinstance(game, str):
        raise RequestError(f"game must be a game's name: {usage}")
    if len(items) > MAX_BATCH:
        raise TooLargeError(f"at most {MAX_BATCH:,} positions per batch; this one has {len(items):,}")
    return items, game


class NotJSONError(ValueError):
    """A constant Python's JSON reader accepts but the standard does not."""


def _not_json(constant: str):
    """``NaN`` and ``Infinity`` are not JSON: refuse them as the standard does."""
    raise NotJSONError(f"{constant} is not a JSON value")


def _integer(text: str) -> int | Unwritable:
    # Python refuses to convert more than 4,300 digits (with a message naming sys);
    # a position is never a number, so any long one is simply not echoed.
    return int(text) if len(text) <= MAX_NUMBER_DIGITS else Unwritable()


def _float(text: str) -> float | Unwritable:
    value = float(text)
    return value if math.isfinite(value) else Unwritable()  # 1e400 would echo as Infinity


def _static_files() -> tuple[dict[str, tuple[bytes, str]], tuple[bytes, str]]:
    """The page's files, read once; the page names each asset by its content hash, and
    each module its imports likewise (an asset's tag covers the tags it names)."""
    folder = resources.files("retro.web") / "static"
    assets: dict[str, tuple[bytes, str]] = {}

    def load(name: str, importers: tuple[str, ...] = ()) -> tuple[bytes, str]:
        if name not in assets:
            if name not in STATIC or name in importers:
                raise ValueError(f"static/{importers[-1]} imports {name}: not a page file, or a cycle")
            body = (folder / name).read_bytes()
            if name.endswith(".js"):
                body = IMPORT.sub(lambda m: m[1] + m[2] + "?v=" + load(m[2], (*importers, name))[1].strip('"')
                                  + m[3], body.decode("utf-8")).encode("utf-8")
            assets[name] = (body, content_tag(body, 16))
        return assets[name]

    for name in STATIC:
        load(name)
    html = (folder / "index.html").read_text(encoding="utf-8")
    for name, (_, tag) in assets.items():
        html = html.replace(f'"static/{name}"', f'"static/{name}?v={tag.strip(chr(34))}"')
    body = html.encode()
    return assets, (body, content_tag(body, 16))
