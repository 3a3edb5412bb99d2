"""Chess endgames (kings and up to three more pieces): the rules, not yet a game.

What is here:

* :mod:`.rules`: the rules as the kit's jitted kernels over cell sets (``kernels =
  "masks"``): ``outcome``, ``moves``, ``unmoves``, with ``tables()`` their ``consts``.
  Standard chess on 8x8: every piece's moves, pawns' double steps, en passant,
  promotion to queen, rook, bishop or knight; no castling; checkmate loses (0 plies),
  stalemate is a draw. Boards from the side to move's view (types K Q R B N P: kinds
  1..6 the other side's, 7..12 the mover's), mirrored rank-wise for Black to move; the
  en-passant state (the file of a pawn that has just made a double step, only where a
  capture en passant is legal) is the one extra. Checked against python-chess
  (``tests/test_chess_rules.py``).
* :mod:`.fen`: plain Python, FEN (its first four fields, castling ``-``) to and from
  the kit's board (notation codes ``KQRBNPkqrbnp`` as 1..12, or the stored view) and
  the en-passant extra, with one-line errors for what is no position here.

What is not yet: the game class (tiers by material and en-passant state, the
symmetries: the 8 of the square without pawns, the left-right mirror with them), its
registration, the numbering of 64 squares, a build, the notation of moves.
"""
