"""Builds on a Dask cluster (issue 27): a LocalCluster of 2 worker processes builds the
same databases as one process, finishes when a worker is killed mid-task, and refuses
bad addresses in one line without writing anything."""

from __future__ import annotations

import os
import signal
import threading
import time

import h5py
import pytest

distributed = pytest.importorskip("distributed", reason="pip install -e '.[test]' installs Dask")

from retro.cli import main  # noqa: E402
from retro.db.format import DatabaseFile  # noqa: E402
from retro.engine.build import build  # noqa: E402
from retro.errors import BuildError  # noqa: E402



@pytest.fixture(scope="module")
def cluster():
    """Two worker processes, one thread each, declaring memory as a resource; in the
    tier ``moving_3_3`` of nine men's morris, a task sleeps 2 s first (the test hook)."""
    import logging

    local = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit=2 << 30,
        resources={"memory": 2 << 30}, dashboard_address=":0", silence_logs=logging.ERROR,
        env={"RETRO_TEST_SLOW_TIER": "moving_3_3:2"})
    yield local
    local.close()


def chunks(path):
    """Every tier's chunks as stored (compressed bytes) and its SHA-256."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, node):
            if isinstance(node, h5py.Dataset) and node.chunks:
                out[name] = ([node.id.read_direct_chunk(node.id.get_chunk_info(i).chunk_offset)[1]
                              for i in range(node.id.get_num_chunks())], node.attrs.get("sha256"))
        f.visititems(visit)
    return out


def same_database(a, b) -> None:
    assert DatabaseFile(a).content_digest() == DatabaseFile(b).content_digest()
    assert chunks(a) == chunks(b)


def test_the_cluster_builds_the_same_bytes(cluster, db_6mm, db_9mm3, tmp_path, capsys):
    out = tmp_path / "six.h5"
    assert main(["build", "--game", "six-mens-morris", "--out", str(out), "--cluster",
                 cluster.scheduler_address, "--quiet"]) == 0
    assert "Dask dashboard: http" in capsys.readouterr().err  # printed once
    same_database(out, db_6mm)
    nine = build("nine-mens-morris", tmp_path / "nine-3.h5", variant="3", cluster=cluster.scheduler_address,
                 progress=False)
    same_database(nine.path, db_9mm3)
    assert not (tmp_path / "nine-3.h5.partial").exists()


def test_a_worker_killed_mid_task_and_the_build_still_finishes(cluster, db_9mm3, tmp_path):
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)
    pids = client.run(os.getpid)
    killed = []

    def kill_the_slow_task() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            for worker, keys in client.processing().items():
                if any("moving_3_3-" in str(key) for key in keys):
                    time.sleep(0.5)  # in its sleep, before it writes anything
                    os.kill(pids[worker], signal.SIGKILL)
                    killed.append(worker)
                    return
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_the_slow_task)
    watcher.start()
    try:
        nine = build("nine-mens-morris", tmp_path / "nine-3.h5", variant="3", cluster=cluster.scheduler_address,
                     progress=False)
    finally:
        watcher.join()
        client.close()
    assert killed, "the slow task was never seen on a worker"
    same_database(nine.path, db_9mm3)


@pytest.mark.parametrize("address, words", [
    ("tcp://127.0.0.1:1", "cannot reach the Dask scheduler at tcp://127.0.0.1:1"),
    ("nowhere", "unknown cluster 'nowhere': give local, a scheduler address"),
    ("http://127.0.0.1:8786", "its scheme should be tcp:// or tls://"),
])
def test_a_bad_address_is_one_line_and_nothing_is_written(address, words, tmp_path, capsys, monkeypatch):
    from retro.engine import cluster as module

    monkeypatch.setattr(module, "CONNECT_SECONDS", 1)  # a refused connection is retried until then
    out = tmp_path / "folder" / "six.h5"
    assert main(["build", "--game", "tic-tac-toe", "--out", str(out), "--cluster", address]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "folder").exists()


@pytest.fixture
def listening():
    """``listening(reply)``: the address of a local server that accepts connections and
    answers each with ``reply`` (b"": says nothing), as a server that is not Dask's."""
    import socket

    servers = []

    def start(reply: bytes) -> str:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        servers.append(server)

        def serve() -> None:
            held = []
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:  # closed: the test is over
                    break
                held.append(conn)  # kept open: a silent server never hangs up
                if reply:
                    try:
                        conn.recv(1024)
                        conn.sendall(reply)
                    except OSError:
                        pass
            for conn in held:
                conn.close()

        threading.Thread(target=serve, daemon=True).start()
        return f"tcp://127.0.0.1:{server.getsockname()[1]}"

    yield start
    for server in servers:
        server.close()


HTTP = b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found"


@pytest.mark.parametrize("reply, words", [
    (HTTP, "what answers there does not speak Dask's protocol; give the address of a Dask scheduler"),
    (b"", "no answer within 1 s; check the address and that the scheduler is running"),
    (None, "invalid address '[::1'"),  # tcp://[::1, malformed
])
def test_what_is_not_a_scheduler_is_one_line_within_the_time_said(reply, words, listening, tmp_path,
                                                                    capsys, monkeypatch):
    """An HTTP server, a server that never answers, a malformed address: one line within
    CONNECT_SECONDS (1 s here), never distributed's traceback after 25 s."""
    from retro.engine import cluster as module

    monkeypatch.setattr(module, "CONNECT_SECONDS", 1)
    address = "tcp://[::1" if reply is None else listening(reply)
    out = tmp_path / "folder" / "t.h5"
    assert main(["build", "--game", "tic-tac-toe", "--out", str(out), "--cluster", address]) == 2
    import gc

    gc.collect()  # a half-made Client would print a traceback from its finalizer here
    err = capsys.readouterr().err
    assert err == f"retro: error: cannot reach the Dask scheduler at {address}: {words}\n" or (
        words in err and err.count("\n") == 1), err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert not (tmp_path / "folder").exists()


def test_the_ask_waits_no_longer_than_the_bound_it_names(listening):
    """The whole ask is bounded: a server that accepts and never answers ends it."""
    from retro.engine.cluster import Cluster

    with pytest.raises(BuildError, match=r"no answer within 0\.5 s"):
        Cluster(listening(b""), timeout=0.5)


@pytest.mark.parametrize("workers", [0, 3, 1000])
def test_local_workers_are_bounded_by_the_cores(workers, tmp_path, monkeypatch):
    """More worker processes than cores only add processes (1000 leaked hundreds of
    semaphores): refused before any starts."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(distributed, "LocalCluster", None)  # never reached
    with pytest.raises(BuildError, match=rf"^--workers must be between 1 and 2 \(the cores of this "
                                         rf"machine\), not {workers}$"):
        build("tic-tac-toe", tmp_path / "folder" / "t.h5", cluster="local", workers=workers)
    assert not (tmp_path / "folder").exists()


def test_workers_need_a_local_cluster_and_dask_is_an_extra(tmp_path, capsys, monkeypatch):
    assert main(["build", "--game", "tic-tac-toe", "--out", str(tmp_path / "t.h5"), "--workers", "2"]) == 2
    assert "give --cluster local too" in capsys.readouterr().err
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)  # as if not installed
    assert main(["build", "--game", "tic-tac-toe", "--out", str(tmp_path / "t.h5"), "--cluster", "local"]) == 2
    assert "pip install 'retro[cluster]'" in capsys.readouterr().err
    assert not (tmp_path / "t.h5").exists()


def test_a_worker_that_cannot_see_the_folder_is_named(tmp_path):
    from retro.engine.cluster import Cluster

    class Blind:  # a client whose one worker sees another filesystem
        def run(self, function, *args):
            return {"tcp://10.0.0.7:4242": "No such file or directory"}

    cluster = Cluster.__new__(Cluster)
    cluster.client, cluster.local = Blind(), None
    with pytest.raises(BuildError, match="worker tcp://10.0.0.7:4242 cannot use the output's folder .*: No such "
                                         "file or directory; the workers need it on a shared filesystem"):
        cluster.check_folder(tmp_path)
    assert list(tmp_path.iterdir()) == []  # the probe file is gone


def test_checkpoints_finished_out_of_order_are_kept_by_a_single_process_resume(db_ttt, tmp_path,
                                                                                interrupt_at, monkeypatch):
    """As a killed cluster build leaves them: tiers after a gap are done. The same command
    without a cluster solves only the gap, and the database is the same."""
    import retro.engine.build as builder
    from retro import games

    game = games.get("tic-tac-toe")
    tiers = list(game.tiers())
    out = tmp_path / "ttt.h5"
    interrupt_at(tiers[-1])
    with pytest.raises(KeyboardInterrupt):
        build(game, out, progress=False)
    interrupt_at(None)
    partial = tmp_path / "ttt.h5.partial"
    (partial / f"{game.tier_name(tiers[2])}.h5").unlink()  # unfinished, with later tiers finished
    assert len(list(partial.glob("*.h5"))) == len(tiers) - 2
    solved = []
    original = builder._solve_tier

    def counting(game_, tier, children, advance):
        solved.append(game_.tier_name(tier))
        return original(game_, tier, children, advance)

    monkeypatch.setattr(builder, "_solve_tier", counting)
    build(game, out, progress=False)
    assert solved == [game.tier_name(tiers[2]), game.tier_name(tiers[-1])]
    same_database(out, db_ttt)
