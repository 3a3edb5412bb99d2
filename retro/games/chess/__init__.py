"""Chess endgames: every table of kings and up to three more pieces, distance to mate.

* :mod:`.game`: the game (:class:`~.game.Chess`, registered as ``chess``): tables by
  material, both colours in one table, built on the kit (:mod:`retro.games.kit`).
* :mod:`.rules`: the rules as the kit's jitted kernels over cell sets: ``outcome``,
  ``moves``, ``unmoves``, with ``tables()`` their ``consts``. Standard chess on 8x8:
  every piece's moves, pawns' double steps, en passant, promotion to queen, rook, bishop
  or knight; no castling; checkmate loses (0 plies), stalemate is a draw. Checked
  against python-chess (``tests/test_chess_rules.py``).
* :mod:`.fen`: plain Python, FEN (its first four fields, castling ``-``) to and from the
  board (notation codes ``KQRBNPkqrbnp`` as 1..12) and the en-passant extra, with
  one-line errors for what is no position here.

python-chess users probe the tables through :mod:`retro.chess`.
"""
