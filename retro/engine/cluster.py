"""A build's tiers as tasks on a Dask cluster (``retro build --cluster``).

The single-process build solves the tiers one after another. Here each unfinished tier
is a Dask task: it is submitted with the tasks of its child tiers as dependencies, so
the scheduler runs it once they are done and runs independent tiers at once. A task
receives paths, names and its children's digests, never arrays. It reads its child
tiers' checkpoints from the output's folder, which every worker must see (a shared
filesystem), solves its tier with the engine of the single-process build, and writes
its checkpoint there atomically. The driver (the ``retro build`` process) then
assembles the database from the checkpoints, exactly as a single-process build does,
so the tiers' bytes are the same.

Resources: each task declares the memory its tier needs (:meth:`Game.tier_memory`)
as the worker resource ``memory``. A LocalCluster's workers declare their memory
limit; workers of a cluster started by hand declare it with ``dask worker
--resources memory=16e9``. Where the workers declare none, each runs one task per
thread. A task's numba threads are ``threads`` (LocalCluster: the cores divided among
the workers).

Faults: a task whose worker dies is run again by the scheduler (``retries``); a
checkpoint is used only when its digests hold; killing the driver and running the
same command resumes after the finished tiers, with or without a cluster. Dask is an
optional extra (``pip install 'retro[cluster]'``).

Addresses: a scheduler is asked who it is before a client is made, all within
``CONNECT_SECONDS`` (10 s): an address that does not answer in that time, one that is
malformed, or a server that is not a Dask scheduler (an HTTP server, a worker) is a
:class:`BuildError` of one line.

This module schedules; what a task does is the build's (:func:`retro.engine.build.solve_task`,
handed to :func:`run_tiers`), so that it imports nothing of the build and the build
imports it only to run there.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Callable

from ..errors import BuildError

INSTALL = "building on a cluster needs Dask: pip install 'retro[cluster]'"
CONNECT_SECONDS = 10  # to reach a scheduler and hear it answer, before giving up
RETRIES = 2  # a task that fails (not a worker that dies: the scheduler reruns that) runs again


def _dask():
    try:
        import distributed
    except ImportError:
        raise BuildError(INSTALL) from None
    return distributed


class Cluster:
    """A connection to a Dask scheduler (a LocalCluster started here, or a running one)."""

    def __init__(self, address: str, workers: int | None = None,
                 threads: int | None = None, worker_memory: int | None = None,
                 timeout: float | None = None) -> None:
        """Start a LocalCluster of ``workers`` (``address`` ``"local"``) or reach the
        scheduler at ``address`` (or named by a scheduler file) within ``timeout`` seconds
        (default :data:`CONNECT_SECONDS`); raises :class:`BuildError` (one line) when it
        cannot."""
        distributed = _dask()
        timeout = CONNECT_SECONDS if timeout is None else timeout
        self.local = None
        self.threads = threads
        if address == "local":
            workers = workers or 2
            cores = os.cpu_count() or 1
            self.threads = threads or max(1, cores // workers)
            memory = worker_memory or _total_memory() // workers
            import logging

            try:
                self.local = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, memory_limit=memory,
                    resources={"memory": memory}, dashboard_address=":0", silence_logs=logging.CRITICAL)
            except Exception as error:  # any failure to start the processes: one line
                raise BuildError(f"could not start a local Dask cluster: {error}") from None
            target = self.local
        else:
            if workers is not None:
                raise BuildError("--workers is for --cluster local: a running cluster has its own workers")
            target = _address(address)
            # A Client that fails to connect hangs in its finalizer for twice its timeout
            # and prints a traceback there: ask first, so that it is made only to connect.
            _ask_scheduler(address, target, timeout)
        try:
            self.client = distributed.Client(target, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            self.close()
            raise BuildError(f"cannot reach the Dask scheduler at {address}: {_first_line(error)}") from None

    @property
    def dashboard(self) -> str | None:
        try:
            return self.client.dashboard_link
        except Exception:  # a scheduler without a dashboard
            return None

    def worker_resources(self) -> dict:
        """Each worker's address and the resources it declares."""
        info = self.client.scheduler_info(n_workers=-1) if _takes_n_workers(self.client) \
            else self.client.scheduler_info()
        return {address: dict(worker.get("resources") or {}) for address, worker in info["workers"].items()}

    def check_folder(self, folder: Path) -> None:
        """Every worker sees ``folder`` and may write there, else one line naming one that does not."""
        token = uuid.uuid4().hex
        probe = folder / f".retro-cluster-{token}"
        probe.write_text(token)
        try:
            answers = self.client.run(_sees, str(probe), token)
        finally:
            probe.unlink(missing_ok=True)
        if not answers:
            raise BuildError("the Dask cluster has no workers")
        for worker, problem in sorted(answers.items()):
            if problem is not None:
                raise BuildError(f"worker {worker} cannot use the output's folder {folder}: {problem}; "
                                 "the workers need it on a shared filesystem")

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.local is not None:
            self.local.close()


def _address(text: str) -> str:
    """A scheduler's address, or the one a scheduler file names, else one line."""
    if os.path.isfile(text):
        import json

        try:
            address = json.loads(Path(text).read_text())["address"]
        except (OSError, ValueError, KeyError, TypeError):
            raise BuildError(f"{text} is not a Dask scheduler file (JSON with an address)") from None
        return address
    if "://" not in text or not text.split("://", 1)[1]:
        raise BuildError(f"unknown cluster {text!r}: give local, a scheduler address such as "
                         "tcp://HOST:8786, or a scheduler file")
    scheme = text.split("://", 1)[0]
    if scheme not in ("tcp", "tls", "inproc", "ws", "wss", "ucx"):
        raise BuildError(f"unknown cluster address {text!r}: its scheme should be tcp:// or tls://")
    return text


def _ask_scheduler(address: str, target: str, timeout: float) -> None:
    """Connect to ``target`` and ask who it is, all within ``timeout`` seconds; a
    :class:`BuildError` naming ``address`` unless a Dask scheduler answers."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect
    from distributed.security import Security

    async def identity() -> object:
        # connect's own error (refused, unreachable) before the whole ask runs out
        comm = await connect(target, timeout=0.8 * timeout, **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    def ask() -> object:  # a loop of its own: the caller may be running one
        return asyncio.run(asyncio.wait_for(identity(), timeout))

    cannot = f"cannot reach the Dask scheduler at {address}"
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="retro-ask-scheduler") as pool:
            answer = pool.submit(ask).result()
    except (TimeoutError, asyncio.TimeoutError):
        raise BuildError(f"{cannot}: no answer within {timeout:g} s; check the address and "
                         "that the scheduler is running") from None
    except ValueError as error:  # distributed's parser: a malformed address
        raise BuildError(f"{cannot}: {_first_line(error)}") from None
    except OSError as error:  # refused, unreachable, no such host
        raise BuildError(f"{cannot}: {_first_line(error)}") from None
    except Exception:  # garbage where Dask's messages were expected (an HTTP server...)
        raise BuildError(f"{cannot}: what answers there does not speak Dask's protocol; "
                         "give the address of a Dask scheduler (tcp://HOST:8786)") from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if not isinstance(kind, str) or "Scheduler" not in kind:
        what = f"a Dask {kind}, not a scheduler" if isinstance(kind, str) else "not a Dask scheduler"
        raise BuildError(f"{address} is {what}; give the scheduler's address (tcp://HOST:8786)")


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _takes_n_workers(client) -> bool:
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters


def _total_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def _sees(path: str, token: str) -> str | None:
    """On a worker: None when it reads ``token`` at ``path`` and may write beside it."""
    try:
        if Path(path).read_text() != token:
            return "it holds another file there"
        mine = Path(path + ".worker-" + uuid.uuid4().hex)
        mine.write_text(token)
        mine.unlink()
    except OSError as error:
        return error.strerror or type(error).__name__
    return None


# --- the tasks ------------------------------------------------------------------------


def run_tiers(cluster: Cluster, job, checkpoints, todo: list, done: set,
              advance: Callable[[int], None] | None, say: Callable[[str], None],
              task: Callable[..., dict]) -> list[dict]:
    """Solve the tiers ``todo`` on the cluster (``done``: tiers with sound checkpoints),
    each submitted with its unfinished children's tasks as dependencies; returns what
    each task reported, in the order they finished. ``task(spec, tier, threads,
    *children)`` runs on a worker (a module-level function: Dask sends its name), solves
    the tier and returns its report."""
    distributed = _dask()
    game = job.game
    spec = {"game": game.name, "variant": game.variant, "out": str(job.out),
            "max_enemy_men": job.max_enemy_men, "stage": job.stage}
    memory = _memory_per_worker(cluster)
    if memory is None:
        say("the cluster's workers declare no memory resource: each runs one tier per thread")
    futures: dict = {}
    for tier in todo:
        deps = [futures[child] for child in game.child_tiers(tier) if child in futures]
        resources = None
        if memory is not None:
            need = game.tier_memory(tier)
            if need > memory:
                say(f"{game.tier_words(tier)} may need {need / 1e9:.1f} GB, more than a worker's "
                    f"{memory / 1e9:.1f} GB: it gets a whole worker")
            resources = {"memory": min(need, memory)}
        futures[tier] = cluster.client.submit(
            task, spec, tier, cluster.threads, *deps, key=f"retro-{job.out.name}-{game.tier_name(tier)}-"
            f"{uuid.uuid4().hex[:8]}", resources=resources, retries=RETRIES, pure=False)
    reports = []
    finished = set(done)
    tier_of = {future.key: tier for tier, future in futures.items()}
    try:
        for future in distributed.as_completed(list(futures.values()), loop=cluster.client.loop):
            tier = tier_of[future.key]
            try:
                report = future.result()
            except Exception as error:
                raise BuildError(f"{game.tier_words(tier)} failed on the cluster: "
                                 f"{str(error).splitlines()[0] if str(error) else type(error).__name__}; "
                                 "run the same command again to resume after the finished tiers") from None
            reports.append(report)
            finished.add(tier)
            checkpoints.release_finished(finished)
            if advance is not None:
                advance(game.positions_in(tier))
    except BaseException:
        for future in futures.values():
            future.cancel()
        raise
    return reports


def _memory_per_worker(cluster: Cluster) -> int | None:
    """The least memory a worker declares, or None when some declare none."""
    declared = [resources.get("memory") for resources in cluster.worker_resources().values()]
    if not declared or any(m is None for m in declared):
        return None
    return int(min(declared))
