"""Benchmark: build and verify the games that build in seconds, before and after a change; JSON.

    python benchmarks/games.py [--games NAME[:VARIANT] ... | --games all [--max-entries N]]
                               [--rounds R] [--rev REV ...]

For each game variant (default: tic-tac-toe, both three men's morris variants, six
men's morris, Teeko 4x4-3, 4x4 and 5x5, both variants of the race; ``--games all``:
every listed variant of every registered game with at most ``--max-entries`` table
entries), in child processes so that the wall time and peak memory are the command's
alone: ``retro build --force`` (a first build compiles the kernels; the figures are
the best of ``--rounds`` warm runs), ``retro verify``, and

* entries (the table entries of the whole database), entries a second, the file's
  bytes an entry, the build's peak resident set (``wait4``'s ``ru_maxrss`` of the
  command) and the memory the game estimates for its largest tier
  (``Game.tier_memory``, what ``retro build`` says before it starts);
* the largest tier's own peak: a child solves the game's smallest variant (the kernels
  compiled and warm) and the tiers before the largest, resets the high-water mark of
  its resident set and solves the largest, its children's values copied after the
  baseline as the estimate counts them (``tests/test_tier_memory.py`` checks the same
  on small variants, within 2x); ``compiles`` says whether numba compiled during it.

``--rev REV ...`` measures each commit named (``.``: the checkout as it is, the
default) in a ``git worktree`` of its own under /tmp (removed afterwards), with its
own ``PYTHONPATH``, the commits' builds taking turns, so that before and after come
from one run on the same machine; a game a commit does not know is left out of its
figures. Measuring the checkout alone, the script also times the engine's work in this
process, tier by tier without any file (expansion: the game's move generation and
index; solving: the retrograde solver of loopy tiers or the one pass of acyclic ones),
with the moves per second, for tic-tac-toe and the morris games, and from the loopy
tiers of six men's morris a prediction for nine men's morris's moving phase (about
9e9 positions up to symmetry in 28 sectors; the largest, 8 against 8, about 6e8).

Targets on the 2-core reference machine: three men's morris <= 1 s; six men's morris,
every position, <= 5 s and <= 1 GB, a file <= 2 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from retro.values import draw_value, preference_keys, value_of_best_key

GAMES = ["tic-tac-toe", "three-mens-morris", "three-mens-morris-diagonal", "six-mens-morris",
         "teeko:4x4-3", "teeko:4x4", "teeko", "four-player-race", "four-player-race:jump"]
ENGINE_GAMES = ["tic-tac-toe", "three-mens-morris", "three-mens-morris-diagonal", "six-mens-morris"]
TARGETS = {"three-mens-morris": {"seconds": 1.0}, "three-mens-morris-diagonal": {"seconds": 1.0},
           "six-mens-morris": {"seconds": 5.0, "peak_memory_mb": 1024.0, "file_mb": 2.0}}
NINE_MENS_MORRIS = {"moving_phase_positions": 9e9, "largest_sector_positions": 6e8}


def engine_work(name: str) -> dict:
    """The engine's work per tier, without files: expansion and solving, timed apart."""
    from retro import games
    from retro.engine import solvers
    from retro.engine.retrograde import solve_loopy

    game = games.get(name)
    values: dict = {}
    totals = {"positions": 0, "entries": 0, "moves": 0, "expand_seconds": 0.0, "solve_seconds": 0.0}
    loopy = {"entries": 0, "moves": 0, "expand_seconds": 0.0, "solve_seconds": 0.0,
             "value_iteration_seconds": 0.0, "value_iteration_sweeps": 0}
    for tier in game.tiers():
        started = time.perf_counter()
        expansion = game.expand(tier)
        expanded = time.perf_counter()
        dtype = np.dtype(game.value_dtype).type
        flat, offsets = solvers.child_values(expansion, values, dtype)
        if game.loopy(tier):
            result = solve_loopy(expansion, flat, offsets, dtype)
        else:
            result = np.empty(expansion.size, dtype=dtype)
            solvers.solve_acyclic(expansion.side, expansion.finished, expansion.starts,
                                  expansion.child_tier, expansion.child_entry, flat, offsets,
                                  preference_keys(dtype), value_of_best_key(dtype), result)
        solved = time.perf_counter()
        if game.loopy(tier):  # the alternative, on the same expansion: timed apart, compared
            other = np.empty(expansion.size, dtype=dtype)
            sweeps = value_iteration(expansion.side, expansion.finished, expansion.starts,
                                     expansion.child_tier, expansion.child_entry, flat, offsets,
                                     draw_value(dtype), other)
            loopy["value_iteration_seconds"] += time.perf_counter() - solved
            loopy["value_iteration_sweeps"] = max(loopy["value_iteration_sweeps"], sweeps)
            if not np.array_equal(other, result):
                raise SystemExit(f"value iteration and the retrograde solver differ on {tier}")
        values[tier] = result
        totals["positions"] += game.positions_in(tier)
        for bucket in ((totals, loopy) if game.loopy(tier) else (totals,)):
            bucket["entries"] += expansion.size
            bucket["moves"] += expansion.edges
            bucket["expand_seconds"] += expanded - started
            bucket["solve_seconds"] += solved - expanded
    seconds = totals["expand_seconds"] + totals["solve_seconds"]
    out = {**{k: round(v, 3) if isinstance(v, float) else v for k, v in totals.items()},
           "entries_per_second": round(totals["entries"] / seconds),
           "moves_per_second": round(totals["moves"] / seconds)}
    if loopy["entries"]:
        loopy_seconds = loopy["expand_seconds"] + loopy["solve_seconds"]
        out["loopy_tiers"] = {**{k: round(v, 3) if isinstance(v, float) else v for k, v in loopy.items()},
                              "retrograde_over_value_iteration": round(
                                  loopy["solve_seconds"] / loopy["value_iteration_seconds"], 3)
                              if loopy["value_iteration_seconds"] else None,
                              "entries_per_second": round(loopy["entries"] / loopy_seconds),
                              "moves_per_second": round(loopy["moves"] / loopy_seconds),
                              "moves_per_entry": round(loopy["moves"] / loopy["entries"], 2)}
    return out


@njit(cache=True)
def value_iteration(side, finished, starts, child_tier, child_entry, flat, offsets, draw, out):
    """The alternative to the retrograde solver, for the measurement only: a sweep per
    level over every undecided entry, each reading all its children (no parent lists)."""
    n = len(side)
    level_of = np.full(n, -1, dtype=np.int64)
    outside = 0  # the longest distance out of the tier: levels up to it may still decide
    for i in range(n):
        out[i] = draw
        if finished[i] >= 0:
            out[i] = finished[i]
            level_of[i] = 0 if finished[i] != draw else -1
        for e in range(starts[i], starts[i + 1]):
            if child_tier[e] != 0:
                child = flat[offsets[child_tier[e]] + child_entry[e]]
                if child != draw and (child >> 1) + 1 > outside:
                    outside = (child >> 1) + 1
    level = 1
    changed = True
    sweeps = 0
    while changed or level <= outside:
        changed = False
        sweeps += 1
        for i in range(n):
            if level_of[i] >= 0 or finished[i] >= 0:
                continue
            mover = side[i]
            win = False
            all_won = True
            longest = -1
            for e in range(starts[i], starts[i + 1]):
                if child_tier[e] == 0:
                    j = child_entry[e]
                    if level_of[j] < 0 or level_of[j] >= level:
                        all_won = False
                        continue
                    child = out[j]
                else:
                    child = flat[offsets[child_tier[e]] + child_entry[e]]
                    if child == draw:
                        all_won = False
                        continue
                plies = child >> 1
                if (0 if child & 1 else 1) == mover:
                    if plies == level - 1:
                        win = True
                    all_won = False
                elif plies > longest:
                    longest = plies
            if win:
                out[i] = 2 * level + (1 if mover == 0 else 0)
                level_of[i] = level
                changed = True
            elif all_won and longest == level - 1:
                out[i] = 2 * level + (1 if mover == 1 else 0)
                level_of[i] = level
                changed = True
        level += 1
    return sweeps


def nine_mens_morris(loopy: dict) -> dict:
    """What the loopy rate measured on six men's morris predicts for nine men's morris."""
    rate = loopy["entries_per_second"]
    # Nine men's morris has more moves per position (24 points, up to 9 pieces a side):
    # scale by moves, the solver's work being linear in positions plus moves.
    moves_per_entry = 2 * loopy["moves_per_entry"]  # a guess: twice six men's, stated
    entries_per_second = loopy["moves_per_second"] / moves_per_entry
    largest = NINE_MENS_MORRIS["largest_sector_positions"]
    # Memory of the explicit graph: per move a child entry (8 bytes) and a parent (8),
    # per position a counter, a value and bookkeeping (~40 bytes).
    graph_bytes = largest * (moves_per_entry * 16 + 40)
    return {
        "assumed_moves_per_position": moves_per_entry,
        "predicted_hours_moving_phase": round(NINE_MENS_MORRIS["moving_phase_positions"] / entries_per_second / 3600, 1),
        "predicted_hours_largest_sector": round(largest / entries_per_second / 3600, 2),
        "largest_sector_graph_gb": round(graph_bytes / 1e9),
        "measured_loopy_entries_per_second": rate,
    }


def run_measured(command: list, tree: Path, stdout=subprocess.DEVNULL) -> tuple[float, int, str]:
    """(wall seconds, peak resident set in bytes, standard output) of a child process
    running ``command`` with ``tree`` as its retro (its own peak: ``wait4``)."""
    env = dict(os.environ, PYTHONPATH=str(tree))  # and the tree as the working folder: first on the path
    with tempfile.TemporaryFile("w+") as errors:
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=tree, env=env, stdout=stdout, stderr=errors, text=True)
        out = child.stdout.read() if child.stdout is not None else ""
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not the largest so far
        seconds = time.perf_counter() - started
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if child.stdout is not None:
            child.stdout.close()
        if code != 0:
            errors.seek(0)
            raise RuntimeError(f"{' '.join(command[2:])} in {tree}: exit {code}: {errors.read().strip()[-300:]}")
    return seconds, usage.ru_maxrss * 1024, out


# Run in a child with a commit's tree first on its path: what the game says of itself.
INFO = r"""
import json, sys
from retro import games
try:
    game = games.get(sys.argv[1], sys.argv[2] or None)
except ValueError:
    print("null")
    sys.exit()
tiers = list(game.tiers())
largest = max(tiers, key=game.tier_size)
print(json.dumps({"game": game.full_name, "entries": sum(game.tier_size(t) for t in tiers),
                  "positions": game.positions(), "tiers": len(tiers),
                  "largest_tier": game.tier_name(largest), "largest_tier_entries": game.tier_size(largest),
                  "largest_tier_estimate_bytes": game.tier_memory(largest)}))
"""

TIER_PEAK = Path(__file__).with_name("tier_peak.py")  # the largest tier's own peak




class Tree:
    """A commit's retro: the checkout itself (``.``) or a worktree of the commit under /tmp."""

    def __init__(self, rev: str) -> None:
        self.rev = rev
        if rev == ".":
            self.path = HERE
            self.commit = git("rev-parse", "HEAD")
            self.dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", "retro"))
            self.added = False
        else:
            self.commit = git("rev-parse", "--verify", f"{rev}^{{commit}}")
            self.path = Path(tempfile.mkdtemp(prefix=f"retro-{self.commit[:8]}-", dir="/tmp"))
            self.path.rmdir()
            git("worktree", "add", "--detach", str(self.path), self.commit)
            self.dirty = False
            self.added = True
        self.subject = git("log", "-1", "--format=%s", self.commit)[:100]

    def remove(self) -> None:
        if self.added:
            git("worktree", "remove", "--force", str(self.path))

    def describe(self) -> dict:
        return {"rev": self.rev, "commit": self.commit, "subject": self.subject,
                "uncommitted_changes_in_retro": self.dirty}

    def info(self, name: str, variant: str) -> dict | None:
        return json.loads(run_measured([sys.executable, "-c", INFO, name, variant], self.path,
                                       stdout=subprocess.PIPE)[2])

    def build(self, name: str, variant: str, out: Path) -> tuple[float, int]:
        command = [sys.executable, "-m", "retro.cli", "build", "--game", name, "--out", str(out),
                   "--quiet", "--force"]
        if variant:
            command[6:6] = ["--variant", variant]
        return run_measured(command, self.path)[:2]

    def verify(self, out: Path) -> float:
        return run_measured([sys.executable, "-m", "retro.cli", "verify", str(out), "--quiet"], self.path)[0]

    def tier_peak(self, name: str, variant: str) -> dict | None:
        try:
            return json.loads(run_measured([sys.executable, str(TIER_PEAK), name, variant], self.path,
                                           stdout=subprocess.PIPE)[2])
        except RuntimeError as error:  # a commit without the pieces it needs
            return {"error": str(error)[-200:]}


HERE = Path(__file__).resolve().parent.parent


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(HERE), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def listed(spec: list[str], max_entries: int) -> list[tuple[str, str]]:
    """(name, variant) pairs of ``--games``: ``NAME`` or ``NAME:VARIANT``, or ``all``."""
    if spec != ["all"]:
        return [tuple(item.split(":", 1)) if ":" in item else (item, "") for item in spec]
    from retro import games

    out = []
    for game in games.every_game():
        if sum(game.tier_size(t) for t in game.tiers()) <= max_entries:
            out.append((game.name, game.variant))
    return out


def measure(trees: list, name: str, variant: str, rounds: int, scratch: Path) -> dict:
    """One game variant, each commit's builds taking turns."""
    infos = {tree.rev: tree.info(name, variant) for tree in trees}
    present = [tree for tree in trees if infos[tree.rev] is not None]
    outs = {tree.rev: scratch / f"{name}-{variant or 'game'}-{i}.h5" for i, tree in enumerate(present)}
    for tree in present:
        tree.build(name, variant, outs[tree.rev])  # compiles, once
    builds: dict = {tree.rev: [] for tree in present}
    for _ in range(rounds):
        for tree in present:
            builds[tree.rev].append(tree.build(name, variant, outs[tree.rev]))
    figures = {}
    for tree in present:
        info, runs = infos[tree.rev], builds[tree.rev]
        seconds = min(s for s, _ in runs)
        file_bytes = outs[tree.rev].stat().st_size
        verify = min(tree.verify(outs[tree.rev]) for _ in range(rounds))
        peak = tree.tier_peak(name, variant)
        entry = {
            **info,
            "build_seconds": round(seconds, 3),
            "build_seconds_all": [round(s, 3) for s, _ in runs],
            "entries_per_second": round(info["entries"] / seconds),
            "positions_per_second": round(info["positions"] / seconds),
            "file_bytes": file_bytes,
            "file_bytes_per_entry": round(file_bytes / info["entries"], 4),
            "peak_memory_bytes": max(m for _, m in runs),
            "verify_seconds": round(verify, 3),
            "largest_tier_peak_bytes": (peak or {}).get("peak_bytes"),
            "largest_tier_solve_seconds": (peak or {}).get("seconds"),
            "largest_tier_solve_compiles": (peak or {}).get("compiles"),
        }
        if entry["largest_tier_peak_bytes"]:
            entry["largest_tier_peak_over_estimate"] = round(
                entry["largest_tier_peak_bytes"] / info["largest_tier_estimate_bytes"], 3)
        elif peak and "error" in peak:
            entry["largest_tier_peak_error"] = peak["error"]
        targets = TARGETS.get(name) if not variant else None
        if targets:
            measured = {"seconds": seconds, "peak_memory_mb": entry["peak_memory_bytes"] / 2**20,
                        "file_mb": file_bytes / 1e6}
            entry["targets"] = targets
            entry["meets_targets"] = all(measured[k] <= v for k, v in targets.items())
        figures[tree.rev] = entry
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=GAMES, metavar="NAME[:VARIANT]")
    parser.add_argument("--max-entries", type=int, default=13_000_000,
                        help="with --games all: the variants of at most this many table entries")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rev", nargs="+", default=["."], metavar="REV",
                        help="the commits to measure (.: the checkout as it is)")
    args = parser.parse_args()
    chosen = listed(args.games, args.max_entries)
    scratch = Path(tempfile.mkdtemp(prefix="retro-games-"))
    trees: list = []
    try:
        for rev in args.rev:
            trees.append(Tree(rev))
        result: dict = {"commits": [tree.describe() for tree in trees],
                        "load_average_before": [round(x, 2) for x in os.getloadavg()], "games": {}}
        for name, variant in chosen:
            figures = measure(trees, name, variant, args.rounds, scratch)
            key = f"{name} {variant}".strip()
            result["games"][key] = figures if len(trees) > 1 else figures.get(".", {})
            if [t.rev for t in trees] == ["."] and name in ENGINE_GAMES and not variant:
                result["games"][key]["engine"] = engine_work(name)
        result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        six = result["games"].get("six-mens-morris", {})
        if "engine" in six and "loopy_tiers" in six["engine"]:
            result["nine_mens_morris_prediction"] = nine_mens_morris(six["engine"]["loopy_tiers"])
    finally:
        for tree in trees:
            tree.remove()
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
