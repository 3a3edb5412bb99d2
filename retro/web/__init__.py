"""``retro serve``: the solved game over HTTP, as a JSON API and a page to explore and play.

A thin layer over the probe API (:mod:`retro.probe`): values from
:class:`~retro.probe.Database`, moves from :class:`~retro.position.Position`, the
computer's moves from :func:`retro.play.computer_move`, text from :mod:`retro.text`.

* :mod:`retro.web.service`: the API's answers, without HTTP;
* :mod:`retro.web.app`: the Starlette application (routes, errors, caching headers);
* :mod:`retro.web.openapi`: the OpenAPI document and a plain docs page;
* :mod:`retro.web.shared`: one in-memory copy of the values shared by all workers;
* :mod:`retro.web.http`: the HTTP layer, bounded (:mod:`retro.web.limits`);
* :mod:`retro.web.server`: ``retro serve`` (uvicorn, workers, the URL, Ctrl-C);
* ``static/``: the page (HTML, CSS, plain JavaScript; no CDN, no build step).

>>> from retro.web import Service, create_app
>>> app = create_app(Service.open(["db/three-musketeers-5x5.h5"]))  # an ASGI app
"""

from __future__ import annotations

__all__ = ["Service", "create_app", "serve"]


def __getattr__(name: str):
    # Imported on first use: the command line reads retro.web.limits without a server.
    if name == "create_app":
        from .app import create_app as value
    elif name == "serve":
        from .server import serve as value
    elif name == "Service":
        from .service import Service as value
    else:
        raise AttributeError(f"module 'retro.web' has no attribute {name!r}")
    return value
