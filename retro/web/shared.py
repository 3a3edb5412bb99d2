"""One in-memory copy of a database's values, shared by every server worker.

On disk a probe decompresses the chunks it touches; the positions a server is asked
about are spread over the whole table, so most probes would decompress a cold chunk
(0.3-1.2 ms) and a batch of 10,000 positions takes seconds. In memory a probe is an
array lookup, but a private copy per worker (1.3 GB for 5x5) multiplies the memory
by the number of workers. So the values are decompressed once, into an anonymous
shared memory file (``memfd_create``) that the serving process owns:

* :class:`SharedValues` (in the ``retro serve`` process) creates the memory file of a
  database; :class:`Loader` starts one low-priority process (:mod:`retro.web.loader`)
  that fills each file and then writes a trailer saying so;
* each worker maps the file read-only-in-effect (a private copy-on-write mapping that
  nothing writes) through ``/proc/<pid>/fd/<fd>`` and, once the trailer is there (it
  looks every :data:`POLL_SECONDS`), switches its database from disk to memory
  (:meth:`Attachment.poll`). Until then the worker answers from disk, so the server
  answers at once after starting.

The kernel frees the memory when the last process holding the file or a mapping of it
exits, even after ``kill -9``: nothing is left behind in ``/dev/shm`` or on disk.
Linux only; elsewhere (or when anything here fails) the workers stay on disk.
"""

from __future__ import annotations

import logging
import mmap
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from ..errors import DatabaseError
from ..db.database import open_database
from ..db.format import DatabaseFile

log = logging.getLogger("retro.web")

TRAILER = 4096  # bytes after the values: the ready mark, then the database digest
READY = b"retro-shared-values-v1:"
FAILED = b"retro-shared-values-failed"  # the server gave up loading: workers stay on disk
POLL_SECONDS = 0.25  # how often a waiting worker looks at the trailer
# The loader's first lines: die with the server (argv[1]) before anything else, as
# die_with_parent does (inlined: importing retro takes long enough for a server to
# die meanwhile), then lower its priority, then load.
LOADER = ("import ctypes, os, sys\ntry:\n    ctypes.CDLL(None).prctl(1, 9)\nexcept (OSError, AttributeError):\n"
          "    pass\nif os.getppid() != int(sys.argv[1]):\n    sys.exit(1)\ntry:\n    os.nice(10)\n"
          "except OSError:\n    pass\nfrom retro.web.loader import main\nsys.exit(main(sys.argv[2:]))")


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Linux: have the kernel send ``sig`` to this process when its parent dies (even by
    ``kill -9``), so that no process of a server outlives it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, sig)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def release_free_memory() -> None:
    """Give the memory this process has freed back to the system (glibc's
    ``malloc_trim``): the chunks a worker decompressed while it answered from disk are
    freed when it switches to the shared values, but glibc keeps most of them in its
    heap (they were small enough not to be mapped on their own), about 150 MB a worker
    after a load at start-up. Elsewhere nothing happens."""
    import gc

    gc.collect()  # what a cycle holds (an HDF5 dataset and its chunk cache) is freed first
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def supported() -> bool:
    """Whether this system can share values between processes (Linux memfd)."""
    return hasattr(os, "memfd_create") and Path("/proc/self/fd").is_dir()


def file_values(database: Path) -> int:
    """Bytes of a database's in-memory table, from its layers' shapes alone (no tables)."""
    file = DatabaseFile(database, cache_bytes=0)
    try:
        return sum(int(np.prod(file.dataset(k).shape)) for k in range(file.max_enemy_men + 1))
    finally:
        file.close()


class SharedValues:
    """The shared memory file of one database, and the loader process that fills it."""

    def __init__(self, database: Path, name: str, digest: str) -> None:
        self.database = Path(database)
        self.digest = digest
        self.nbytes = file_values(database)
        self.fd = os.memfd_create(f"retro-{name}-values", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, self.nbytes + TRAILER)
        self.path = f"/proc/{os.getpid()}/fd/{self.fd}"

    def ready(self) -> bool:
        """Whether the loader has filled the memory (its trailer says so)."""
        mark = READY + self.digest.encode()
        return self.fd >= 0 and os.pread(self.fd, len(mark), self.nbytes) == mark

    def give_up(self) -> None:
        """Tell the workers that these values will not load (they stay on disk)."""
        if self.fd >= 0 and not self.ready():
            os.pwrite(self.fd, FAILED, self.nbytes)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class Loader:
    """One process that fills the shared memory of every database, one after the other.

    It runs at low priority (lowered before it imports anything, so the workers start
    first), in a session of its own (Ctrl-C goes to the server, which ends it), and
    dies with the server, even one killed with ``kill -9``. A thread of the server
    watches it: a loader killed before it finished is logged and started again, up
    to :attr:`RETRIES` times; a loader that failed (it says why) or that was killed
    too often is logged too, and the workers are told to stay on disk.
    """

    RETRIES = 2

    def __init__(self, shared: list[SharedValues], names: list[str] | None = None,
                 retries: int = RETRIES) -> None:
        self.shared, self.retries = shared, retries
        self.names = names or [values.database.name for values in shared]
        self.attempts = 0
        self._lock = threading.Lock()
        self._stopping = False
        self.process = self._start()
        self._watcher = threading.Thread(target=self._watch, name="retro-loader-watch", daemon=True)
        self._watcher.start()

    def _start(self) -> subprocess.Popen:
        self.attempts += 1
        arguments = [str(a) for values, name in zip(self.shared, self.names) if not values.ready()
                     for a in (values.database, values.path, values.digest, name)]
        return subprocess.Popen([sys.executable, "-c", LOADER, str(os.getpid()), *arguments],
                                stdin=subprocess.DEVNULL, start_new_session=True)

    def _watch(self) -> None:
        while True:
            code = self.process.wait()
            with self._lock:
                missing = [values for values in self.shared if not values.ready()]
                if self._stopping or not missing:
                    return
                if code < 0 and self.attempts <= self.retries:
                    _say(f"the loader of the shared values was killed ({_signal_name(-code)}) "
                         f"before it finished; starting it again ({self.attempts} of {self.retries})")
                    self.process = self._start()
                    continue
                if code < 0:
                    _say(f"the loader of the shared values was killed ({_signal_name(-code)}); "
                         f"after {self.attempts} attempts, answering from disk")
                for values in missing:  # (a loader that failed has said why)
                    values.give_up()
                return

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the loader (and any retry) has finished within ``timeout`` seconds."""
        self._watcher.join(timeout)
        return not self._watcher.is_alive()

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._watcher.join(5)


def _say(message: str) -> None:
    print(f"retro serve: {message}", file=sys.stderr, flush=True)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def fill(database: Path, target: str, digest: str) -> float:
    """Decompress every layer of ``database`` into the memory file ``target``; seconds.

    :meth:`retro.probe.Database.load` fills it, in the layout it reads from; the
    trailer is written last.
    """
    start = time.perf_counter()
    with open_database(database) as db:
        if db.digest != digest:  # another file put in its place: never fill in its values
            raise DatabaseError(f"{database} changed since the server started")
        nbytes = db.table_size
        fd = os.open(target, os.O_RDWR)
        try:
            if os.fstat(fd).st_size != nbytes + TRAILER:
                raise DatabaseError(f"the shared memory for {database} has the wrong size")
            memory = mmap.mmap(fd, nbytes + TRAILER)
        finally:
            os.close(fd)
        flat = np.frombuffer(memory, dtype=np.uint8)
        db.load(into=flat[:nbytes])
        mark = READY + digest.encode()
        flat[nbytes:nbytes + len(mark)] = np.frombuffer(mark, dtype=np.uint8)
    del flat  # no array may point into the mapping when it closes
    memory.close()
    return time.perf_counter() - start


class Attachment:
    """A worker's view of the shared values of one database, until they are ready."""

    def __init__(self, path: str, nbytes: int, digest: str) -> None:
        self.path, self.nbytes, self.digest = path, nbytes, digest
        self.values: np.ndarray | None = None
        self.failed = False
        self._memory: mmap.mmap | None = None

    def poll(self) -> np.ndarray | None:
        """The values once the loader has finished (None until then)."""
        if self.values is not None or self.failed:
            return self.values
        try:
            if self._memory is None:
                fd = os.open(self.path, os.O_RDONLY)
                try:
                    if os.fstat(fd).st_size != self.nbytes + TRAILER:
                        raise OSError("shared memory of the wrong size")
                    # Copy-on-write: pages stay shared unless written, and nothing writes.
                    # (A read-only mapping would make numba compile its kernels again for
                    # read-only arrays.)
                    self._memory = mmap.mmap(fd, self.nbytes + TRAILER, flags=mmap.MAP_PRIVATE,
                                             prot=mmap.PROT_READ | mmap.PROT_WRITE)
                finally:
                    os.close(fd)
            mark = READY + self.digest.encode()
            trailer = self._memory[self.nbytes:self.nbytes + len(mark)]
            if trailer.startswith(FAILED):
                raise OSError("the loader could not fill them")
            if trailer != mark:
                return None
            _populate(self._memory)
            self.values = np.frombuffer(self._memory, dtype=np.uint8, count=self.nbytes)
        except (OSError, ValueError) as error:
            log.warning("shared values unavailable (%s); answering from disk", error)
            self.failed = True
        return self.values


MADV_POPULATE_READ = 22  # Linux 5.14: map every page now (not in Python 3.11's mmap module)


def _populate(memory: mmap.mmap) -> None:
    """Map every page of the shared values into this process at once (about 0.1 s for
    5x5), so that probes do not take the page faults one by one, at random."""
    try:
        memory.madvise(getattr(mmap, "MADV_POPULATE_READ", MADV_POPULATE_READ))
    except (OSError, ValueError, AttributeError):  # an older kernel: touch one byte a page
        np.frombuffer(memory, dtype=np.uint8)[::mmap.PAGESIZE].max()
