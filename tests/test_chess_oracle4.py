"""Whole 4-piece chess tables against a fast independent solver (tests/chess_oracle_fast.py:
its own move generator, written from the rules and checked here against python-chess,
and a plain ply-by-ply retrograde analysis; nothing of retro). Heavy, so run apart:
``RETRO_SLOW_TESTS=1 python -m pytest -n 0 -s tests/test_chess_oracle4.py``.

* The generator against python-chess on random nodes of several tables, en-passant
  states included (KPvKP): which nodes are positions, check, the legal moves, and the
  node each move leads to (its board, side to move and en-passant square, in this
  table or a child one), thousands a table.
* retro builds KQvKR and KRvKP (and every table they lead into) into a temporary
  folder; the solver solves them from the rules; every legal position of each table
  (both sides to move, every symmetric image; the colour-swapped twin is the same
  entry of retro's table) is compared, value and distance, reading retro's values
  in bulk through its numbering (the entry of each board, as tests/test_chess.py
  finds it, in a jitted loop); a few hundred also through FEN probes, as a user
  asks. The comparison itself is checked to fail on a corrupted value. Measured on 2
  cores: KQvKR about 2 minutes (retro's build 10 s, the solver 60 s, the comparison
  22 s), KRvKP about 8 (retro's build 46 s, the solver 320 s with KRvKR, KRvKB, KRvKN;
  KRvKQ is KQvKR's twin, 30 s a table compared); the solved values also satisfy the
  minimax rule through python-chess's moves on random positions.
* KPvKP (pawns of both sides: the positions where the side to move may take en passant
  are nodes of their own, as in retro's table): compared as above, every table it
  leads into too, its values also checked by the minimax rule through python-chess's
  moves, with ``RETRO_ORACLE_KPKP=1`` too (it leads into 16 tables of 4 pieces: 20
  minutes or more).
"""

from __future__ import annotations

import os
import random
import time

import chess
import numpy as np
import pytest
from numba import njit, prange

import chess_oracle_fast as fast
from retro import games
from retro.db.database import open_database
from retro.db.format import DatabaseFile
from retro.engine.build import build
from retro.games.kit import numbering
from retro.values import draw_value, not_a_position

SLOW = os.environ.get("RETRO_SLOW_TESTS") == "1"
_SLOW = pytest.mark.skipif(not SLOW, reason="heavy: run with RETRO_SLOW_TESTS=1 python -m pytest -n 0 -s "
                                            "tests/test_chess_oracle4.py")
_KPKP = pytest.mark.skipif(not SLOW or os.environ.get("RETRO_ORACLE_KPKP") != "1",
                           reason="KPvKP leads into 16 tables of 4 pieces (20 minutes or more): run with "
                                  "RETRO_SLOW_TESTS=1 RETRO_ORACLE_KPKP=1")
UNREACHABLE_CHECKS = chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK
# The whole module is heavy (its solver's kernels alone compile for half a minute on a
# fresh checkout): the default suite checks chess through tests/test_chess.py.
pytestmark = pytest.mark.skipif(not SLOW, reason="heavy: run with RETRO_SLOW_TESTS=1 python -m pytest -n 0 -s "
                                                 "tests/test_chess_oracle4.py")


# --- the generator against python-chess --------------------------------------------

def _random_node(table: fast.Table, rng: random.Random) -> int:
    """A random node: random squares (overlaps and all), either side to move; in a
    table with pawns of both sides, half the time an en-passant state set up to be
    often legal (the pawn just pushed on its fourth rank, a pawn of the side to move
    beside it, more often than not)."""
    squares = [rng.randrange(64) for _ in range(table.n)]
    side = rng.randrange(2)
    ep = 0
    if table.E > 1 and rng.random() < 0.5:
        ep = rng.randrange(1, table.E)
        pushed = [k for k in range(table.n) if table.ptype[k] == fast.PAWN and table.pcol[k] != side][ep - 1]
        rank = 3 if table.pcol[pushed] == fast.WHITE else 4
        squares[pushed] = 8 * rank + rng.randrange(8)
        mine = [k for k in range(table.n) if table.ptype[k] == fast.PAWN and table.pcol[k] == side]
        file = squares[pushed] % 8 + rng.choice([-1, 1])
        if mine and 0 <= file < 8 and rng.random() < 0.8:
            squares[rng.choice(mine)] = 8 * rank + file
    return table.index(squares, side, ep)


def _expected_position(board: chess.Board, ep: int) -> bool:
    """python-chess's word on whether the board is a position (the checks no move could
    give kept); with an en-passant square, a capture en passant must be legal and the
    double step possible as the last move (the side to move not in check before it)."""
    if board.status() & ~UNREACHABLE_CHECKS != chess.STATUS_VALID:
        return False
    if not ep:
        return True
    if not board.has_legal_en_passant():
        return False
    before = board.copy()
    step = 8 if board.turn == chess.WHITE else -8  # from the pushed pawn towards its start
    pushed = board.ep_square - step
    before.remove_piece_at(pushed)
    before.set_piece_at(board.ep_square + step, chess.Piece(chess.PAWN, not board.turn))
    before.turn = not board.turn
    before.ep_square = None
    return not before.was_into_check()


def generator_disagreements(white: str, black: str, samples: int, seed: int = 1) -> tuple[list, int, int]:
    """Compare ``samples`` random nodes of the table with python-chess; returns the
    disagreements (texts), how many of the nodes were positions, and how many of
    those had an en-passant state."""
    rng = random.Random(seed)
    table = fast.Table(white, black)
    children = fast.child_tables(table)
    problems = []
    positions = with_ep = 0
    for _ in range(samples):
        index = _random_node(table, rng)
        squares, side, ep = table.squares(index)
        legal, check, moves = table.moves(index, children)
        if len(set(squares)) < len(squares):  # no board: two pieces on a square
            if legal:
                problems.append(f"node {index}: overlapping squares {squares} taken as a position")
            continue
        board = table.board(index)
        where = board.fen(en_passant="fen")
        if legal != _expected_position(board, ep):
            problems.append(f"{where}: position {legal}, python-chess {not legal}")
            continue
        if not legal:
            continue
        positions += 1
        with_ep += bool(ep)
        if check != board.is_check():
            problems.append(f"{where}: check {check}, python-chess {board.is_check()}")
        mine = {uci: (child, node) for uci, child, node in moves}
        theirs = {m.uci(): m for m in board.legal_moves}
        if len(mine) != len(moves) or set(mine) != set(theirs):
            problems.append(f"{where}: moves {sorted(mine)} != python-chess {sorted(theirs)}")
            continue
        for uci, move in theirs.items():
            after = board.copy(stack=False)
            after.push(move)
            child, node = mine[uci]
            if not child.is_position(node):
                problems.append(f"{where} {uci}: leads to node {node} of {child.name}, no position")
                continue
            got = child.board(node)
            want_ep = after.ep_square if after.has_legal_en_passant() else None
            if (got.board_fen(), got.turn, got.ep_square) != (after.board_fen(), after.turn, want_ep):
                problems.append(f"{where} {uci}: leads to {got.fen()} of {child.name}, python-chess "
                                f"{after.fen(en_passant='legal')}")
            elif child.board(child.index_of_board(after)) != got or (child.unique and child.index_of_board(after) != node):
                problems.append(f"{where} {uci}: node {node} is not the node of {after.fen()}")
    return problems, positions, with_ep


GENERATOR_TABLES = [("KQ", "KR"), ("KR", "KP"), ("KP", "KP"), ("KRR", "K"), ("KP", "KN")]


@pytest.mark.parametrize("white,black", [("KQ", "KR"), ("KR", "KP"), ("KP", "KP")])
def test_the_generator_agrees_with_python_chess_on_a_sample(white, black):
    problems, positions, _ = generator_disagreements(white, black, 60)
    assert not problems, problems[:5]
    assert positions >= 20


@_SLOW
@pytest.mark.parametrize("white,black", GENERATOR_TABLES)
def test_the_generator_agrees_with_python_chess(white, black):
    problems, positions, with_ep = generator_disagreements(white, black, 4000, seed=7)
    print(f"\n{white}v{black}: 4000 random nodes, {positions} positions ({with_ep} with an en-passant state), "
          f"{len(problems)} disagreements")
    assert not problems, problems[:5]
    assert positions >= 1000


def test_en_passant_nodes_are_checked():
    """The sample of KPvKP holds nodes with an en-passant state that are positions and
    moves that lead to one."""
    rng = random.Random(3)
    table = fast.Table("KP", "KP")
    with_ep = [i for i in (_random_node(table, rng) for _ in range(400)) if table.squares(i)[2] and table.is_position(i)]
    assert with_ep
    board = table.board(with_ep[0])
    assert board.has_legal_en_passant() and any(board.is_en_passant(m) for m in board.legal_moves)
    start = table.index_of_board(chess.Board("8/8/8/8/2p5/8/1P6/K6k w - - 0 1"))
    pushes = [(uci, node) for uci, child, node in table.moves(start, fast.child_tables(table))[2] if uci == "b2b4"]
    assert pushes and table.squares(pushes[0][1])[2] == 1  # Black may take en passant: the node says so


# --- retro's values in bulk ---------------------------------------------------------

@njit(parallel=True)
def _retro_entries(nodes, n, E, ptype, pcol, counts, offsets, tables, out):
    """retro's entry of each node (the kit's stored view: the side to move's pieces kinds
    7..12 in KQRBNP order, the other's 1..6, the board turned rank-wise for Black to
    move, and the pawn that may be taken en passant kind 13; the part of that side to
    move, with or without that pawn, at ``offsets[ep > 0, side]``); -1 when the
    numbering has none."""
    chunk = 1 << 14
    for c in prange((len(nodes) + chunk - 1) // chunk):
        board = np.zeros(64, dtype=np.uint8)
        masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
        sq = np.empty(fast.MAX_SLOTS, dtype=np.int64)
        for i in range(c * chunk, min(len(nodes), (c + 1) * chunk)):
            side, ep = fast._decode(nodes[i], n, E, sq)
            pawns = 0
            for k in range(n):
                kind = ptype[k] + (7 if pcol[k] == side else 1)
                if kind == 6:
                    pawns += 1
                    if pawns == ep:  # the ep-th pawn of the side that has just moved
                        kind = 13
                board[sq[k] if side == 0 else sq[k] ^ 56] = kind
            has = 1 if ep else 0
            entry = numbering.entry_of(board, counts[has, side], tables, masks)[0]
            out[i] = offsets[has, side] + entry if entry >= 0 else -1
            for k in range(n):
                board[sq[k] if side == 0 else sq[k] ^ 56] = 0


def retro_table(path, table: fast.Table):
    """(game, tier, stored values) of retro's table holding ``table``'s positions."""
    file = DatabaseFile(path)
    try:
        game = file.game
        names = {f"{table.white}v{table.black}", f"{table.black}v{table.white}"}
        tier = next(t for t in file.tiers if game.tier_name(t) in names)
        return game, tier, game.from_stored(tier, file.read(tier))
    finally:
        file.close()


def retro_entries(game, tier, table: fast.Table, nodes: np.ndarray) -> np.ndarray:
    parts, offsets, number = game._part_offsets(tier)
    counts = np.zeros((2, 2, 13), dtype=np.int64)  # [en passant, side to move]
    at = np.zeros((2, 2), dtype=np.int64)
    for side in (0, 1):
        for kind, colour in zip(table.ptype, table.pcol):
            counts[:, side, kind + (6 if colour == side else 0)] += 1
        counts[1, side, 5] -= 1
        counts[1, side, 12] += 1
        for has in (0, 1):
            part = tuple(int(c) for c in counts[has, side])
            at[has, side] = offsets[number[part]] if part in number else -1
    out = np.empty(len(nodes), dtype=np.int64)
    _retro_entries(nodes, table.n, table.E, table.ptype, table.pcol, counts, at, game.tables_of(tier), out)
    return out


def expected_codes(values: np.ndarray, dtype) -> np.ndarray:
    """The oracle's values in retro's code: 2 plies + 1 won, 2 plies lost, the draw code."""
    v = values.astype(np.int64)
    return np.where(v > 0, 2 * v + 1, np.where(v < 0, 2 * (-v - 1), draw_value(dtype)))


def disagreements(nodes: np.ndarray, mine: np.ndarray, entries: np.ndarray, stored: np.ndarray, dtype) -> np.ndarray:
    """Which of ``nodes`` (values ``mine``) retro holds otherwise (or not at all)."""
    held = entries >= 0
    theirs = np.where(held, stored[np.where(held, entries, 0)].astype(np.int64), -1)
    return np.flatnonzero(theirs != expected_codes(mine, dtype))


def _describe(code: int, dtype) -> str:
    if code < 0:
        return "no entry"
    if code == draw_value(dtype):
        return "draw"
    if code == not_a_position(dtype):
        return "not a position"
    return f"{'win' if code & 1 else 'loss'} in {code >> 1}"


def compare_table(path, table: fast.Table, probes: int = 300) -> dict:
    """Every legal node of the solved ``table`` against retro's file ``path``: returns
    the figures, and the disagreements (FEN, retro's value, the oracle's), first 20."""
    start = time.perf_counter()
    game, tier, stored = retro_table(path, table)
    nodes = np.flatnonzero(table.legal).astype(np.int64)
    entries = retro_entries(game, tier, table, nodes)
    mine = table.values[nodes]
    bad = disagreements(nodes, mine, entries, stored, game.value_dtype)
    report = {"table": table.name, "positions": len(nodes), "disagreements": len(bad), "examples": []}
    for i in bad[:20]:
        code = int(stored[entries[i]]) if entries[i] >= 0 else -1
        report["examples"].append((table.board(int(nodes[i])).fen(en_passant="legal"), _describe(code, game.value_dtype),
                                   fast.value_pairs([mine[i]])[0]))
    # retro counts both colours of every position: twice ours, or as many for a table of
    # the same pieces on both sides (the colour-swapped twin is then one of our nodes)
    twins = 1 if table.white == table.black else 2
    report["counted"] = (game.positions_in(tier), twins * len(nodes))
    # every position retro stores is one of ours: its canonical entries holding a value
    # (a duplicate entry of a symmetric class may hold one too) are those ours hit
    used = np.unique(entries[entries >= 0])
    everything = np.arange(len(stored), dtype=np.int64)
    canonical = game.canonical_entries(tier, everything) == everything
    report["entries"] = (int((canonical & (stored != not_a_position(game.value_dtype))).sum()), len(used))
    # through FEN, each probed position as it is and with its colours swapped
    rng = np.random.default_rng(5)
    probed = rng.choice(nodes, size=min(probes, len(nodes)), replace=False)
    with open_database(path) as db:
        for node in probed.tolist():
            result, plies = fast.value_pairs([table.values[node]])[0]
            board = table.board(node)
            for shown in (board, board.mirror()):
                outcome = db.probe(shown.fen(en_passant="legal"))
                if outcome.plies != plies or outcome.is_draw != (result == "draw") or \
                        (not outcome.is_draw and outcome.side_to_move_wins != (result == "win")):
                    report["examples"].append((shown.fen(), str(outcome), (result, plies)))
                    report["disagreements"] += 1
    report["seconds"] = time.perf_counter() - start
    return report


def _check_report(report: dict) -> None:
    print(f"\n{report['table']}: {report['positions']:,} positions compared, {report['disagreements']} "
          f"disagreements, retro counts {report['counted'][0]:,} (ours x colours: {report['counted'][1]:,}), "
          f"retro's {report['entries'][0]:,} stored positions, {report['entries'][1]:,} hit; "
          f"{report['seconds']:.1f} s", flush=True)
    assert report["disagreements"] == 0, report["examples"]
    assert report["counted"][0] == report["counted"][1]
    assert report["entries"][0] == report["entries"][1]


def test_the_comparison_finds_a_wrong_value():
    """The comparison of values: a value off by one ply, a win for a loss, a draw for a
    win, a position retro does not hold: each found, and nothing else."""
    dtype = np.uint16
    mine = np.array([3, -1, 0, -5, 7], dtype=np.int16)  # win 3, loss 0, draw, loss 4, win 7
    stored = expected_codes(mine, dtype).astype(dtype)
    entries = np.arange(5, dtype=np.int64)
    nodes = np.arange(5, dtype=np.int64)
    assert len(disagreements(nodes, mine, entries, stored, dtype)) == 0
    for i, wrong in ((0, 2 * 5 + 1), (1, 2 * 0 + 1), (2, 2 * 7 + 1), (3, draw_value(dtype)),
                     (4, not_a_position(dtype))):
        corrupted = stored.copy()
        corrupted[i] = wrong
        assert disagreements(nodes, mine, entries, corrupted, dtype).tolist() == [i]
    missing = entries.copy()
    missing[2] = -1
    assert disagreements(nodes, mine, missing, stored, dtype).tolist() == [2]


def _material(board: chess.Board) -> tuple[str, str]:
    def side(colour):
        return "".join(sorted((p.symbol().upper() for p in board.piece_map().values() if p.color == colour),
                              key=fast.TYPES.index))
    return side(chess.WHITE), side(chess.BLACK)


def minimax_disagreements(table: fast.Table, nodes: np.ndarray) -> list:
    """The positions ``nodes`` of the solved ``table`` whose value is not the best of
    their children's through python-chess's legal moves (the winner the quickest win,
    the loser the longest loss, checkmate a loss in 0, stalemate a draw): the solver's
    values against moves written by others, en passant included."""
    problems = []
    for node in nodes.tolist():
        board = table.board(node)
        children = []
        for move in board.legal_moves:
            after = board.copy(stack=False)
            after.push(move)
            child = table if _material(after) == (table.white, table.black) else fast.solve(*_material(after))
            children.append(int(child.values[child.index_of_board(after)]))
        if not children:
            expected = -1 if board.is_check() else 0
        elif any(v < 0 for v in children):
            expected = min(-v - 1 for v in children if v < 0) + 1
        elif all(v > 0 for v in children):
            expected = -(max(children) + 1) - 1
        else:
            expected = 0
        if int(table.values[node]) != expected:
            problems.append((board.fen(en_passant="legal"), fast.value_pairs([table.values[node]])[0],
                             fast.value_pairs([expected])[0]))
    return problems


# --- the slow comparisons -------------------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chess4")
    made: dict = {}

    def get(material: str):
        if material not in made:
            start = time.perf_counter()
            made[material] = build(games.get("chess", material), folder / f"{material}.h5", progress=False).path
            print(f"\nretro build {material}: {time.perf_counter() - start:.1f} s", flush=True)
        return made[material]
    return get


def _solve(white: str, black: str):
    start = time.perf_counter()
    table = fast.solve(white, black, log=lambda text: print(f"\n  oracle {text}", flush=True))
    print(f"\noracle {white}v{black} and its children: {time.perf_counter() - start:.1f} s", flush=True)
    return table


@_SLOW
def test_kqkr_agrees_with_the_oracle_in_every_position(built):
    path = built("KQvKR")
    table = _solve("KQ", "KR")
    _check_report(compare_table(path, table))
    # and the comparison sees a wrong value: one stored value corrupted in memory
    game, tier, stored = retro_table(path, table)
    nodes = np.flatnonzero(table.legal)[::997].astype(np.int64)
    entries = retro_entries(game, tier, table, nodes)
    stored = stored.copy()
    stored[entries[5]] ^= 2  # a win or loss one ply off, or a draw turned into a position's code
    assert 5 in disagreements(nodes, table.values[nodes], entries, stored, game.value_dtype).tolist()


@_SLOW
def test_krkp_and_the_tables_it_leads_into_agree_with_the_oracle(built):
    path = built("KRvKP")
    table = _solve("KR", "KP")
    _check_report(compare_table(path, table))
    for white, black in table.children:  # KRvKQ, KRvKR, KRvKB, KRvKN, and those of 3 pieces
        child = fast.solve(white, black)
        if child.n > 2:
            _check_report(compare_table(path, child, probes=50))
    rng = np.random.default_rng(11)
    problems = minimax_disagreements(table, rng.choice(np.flatnonzero(table.legal), 2000, replace=False))
    print(f"\nKRvKP: 2000 positions checked against python-chess's moves, {len(problems)} disagreements")
    assert not problems, problems[:5]


@_KPKP
def test_kpkp_agrees_with_the_oracle_in_every_position_en_passant_included(built):
    """Pawns of both sides: every position of KPvKP, those where the side to move may
    take en passant among them, has the oracle's value in retro's table (and the tables
    it leads into agree); the solved values satisfy the minimax rule through
    python-chess's moves on random positions, and on random positions with an
    en-passant state."""
    path = built("KPvKP")
    table = _solve("KP", "KP")
    _check_report(compare_table(path, table))
    for white, black in table.children:
        child = fast.solve(white, black)
        if child.n > 2:
            _check_report(compare_table(path, child, probes=30))
    nodes = np.flatnonzero(table.legal)
    with_ep = nodes[(nodes >> 1) & 1 == 1]  # E = 2: index = (squares * 2 + ep) * 2 + side
    rng = np.random.default_rng(11)
    picked = np.concatenate([rng.choice(nodes, 2000, replace=False), rng.choice(with_ep, 1000, replace=False)])
    assert all(table.board(int(n)).has_legal_en_passant() for n in picked[2000:])
    problems = minimax_disagreements(table, picked)
    print(f"\nKPvKP: {len(nodes):,} positions ({len(with_ep):,} with an en-passant state); {len(picked)} "
          f"checked against python-chess's moves, {len(problems)} disagreements", flush=True)
    assert not problems, problems[:5]
