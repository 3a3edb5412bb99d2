"""Cross-check a database against an independent weak solver (alpha-beta or df-pn).

Three Musketeers takes either solver; tic-tac-toe alpha-beta (df-pn's knowledge is
Three Musketeers'); games whose positions repeat have no weak solver here (a
top-down search cannot tell a draw by repetition from a long game).

Positions come from two sources, half each:

* **uniform**: table entries drawn uniformly from the whole index space (Three
  Musketeers: side, placement and enemy mask, for an endgame database from its layers
  only; other games: the entries of every tier), so every kind of position,
  reachable or not, can be drawn;
* **games**: a position drawn uniformly from a random game played from the start
  (random legal moves to the end), the positions real games go through.

Each is solved by :mod:`retro.alphabeta` or :mod:`retro.dfpn` (who wins; with
``exact``, in how many plies too) and probed in the database; any difference is a
disagreement. Each worker process keeps one solver for all its positions: values are
relative to the position, so its table stays valid from one to the next.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from math import comb
from multiprocessing import get_context

import numpy as np

from . import games
from .db.database import open_database
from .games.musketeers.index import indexer, position_at
from .games.musketeers.position import Position
from .search import dfpn
from .search.alphabeta import Solver, plies_of, winner_of
from .search.alphabeta import solve as alphabeta_solve
from .search.games import canonical, pack, weak_game

UNIFORM, GAMES = "uniform", "games"
METHODS = ("dfpn", "alphabeta")
DEFAULT_METHOD = "dfpn"  # benchmarks/weak_vs_retro.py: it decides the start far faster
SOLVER_NAMES = {"dfpn": "df-pn", "alphabeta": "alpha-beta"}
DEFAULT_TABLE_BITS = {"alphabeta": 25, "dfpn": dfpn.DEFAULT_TABLE_BITS}  # 512 MiB each


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: use {' or '.join(map(repr, METHODS))}")


def new_solver(method: str, game, table_bits: int | None = None) -> Solver | dfpn.DfpnSolver:
    """A weak solver of ``method`` ("dfpn" or "alphabeta") for ``game`` (a registered
    game, or a Three Musketeers board size), with a table of ``2**table_bits`` entries
    (default: 512 MiB). Raises ValueError for a game the method does not play."""
    _check_method(method)
    if isinstance(game, int):
        game = games.musketeers_board(game)
    tables = weak_game(game.name, game.variant)
    if tables is None:
        raise ValueError(f"{game.full_name}: its positions repeat, and no weak solver here can "
                         "decide them; retro verify proves its database instead")
    if method == "dfpn" and game.name != games.DEFAULT_GAME:
        raise ValueError(f"{SOLVER_NAMES[method]} does not play {game.full_name} (alpha-beta does)")
    bits = DEFAULT_TABLE_BITS[method] if table_bits is None else table_bits
    if method == "dfpn":
        return dfpn.musketeers_dfpn_solver(game.size, table_bits=bits)
    return Solver(tables, table_bits=bits)


def warm_up(method: str, game) -> None:
    """Run ``method``'s kernels once on a tiny position of ``game``, so that numba
    compiles them (or loads them from its cache) here and no reported time includes it."""
    if isinstance(game, int):
        game = games.musketeers_board(game)
    solver = new_solver(method, game, table_bits=10)
    solve = dfpn.solve if method == "dfpn" else alphabeta_solve
    position = _tiny_position(game)
    for exact in (False, True):
        solve(position, exact=exact, solver=solver)


def _tiny_position(game):
    """A position of ``game`` a few plies from the end (the start, for tic-tac-toe)."""
    start = game.start()
    if game.name != games.DEFAULT_GAME:
        return start
    for square in range(game.size * game.size):  # the musketeers and one enemy man
        if start.enemies >> square & 1:
            position = type(start)(start.side, start.musketeers, 1 << square, start.size)
            if position.legal_moves():
                return position
    raise AssertionError("no musketeer has an enemy man next to it at the start")


@dataclass(frozen=True)
class Disagreement:
    """A position where the database and the solver differ."""

    position: str
    origin: str
    database: dict
    solver: dict

    @property
    def alphabeta(self) -> dict:
        """The solver's answer, under its name from when alpha-beta was the only solver."""
        return self.solver


@dataclass
class CrosscheckReport:
    """The result of :func:`crosscheck`."""

    path: str
    exact: bool = False
    method: str = DEFAULT_METHOD
    samples: int = 0
    by_origin: dict = field(default_factory=lambda: {UNIFORM: 0, GAMES: 0})
    distinct: int = 0  # distinct positions solved (symmetric copies and repeats count once)
    agreed: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    seconds: float = 0.0
    nodes: int = 0

    @property
    def ok(self) -> bool:
        return not self.disagreements

    def as_dict(self) -> dict:
        return {
            "path": self.path, "exact": self.exact, "method": self.method,
            "samples": self.samples, "by_origin": self.by_origin,
            "distinct": self.distinct,
            "agreed": self.agreed, "ok": self.ok, "seconds": round(self.seconds, 2),
            "nodes": self.nodes,
            "disagreements": [d.__dict__ for d in self.disagreements],
        }


def uniform_positions(size, count: int, rng: np.random.Generator,
                      max_enemy_men: int | None = None) -> list:
    """Table entries drawn uniformly (Three Musketeers: over layers 0..max_enemy_men), as
    positions; ``size`` is a Three Musketeers board size or a game."""
    if not isinstance(size, int):
        return _uniform_entries(size, count, rng)
    ix = indexer(size)
    top = ix.free if max_enemy_men is None else max_enemy_men
    weights = np.array([comb(ix.free, k) for k in range(top + 1)], dtype=float)
    layers = rng.choice(top + 1, size=count, p=weights / weights.sum())
    positions = []
    for k in layers:
        squares = rng.choice(ix.free, size=int(k), replace=False)
        mask = int(sum(1 << int(i) for i in squares))
        positions.append(position_at(int(rng.integers(2)), int(rng.integers(ix.placement_count)),
                                     mask, size))
    return positions


def _uniform_entries(game, count: int, rng: np.random.Generator) -> list:
    tiers = list(game.tiers())
    weights = np.array([game.tier_size(t) for t in tiers], dtype=float)
    positions = []
    while len(positions) < count:
        tier = tiers[int(rng.choice(len(tiers), p=weights / weights.sum()))]
        position = game.position_at(tier, int(rng.integers(game.tier_size(tier))))
        if position is not None:  # an entry that is not a position: draw again
            positions.append(position)
    return positions


def game_positions(size, count: int, rng: np.random.Generator) -> list:
    """One position drawn uniformly from each of ``count`` random games from the start
    (``size``: a Three Musketeers board size, or a game)."""
    positions = []
    for _ in range(count):
        position = Position.start(size) if isinstance(size, int) else size.start()
        seen = [position]
        while (moves := position.legal_moves()):
            position = position.play(moves[int(rng.integers(len(moves)))])
            seen.append(position)
        positions.append(seen[int(rng.integers(len(seen)))])
    return positions


CHUNK = 20  # positions per task handed to a worker

_solver: Solver | dfpn.DfpnSolver | None = None  # one per worker process, its table kept
_exact = False


def _start_worker(name: str, variant: str, table_bits: int | None, exact: bool, method: str) -> None:
    global _solver, _exact
    _solver, _exact = new_solver(method, games.get(name, variant), table_bits), exact


def _solve_chunk(states: list[int]) -> tuple[list[int], int]:
    before = _solver.stats.nodes
    values = _solver.values(np.array(states, dtype=np.int64), exact=_exact)
    return values.tolist(), _solver.stats.nodes - before


def crosscheck(path: str | os.PathLike | None = None, *, samples: int = 1000, seed: int = 0,
               exact: bool = False, workers: int | None = None, table_bits: int | None = None,
               method: str = DEFAULT_METHOD,
               progress: Callable[[int], None] | None = None) -> CrosscheckReport:
    """Solve ``samples`` positions by ``method`` ("alphabeta" or "dfpn") and compare
    with the database at ``path``.

    Compares who wins; with ``exact`` the number of plies too (much slower: proving
    that the loser cannot last longer means searching every move of the winner).
    ``workers`` processes (default: one per core) each keep a solver with a table of
    ``2**table_bits`` entries (default: 512 MiB for either method). Game positions go
    first: the ones near the start are the expensive ones, and the later ones find
    their values in the table. ``progress`` is called with the number of positions
    done so far.
    """
    _check_method(method)  # before any work
    if samples < 0:
        raise ValueError("the number of samples cannot be negative")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    with open_database(path) as db:
        game = db.game
        new_solver(method, game, 10)  # refuses a game the method does not play, at once
        if game.name == games.DEFAULT_GAME:
            size, top = db.size, db.max_enemy_men
            from_games = samples // 2 if top >= indexer(size).free else 0
            source = size
        else:
            size, top, from_games, source = None, None, samples // 2, game
        drawn = [(p, GAMES) for p in game_positions(source, from_games, rng)]
        drawn += [(p, UNIFORM) for p in uniform_positions(source, samples - from_games, rng, top)]
        expected = [db.probe(p).as_dict() for p, _ in drawn]
        report = CrosscheckReport(str(db.path), exact, method)
    # Solve each distinct position once: random games often pass through the same
    # early positions, which are the expensive ones. The key is the solver's own
    # canonical image, so symmetric copies count as one.
    tables = weak_game(game.name, game.variant)
    drawn_with_key: dict[int, list[int]] = {}  # in first-drawn order: game positions first
    for i, (position, _) in enumerate(drawn):
        key = int(canonical(pack(position), tables)[0])
        drawn_with_key.setdefault(key, []).append(i)
    keys = list(drawn_with_key)
    chunks = [keys[i:i + CHUNK] for i in range(0, len(keys), CHUNK)]
    report.distinct = len(keys)
    workers = workers or os.cpu_count() or 1
    done = 0
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_start_worker,
                             initargs=(game.name, game.variant, table_bits, exact, method)) as pool:
        jobs = {pool.submit(_solve_chunk, chunk): chunk for chunk in chunks}
        for job in as_completed(jobs):
            values, nodes = job.result()
            report.nodes += nodes
            for key, value in zip(jobs[job], values):
                for i in drawn_with_key[key]:
                    position, origin = drawn[i]
                    winner = winner_of(value, position.side)
                    found = {"winner": None if winner is None else winner.value}
                    wanted = dict(expected[i])
                    if exact:
                        found["plies"] = plies_of(value)
                    else:
                        del wanted["plies"]
                    report.samples += 1
                    report.by_origin[origin] += 1
                    if found == wanted:
                        report.agreed += 1
                    else:
                        report.disagreements.append(Disagreement(str(position), origin, wanted, found))
                    done += 1
            if progress is not None:
                progress(done)
    report.seconds = time.perf_counter() - started
    return report
