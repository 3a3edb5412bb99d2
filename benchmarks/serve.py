"""Benchmark: ``retro serve`` under load on this machine; prints JSON figures.

    python benchmarks/serve.py [--db PATH] [--workers N] [--requests N] [--concurrency C]
                               [--batches B] [--rounds R] [--seed S] [--no-share]

Starts ``retro serve`` with the database on a free loopback port, then:

* ``first_answer_seconds``: from starting the command to the first answer of
  ``GET /api/v1/probe`` (the start position);
* ``shared_values_seconds``: until the loader says the shared in-memory table is
  full; the load runs once every worker uses it (``/api/v1/info``: ``"memory"``);
* ``probe``: ``--requests`` ``GET /api/v1/probe`` of positions reached by random play
  from the start (every position of each random game, in order), ``--concurrency``
  at once over keep-alive connections: requests/s, p50/p99 latency, errors (any
  answer but 200, or a sampled answer whose value differs from ``Database.probe``).
  Every round asks about the positions of its own random games: the server keeps
  recent answers, and a round repeating an earlier one would measure that memory.
  ``rounds_repeated_positions_share`` says how many positions of a round had been
  asked before (the start and early positions recur in every random game);
* ``health``: the same load on ``GET /health``, the ceiling of this server and this
  load generator on this machine; ``probe_over_health`` is the ratio. Both say how
  much CPU the server's workers and the load generator spent per request
  (``server_cpu_us_per_request``, ``client_cpu_us_per_request``): on a machine
  shared with other work that ratio is the steadier figure;
* ``batch``: ``--batches`` ``POST /api/v1/probe`` of 10,000 such positions each, one
  at a time per worker: positions/s;
* ``memory``: resident memory of every server process from ``/proc/PID/smaps``:
  per process RSS, PSS (shared pages divided among their users) and private; the
  total counts every private page once and the shared table once (its full size,
  all of it resident), so it is the memory the server really holds;
  ``total_pss_mb`` is the PSS summed over the supervisor, the workers and the loader
  (while it runs), the shared table counted once among them. ``memory`` is measured
  after every load; ``memory_before_rounds`` once the shared table is full, after
  ``--concurrency`` clients sent 2,000 probes while it loaded (answered from disk),
  before the measured rounds.

Each load runs ``--rounds`` times (health and probe alternating); the best round of
each is reported, with every round's requests/s. The load generator is a minimal
HTTP/1.1 client on asyncio (uvloop), in this process. Targets on the 2-core
reference machine: probe >= 1,500 requests/s and >= 0.6 of /health, p99 <= 25 ms,
0 errors; batch >= 500,000 positions/s; first answer <= 3 s; 2 workers <= 1.6 GB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

TARGETS = {"probe_requests_per_second": 1500, "probe_over_health": 0.6, "probe_p99_ms": 25,
           "batch_positions_per_second": 500_000, "first_answer_seconds": 3.0,
           "total_resident_mb": 1600}


def random_play(count: int, seed: int) -> list:
    """Every position of random games from the start, game after game, ``count`` in all."""
    from retro import Position

    rng = random.Random(seed)
    out = []
    while len(out) < count:
        position = Position.start()
        while True:
            out.append(position)
            moves = position.legal_moves()
            if not moves or len(out) >= count:
                break
            position = position.play(rng.choice(moves))
    return out[:count]


# --- a minimal HTTP/1.1 load generator -----------------------------------------------------


class Client:
    """One keep-alive connection: send a request, read the status, headers and body."""

    def __init__(self, reader, writer) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, port: int) -> Client:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def request(self, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
        self.writer.write(head + body)
        header = await self.reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in header.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        return int(header[9:12]), await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()


async def load(port: int, heads: list[bytes], concurrency: int, check=None, offset: int = 0) -> dict:
    """Send every request, ``concurrency`` at a time; throughput, latency and errors.

    ``check(offset + i, body)`` says whether the answer to request i is right."""
    latencies: list[float] = []
    errors = 0
    queue = iter(enumerate(heads, offset))

    async def worker() -> None:
        nonlocal errors
        client = await Client.connect(port)
        try:
            for i, head in queue:
                start = time.perf_counter()
                try:
                    status, body = await client.request(head)
                except (OSError, asyncio.IncompleteReadError):
                    errors += 1
                    client.close()
                    client = await Client.connect(port)
                    continue
                latencies.append(time.perf_counter() - start)
                if status != 200 or (check is not None and not check(i, body)):
                    errors += 1
        finally:
            client.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    seconds = time.perf_counter() - start
    latencies.sort()
    return {
        "requests": len(heads),
        "requests_per_second": round(len(heads) / seconds),
        "p50_ms": round(1000 * latencies[len(latencies) // 2], 2),
        "p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 2),
        "errors": errors,
    }


async def batches(port: int, bodies: list[bytes], concurrency: int) -> dict:
    errors = 0
    queue = iter(bodies)
    positions = 0

    async def worker() -> None:
        nonlocal errors, positions
        client = await Client.connect(port)
        try:
            for body in queue:
                head = (b"POST /api/v1/probe HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
                status, answer = await client.request(head, body)
                # Count rather than parse: the client's JSON decoding would be timed too.
                wrong = answer.count(b'"error":') if status == 200 else 1
                positions += answer.count(b'"plies":') if status == 200 else 0
                errors += wrong
        finally:
            client.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    seconds = time.perf_counter() - start
    return {"batches": len(bodies), "positions": positions, "seconds": round(seconds, 3),
            "positions_per_second": round(positions / seconds), "errors": errors}


# --- the server ----------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def role(pid: int, server: int) -> str:
    """What a process of the server is: the supervisor, a worker, or another helper."""
    command = Path(f"/proc/{pid}/cmdline").read_bytes()
    if pid == server:
        return "supervisor"
    if b"retro.web.loader" in command:
        return "loader"
    if command == Path(f"/proc/{server}/cmdline").read_bytes() or b"spawn_main" in command:
        return "worker"  # forked from the server (or spawned by uvicorn's supervisor)
    return "helper"


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the processes so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / tick


def memory(pid: int) -> dict:
    """RSS, PSS and private bytes of one process, from /proc/PID/smaps, split into the
    shared values' mappings (``values_*``) and everything else."""
    totals = dict.fromkeys(["rss", "pss", "private", "values_rss", "values_pss"], 0)
    values = False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        field, _, rest = line.partition(":")
        if " " in field or "-" in field:  # a mapping's header line
            values = "memfd:retro-" in line
            continue
        key = {"Rss": "rss", "Pss": "pss", "Private_Clean": "private",
               "Private_Dirty": "private"}.get(field)
        if key is None:
            continue
        if values:
            if key != "private":  # values pages one worker alone touched count as private
                totals["values_" + key] += int(rest.split()[0]) * 1024
        else:
            totals[key] += int(rest.split()[0]) * 1024
    return totals


def memfd_files(pid: int) -> dict[int, int]:
    """{inode: bytes} of the shared-values memory files the process ``pid`` holds open."""
    files = {}
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if "memfd:retro-" in os.readlink(fd):
                stat = os.stat(fd)
                files[stat.st_ino] = stat.st_size
        except OSError:
            pass
    return files


def server_memory(server: int, workers: int) -> dict:
    """Memory of every process of the server (see the module docstring: ``memory``)."""
    pids = [server] + children(server)
    per = {}
    for pid in pids:
        try:
            per[pid] = memory(pid)
        except OSError:  # a process that ended meanwhile (the loader)
            pass
    files: dict[int, int] = {}
    for pid in per:
        files.update(memfd_files(pid))
    held = sum(files.values())
    mb = lambda b: round(b / 2**20, 1)
    return {
        "processes": [{"pid": pid, "role": "worker" if workers == 1 else role(pid, server),
                       "rss_mb": mb(m["rss"] + m["values_rss"]),
                       "pss_mb": mb(m["pss"] + m["values_pss"]), "private_mb": mb(m["private"]),
                       "shared_values_touched_mb": mb(m["values_rss"])}
                      for pid, m in per.items() if m["rss"] or m["values_rss"]],
        "shared_values_mb": mb(held),
        "total_rss_mb": mb(sum(m["rss"] + m["values_rss"] for m in per.values())),
        "total_resident_mb": mb(sum(m["pss"] for m in per.values()) + held),
        # Proportional set size summed over every process of the server (supervisor,
        # workers, the loader while it runs): each shared page, the table's too, is
        # divided among the processes that map it, so it counts once in the sum.
        "total_pss_mb": mb(sum(m["pss"] + m["values_pss"] for m in per.values())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("db/three-musketeers-5x5.h5"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-share", action="store_true",
                        help="workers answer from disk (no shared in-memory table)")
    args = parser.parse_args()

    import uvloop

    from retro import open_database
    from retro.text import link_text
    from retro.web.shared import POLL_SECONDS

    # Each round asks about positions of its own random games (the server keeps recent
    # answers: a round repeating an earlier one would measure that cache); the warm-up
    # has its own too. Within a round, positions repeat as random games make them repeat.
    warm_up = 2000
    positions = random_play(max(warm_up + args.rounds * args.requests, 40_000), args.seed)
    texts = [link_text(p) for p in positions]
    heads = [get("/api/v1/probe?position=" + text) for text in texts]
    seen: set[str] = set(texts[:warm_up])
    repeated = []  # per round: the share of positions asked before (the server may remember)
    for r in range(args.rounds):
        again = 0
        for text in texts[warm_up + r * args.requests:warm_up + (r + 1) * args.requests]:
            again += text in seen
            seen.add(text)
        repeated.append(round(again / args.requests, 3))
    bodies = [json.dumps({"positions": [str(p) for p in positions[i:i + 10_000]]}).encode()
              for i in range(0, len(positions) - 9_999, 10_000)]
    bodies = [bodies[i % len(bodies)] for i in range(args.batches)]
    sample = {i: None for i in range(warm_up, len(positions), 97)}  # every 97th answer is checked
    with open_database(args.db) as db:
        for i in sample:
            outcome = db.probe(positions[i])
            sample[i] = (outcome.winner.value, outcome.plies)

    def check(i: int, body: bytes) -> bool:
        if i not in sample:
            return True
        answer = json.loads(body)
        return (answer["winner"], answer["plies"]) == sample[i]

    command = [sys.executable, "-m", "retro.cli", "serve", "--db", str(args.db), "--port", "0",
               "--workers", str(args.workers)]
    env = dict(os.environ)
    if args.no_share:
        env["RETRO_SERVE_SHARE"] = "0"
    started = time.perf_counter()
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env)
    log: list[str] = []  # the server's standard error, read as it comes
    threading.Thread(target=lambda: log.extend(iter(server.stderr.readline, "")), daemon=True).start()
    idle: dict = {}
    figures: dict = {"workers": args.workers, "concurrency": args.concurrency,
                     "shared_values": not args.no_share}
    try:
        line = server.stdout.readline()
        port = int(re.search(r"http://[^:]+:(\d+)/", line)[1])

        async def run() -> None:
            first = get("/api/v1/probe?position=" + link_text(positions[0]))
            while True:  # the first answer
                try:
                    client = await Client.connect(port)
                    status, _ = await client.request(first)
                    client.close()
                    if status == 200:
                        break
                except OSError:
                    pass
                await asyncio.sleep(0.01)
            figures["first_answer_seconds"] = round(time.perf_counter() - started, 2)
            # Requests while the shared table loads, answered from disk: what workers
            # keep of that phase shows in every memory figure below.
            await load(port, heads[:warm_up], args.concurrency)
            if not args.no_share:
                while not any("shared memory" in line for line in log):  # the loader's line
                    if time.perf_counter() - started > 120 or server.poll() is not None:
                        raise SystemExit("the shared values did not load within 120 s")
                    await asyncio.sleep(0.05)
                figures["shared_values_seconds"] = round(time.perf_counter() - started, 2)
                if not any("loaded into shared memory" in line for line in log):
                    raise SystemExit("the shared values did not load: " + "".join(log))
                await asyncio.sleep(4 * POLL_SECONDS)  # every worker looks every POLL_SECONDS
                client = await Client.connect(port)
                info = json.loads((await client.request(get("/api/v1/info")))[1])
                client.close()
                assert all(board["values"] == "memory" for board in info["boards"]), info
            idle.update(server_memory(server.pid, args.workers))  # before the rounds
            await load(port, heads[:warm_up], args.concurrency)  # warm-up, not counted
            rounds = {"health": [], "probe": []}
            workers = [pid for pid in children(server.pid) if role(pid, server.pid) == "worker"] \
                if args.workers > 1 else [server.pid]
            for r in range(args.rounds):
                first = warm_up + r * args.requests
                for name, requests, check_ in (
                        ("health", [get("/health")] * args.requests, None),
                        ("probe", heads[first:first + args.requests], check)):
                    before, mine = cpu_seconds(workers), time.process_time()
                    result = await load(port, requests, args.concurrency, check_, offset=first)
                    result["server_cpu_us_per_request"] = round(
                        1e6 * (cpu_seconds(workers) - before) / len(requests))
                    result["client_cpu_us_per_request"] = round(
                        1e6 * (time.process_time() - mine) / len(requests))
                    rounds[name].append(result)
            for name, runs in rounds.items():
                best = max(runs, key=lambda r: r["requests_per_second"])
                figures[name] = {**best, "errors": sum(r["errors"] for r in runs),
                                 "rounds_requests_per_second": [r["requests_per_second"] for r in runs]}
            figures["probe"]["rounds_repeated_positions_share"] = repeated
            figures["probe_over_health"] = round(figures["probe"]["requests_per_second"]
                                                 / figures["health"]["requests_per_second"], 3)
            figures["batch"] = await batches(port, bodies, args.workers)

        uvloop.run(run())
        figures["memory"] = server_memory(server.pid, args.workers)
        figures["memory_before_rounds"] = idle
    finally:
        server.send_signal(signal.SIGINT)
        try:
            figures["stop_exit_status"] = server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            figures["stop_exit_status"] = "killed"
    figures["targets"] = TARGETS
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
