"""`retro serve` starting and stopping: what it prints when stopped at any moment."""

from __future__ import annotations

import gc
import warnings

import uvicorn.server

from retro.web.server import serve


def test_a_stop_before_the_event_loop_runs_is_quiet(db_ttt, monkeypatch, capsys):
    """Ctrl-C or SIGTERM between the banner and uvicorn's event loop (a signal that
    lands while the loop is being made) stops the server as at any other moment:
    "stopped", exit status 0, and no "coroutine ... was never awaited" warning."""
    def interrupted(coroutine, **options):  # the signal arrives before the loop awaits it
        raise KeyboardInterrupt

    monkeypatch.setattr(uvicorn.server, "asyncio_run", interrupted)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert serve([db_ttt], port=0, share=False) == 0
        gc.collect()
    out = capsys.readouterr()
    assert out.out.startswith("retro serve: tic-tac-toe at http://127.0.0.1:")
    assert out.out.endswith("retro serve: stopped\n") and out.err == ""
    assert not [w for w in caught if "never awaited" in str(w.message)], [str(w.message) for w in caught]
