"""The answers of the web API, built on the probe API; no HTTP here.

:class:`Service` holds one open :class:`~retro.probe.Database` per board size served
and turns request parameters into the JSON objects of API v1. Every value comes
from the database (:meth:`~retro.probe.Database.probe`, ``moves``, ``line``,
``probe_many``), every move from :class:`~retro.position.Position`, every computer
move from :func:`retro.play.computer_move`, and every text from :mod:`retro.text`.

Errors are exceptions with an HTTP status (:class:`RequestError`) or retro's own
(:class:`~retro.errors.PositionError`: 400); :func:`public_error` turns any of them
into the one line a client may see, which never names a file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import games
from .._version import __version__
from ..errors import (
    BoardMismatchError,
    ChecksumError,
    DatabaseError,
    PositionError,
    PositionNotInDatabaseError,
    quoted,
)
from ..play import computer_move
from ..games.musketeers.position import Position, parse_canonical
from ..db.database import Database, open_database
from ..text import BATCH_RESULT_ENDINGS, line_json, move_json, probe_answer, probe_answer_bytes, value_json
from .shared import Attachment, release_free_memory

log = logging.getLogger("retro.web")

MAX_POSITION_CHARS = 100  # a 5x5 position is 31 characters; a little room for spacing
MAX_BATCH = 10_000  # positions in one POST /api/v1/probe
MAX_SEED = (1 << 64) - 1


def content_tag(data: bytes, chars: int = 32) -> str:
    """A strong ETag naming ``data``: a quoted prefix of its SHA-256."""
    return '"' + hashlib.sha256(data).hexdigest()[:chars] + '"'


# --- errors ---------------------------------------------------------------------------


class RequestError(Exception):
    """A request the API cannot answer, with its HTTP status (400 unless a subclass says)."""

    status = 400


class NotServedError(RequestError):
    """A board size, or a layer of an endgame database, that this server does not hold."""

    status = 404


class TooLargeError(RequestError):
    """A body over the size limit, or a batch of too many positions."""

    status = 413


def public_error(error: BaseException, secrets: tuple[str, ...] = ()) -> tuple[int, str]:
    """The HTTP status and the one-line message a client may see for ``error``.

    Input errors keep retro's own words (the CLI's). A database's messages name its
    file, so they are replaced by words that do not; ``secrets`` (the served paths)
    never appear in any message.
    """
    if isinstance(error, RequestError):
        status, message = error.status, str(error)
    elif isinstance(error, PositionError):
        status, message = 400, str(error)
    elif isinstance(error, (BoardMismatchError, PositionNotInDatabaseError)):
        status, message = 404, "this server holds no database for that position"
    elif isinstance(error, ChecksumError):
        status, message = 503, "the database is damaged (a checksum failed); the server's log says more"
    elif isinstance(error, DatabaseError):
        status, message = 503, "the database cannot answer; the server's log says more"
    else:  # a bug: the log has the traceback, the client gets one plain line
        status, message = 400, "the server could not answer this request"
    message = " ".join(message.split()) or "bad request"
    if any(secret and secret in message for secret in secrets):
        message = "the request could not be answered"
    return status, message


# --- which database answers ------------------------------------------------------------

# How a position is matched to a database served (Service.parse), as the API says it.
CHOICE = ("A position is answered by the board (database) of the variant named: a board's `key` "
          "or a game and its variant. With a game named without its variant, or no game, by the "
          "position's own variant when it is served and holds the position (nine men's morris: "
          "the variant whose pieces are the position's, board and hand together for each side, "
          "e.g. 4 white and 3 black pieces: nine-mens-morris 4,3), else by the first variant of "
          "the same game served here that holds it, in the order of `retro games` (nine men's "
          "morris: 9 pieces each down to 3, then unequal counts; the four-player race: without "
          "jumps, then with). The answer's `board` is the key of the board that answered, its "
          "`game` that board's game and variant.")


def own_variant(game, position):
    """The variant of ``game`` that ``position`` is a position of before any other.

    Nine men's morris: the variant whose pieces are the position's own, board and hand
    together for each side (a position with 4 white and 3 black pieces: ``4,3``), or None
    when a side has fewer than 3 (a finished game, of no variant more than another);
    every other game: ``game``, the variant its notation reads."""
    if not hasattr(game, "white_pieces"):
        return game
    white = position.white.bit_count() + position.white_hand
    black = position.black.bit_count() + position.black_hand
    try:
        return games.get(game.name, str(white) if white == black else f"{white},{black}")
    except games.UnknownGameError:
        return None


def _variant_order(board) -> tuple[int, int]:
    """Where a board's game comes in ``retro games``: the game, then its variant."""
    game = board.game
    return list(games.GAMES).index(game.name), type(game).variants.index(game.variant)


def _pieces(game) -> str | None:
    """A nine men's morris variant's pieces in words (``9 pieces each``); else None."""
    if not hasattr(game, "white_pieces"):
        return None
    if game.white_pieces == game.black_pieces:
        return f"{game.white_pieces} pieces each"
    return f"{game.white_pieces} white and {game.black_pieces} black pieces"


# --- the databases served ---------------------------------------------------------------


@dataclass
class Board:
    """One database served: the game (and Three Musketeers board) it answers and what
    /api/v1/info says of it."""

    db: Database
    digest: str
    metadata: dict
    attachment: Attachment | None = None
    _batch_db: Database | None = field(default=None, init=False, repr=False)
    _tiers: frozenset | None = field(default=None, init=False, repr=False)
    _partial: bool | None = field(default=None, init=False, repr=False)

    @property
    def game(self):
        return self.db.game

    @property
    def key(self) -> str:
        """The board's name in the API: ``three-musketeers-5x5``, ``tic-tac-toe``."""
        return self.game.file_stem

    @property
    def musketeers(self) -> bool:
        return self.game.name == games.DEFAULT_GAME

    @property
    def size(self) -> int:
        return self.db.size

    def batch_db(self) -> Database:
        """The database a batch reads (called by one batch at a time): :attr:`db` once
        the values are in memory (reading the table is thread safe), else a second
        object on the same file with a chunk cache of its own, closed once the values
        are in memory."""
        if self.db.in_memory:
            if self._batch_db is not None:
                self._batch_db.close()
                self._batch_db = None
                release_free_memory()  # its chunk cache
            return self.db
        if self._batch_db is None:
            self._batch_db = open_database(self.db.path)
        return self._batch_db

    def close(self) -> None:
        self.db.close()
        if self._batch_db is not None:
            self._batch_db.close()

    @property
    def max_enemy_men(self) -> int:
        return self.db.max_enemy_men

    def refresh(self) -> None:
        """Switch to the shared in-memory values once they are ready."""
        values = self.attachment.poll()
        if values is not None:
            self.db.attach(values)
            self.attachment = None
            release_free_memory()  # the chunks it decompressed while on disk
        elif self.attachment.failed:
            self.attachment = None

    @property
    def label(self) -> str:
        """What the page calls this board: the game's title, with its variant where it
        has several (``Three Musketeers 5×5``, ``Nine men's morris with 3 pieces``)."""
        game = self.game
        if self.musketeers:
            return f"{game.title} {self.size}\u00d7{self.size}"
        if game.short_name != game.full_name:
            return game.short_name
        return f"{game.title} {game.variant}" if game.variant else game.title  # Teeko 4x4

    def start(self):
        """The start of the game, or None when the database (an endgame database, or a
        build stopped after a stage: ``retro build --stage moving``) does not hold it."""
        start = self.game.start()
        if self.musketeers:
            return None if start.enemy_count > self.max_enemy_men else start
        game = self.game
        if self.partial and game.stored(start) and game.tier_of(start) not in self._held:
            return None
        return start

    @property
    def _held(self) -> frozenset:
        """The tiers the database holds (every game but Three Musketeers)."""
        if self._tiers is None:
            self._tiers = frozenset(self.db.tiers)
        return self._tiers

    @property
    def partial(self) -> bool:
        """Whether the database holds part of the game only (not Three Musketeers)."""
        if self._partial is None:
            self._partial = not self.musketeers and not self._held >= frozenset(self.game.tiers())
        return self._partial

    @property
    def scope(self) -> str | None:
        """What the database holds, briefly, when it is not the whole game (None):
        ``at most 4 enemy men``, ``moving stage only``, ``12 of 40 tiers``."""
        if self.musketeers:
            return (None if self.game.start().enemy_count <= self.max_enemy_men
                    else f"at most {self.max_enemy_men} enemy men")
        if not self.partial:
            return None
        game = self.game
        for stage in game.stages:
            if frozenset(game.stage_tiers(stage)) == self._held:
                return f"{stage} stage only"
        return f"{len(self._held)} of {len(game.tiers())} tiers"

    @property
    def name(self) -> str:
        """How the server's messages name this board: its key, and what it holds when
        not the whole game (``nine-mens-morris-5 (moving stage only)``)."""
        return self.key + (f" ({self.scope})" if self.scope else "")

    @property
    def holds(self) -> str | None:
        """What the database holds, in words, when it is not the whole game (None)."""
        if self.musketeers:
            return (None if self.game.start().enemy_count <= self.max_enemy_men
                    else f"positions with at most {self.max_enemy_men} enemy men")
        if not self.partial:
            return None
        game = self.game
        every = game.tiers()
        for stage in game.stages:
            if frozenset(game.stage_tiers(stage)) == self._held:
                return f"the positions of the {stage} stage"
        return f"the positions of {len(self._held)} of the game's {len(every)} tiers"

    def info(self) -> dict:
        """What /api/v1/info says of this board: the game, its references, its sides, its
        geometry (for a page that knows no rules), its start and its file; Three
        Musketeers adds its board size and enemy-men limit."""
        game, start = self.game, self.start()
        out = {
            "key": self.key,
            "game": game.name,
            "variant": game.variant,
            "full_name": game.full_name,
            "title": game.title,
            "short_name": game.short_name,
            "label": self.label,
            "rules": game.rules,
            "notation": game.notation,
            "references": [dict(reference) for reference in game.references],
            "sides": [{"name": side.value, "letter": side.letter, "title": side.title,
                       "plural": side.plural, **({"mates": side.mates} if getattr(side, "mates", None) else {})}
                      for side in game.sides],
            "geometry": game.geometry(),
            **({"note": game.values_note} if game.values_note else {}),
        }
        if self.musketeers:
            out.update({"size": self.size, "board": f"{self.size}x{self.size}",
                        "max_enemy_men": self.max_enemy_men, "positions": 2 * self.db.table_size})
        else:
            out["positions"] = game.positions(self.db.tiers)
        out.update({
            "format_version": self.metadata.get("format_version"),
            "digest": self.digest,
            "built": self.metadata.get("created"),
            "retro_version_built": self.metadata.get("retro_version"),
            "start": None if start is None else str(start),
            "holds": self.holds,
            "values": "memory" if self.db.in_memory else "disk",
            "loading": self.attachment is not None,
        })
        return out


class Service:
    """The API's answers over the databases served, one per game variant."""

    def __init__(self, boards: list[Board]) -> None:
        keys = [board.key for board in boards]
        if len(set(keys)) != len(keys):
            raise ValueError("serve one database per game (and Three Musketeers board size)")
        ordered = sorted(boards, key=lambda b: (not b.musketeers, b.size if b.musketeers else 0))
        self.boards = {board.key: board for board in ordered}
        self._pending = [b for b in self.boards.values() if b.attachment is not None]
        self.paths = tuple(s for b in boards for s in (str(b.db.path), str(Path(b.db.path).resolve())))
        tag = "\n".join([f"retro {__version__}"] + [f"{b.key}:{b.digest}" for b in self.boards.values()])
        self.etag = content_tag(tag.encode())
        self._batch_lock = threading.Lock()

    @classmethod
    def open(cls, paths: list[Path], shared: dict[str, str] | None = None) -> Service:
        """Open each database (on disk); ``shared`` maps a path to its shared values' file."""
        boards: list[Board] = []
        try:
            for path in paths:
                db = open_database(path)
                boards.append(Board(db, db.digest, db.metadata))
                target = (shared or {}).get(str(path))
                if target is not None:
                    boards[-1].attachment = Attachment(target, db.table_size,
                                                       boards[-1].digest)
        except BaseException:
            for board in boards:
                board.db.close()
            raise
        return cls(boards)

    def close(self) -> None:
        for board in self.boards.values():
            board.close()

    def waiting(self) -> bool:
        """Whether some board still waits for its shared values to load."""
        return bool(self._pending)

    def refresh(self) -> None:
        """Pick up shared values that finished loading."""
        if self._pending:
            for board in self._pending:
                board.refresh()
            attached = [b for b in self._pending if b.attachment is None]
            self._pending = [b for b in self._pending if b.attachment is not None]
            # The batches' own database on the same file keeps HDF5's chunk caches of
            # every layer alive (about 90 MB for 5x5): close it now unless a batch runs
            # (then the next batch does).
            if attached and self._batch_lock.acquire(blocking=False):
                try:
                    for board in attached:
                        board.batch_db()
                finally:
                    self._batch_lock.release()

    def warm(self) -> None:
        """Run every kernel a request uses once, so the first answers are fast."""
        for board in self.boards.values():
            start = board.game.start()
            if not board.musketeers and board.start() is None:
                continue  # a build stopped after a stage: no position known to be held
            if board.musketeers:
                enemies = start.enemies
                while enemies.bit_count() > board.max_enemy_men:  # an endgame database
                    enemies &= enemies - 1
                start = Position(start.side, start.musketeers, enemies, board.size)
            text = str(start)
            for answer, arguments in ((self.probe, (text, board.key)), (self.play, (text, "0", board.key)),
                                      (self.batch, ([text], board.key))):
                try:
                    answer(*arguments)
                except (PositionError, RequestError, PositionNotInDatabaseError):
                    pass  # a finished position, or one the database does not hold: nothing to warm

    # --- parameters ------------------------------------------------------------------

    def parse(self, text: str | None, game: str | None = None):
        """``(board, position)`` of a request's position (groups separated by spaces or
        ``_``); NotServedError when no database served here answers it.

        ``game`` names the notation: a game (``nine-mens-morris``), a variant of one
        (``nine-mens-morris 3``, or a board's key ``nine-mens-morris-3``), or None: the
        game whose notation reads the text. A variant named answers alone. Otherwise
        (:data:`CHOICE`, which the API's description states) the position's own variant
        answers when it is served and holds the position (:func:`own_variant`: for nine
        men's morris the variant whose pieces are the position's, board and hand
        together); else the first served variant of the same game, in the game's order
        of variants (``retro games``' order), that holds it. The answer names the board
        that answered. Errors are the CLI's: those of ``retro probe POSITION`` without
        ``game``, else those of the variant named (``retro probe --pieces 3 POSITION``),
        or of the first served variant of the game named; a position no board served
        holds names the variant it needs.
        """
        if text is None:
            raise RequestError("missing parameter 'position', e.g. position=M_XXXXO_XXXXX_XXOXX_XXXXX_OXXXX")
        if len(text) > MAX_POSITION_CHARS:
            raise RequestError(f"a position is at most {MAX_POSITION_CHARS} characters long; "
                               f"this one has {len(text):,}")
        text = text.replace("_", " ")
        named, exact = self._game_named(game)
        found = position = failure = None
        try:
            if named is None:
                found, position = games.identify(text)
            else:
                position = named.parse(text)
                found = named.for_position(position)
        except PositionError as error:
            failure = error
        if exact:  # that variant alone
            if failure is not None:
                raise failure
            return self.board(found, position), position
        refused = partial = None
        own = None if found is None else own_variant(found, position)
        if own is not None and own.file_stem in self.boards:  # (the fast path)
            try:
                mine = position if own is found else own.parse(text)
                return self.board(own, mine), mine
            except NotServedError as error:  # a database of part of the game
                partial = error
            except PositionError as error:
                refused = error
        # Another variant of the game served here, in the game's order of variants.
        name = (found or named).name if (found or named) is not None else None
        for board in sorted(self.boards.values(), key=_variant_order):
            if board.game is own or (name is not None and board.game.name != name) or (
                    name is None and board.game is games.get(board.game.name)):
                continue
            try:
                other = board.game.parse(text)
            except PositionError as error:
                refused = refused or error
                continue
            if board.game.for_position(other) is board.game:
                try:
                    return self.board(board.game, other), other
                except NotServedError as error:  # a database of part of the game
                    partial = partial or error
        if partial is not None:
            raise partial
        if found is not None:
            return self.board(own or found, position), position  # NotServedError: the variant it needs
        raise refused if refused is not None and named is not None else failure

    def _game_named(self, text: str | None):
        """``(game, exact)``: the game a ``game`` parameter names (None for None), and
        whether it names one variant (a board's key, ``nine-mens-morris-3``, or a game and
        its variant, ``nine-mens-morris 3``) rather than a game by its name alone."""
        if text is None:
            return None, False
        board = self.boards.get(text)
        if board is not None:  # a board's key
            return board.game, True
        name, _, variant = text.strip().partition(" ")
        try:
            return games.get(name, variant.strip() or None), bool(variant.strip())
        except games.UnknownGameError as error:
            if name in games.GAMES:  # a game with a variant it does not have
                raise RequestError(f"{error} (boards served: {self.served()})") from None
            unknown = error
        for known in games.GAMES:  # the key of a board not served here: nine-mens-morris-5
            if name.startswith(known + "-") and not variant:
                try:
                    return games.get(known, name[len(known) + 1:]), True
                except games.UnknownGameError:
                    pass
        raise RequestError(f"{unknown} (boards served: {self.served()})") from None

    def board(self, game, position) -> Board:
        """The board that answers ``position`` of ``game``; NotServedError when there is none."""
        board = self.boards.get(game.file_stem)
        if board is None:
            pieces = f" ({_pieces(game)})" if _pieces(game) else ""
            raise NotServedError(f"no {game.full_name} database{pieces} is served here "
                                 f"(boards served: {self.served()})")
        if board.musketeers:
            if position.enemy_count > board.max_enemy_men:
                raise NotServedError(
                    f"the position has {position.enemy_count} enemy men; the {board.size}x{board.size} "
                    f"database served here holds positions with 0..{board.max_enemy_men} enemy men")
        elif board.partial and game.stored(position) and game.tier_of(position) not in board._held:
            raise NotServedError(f"the {game.full_name} database served here holds {board.holds} only")
        return board

    def served(self) -> str:
        """The boards served, as the server's messages and its banner name them: each
        board's key (what the ``game`` parameter and the page's links take), and what it
        holds when not the whole game."""
        return ", ".join(board.name for board in self.boards.values()) or "none"

    @staticmethod
    def seed(text: str | None) -> int | None:
        if text is None:
            return None
        if not (text.isascii() and text.isdigit()) or len(text) > 20 or int(text) > MAX_SEED:
            raise RequestError(f"seed must be a whole number from 0 to {MAX_SEED}, not {quoted(text, 30)}")
        return int(text)

    # --- answers ---------------------------------------------------------------------

    def probe(self, text: str | None, game: str | None = None) -> bytes:
        """GET /api/v1/probe: the value, and every move best first with where it leads
        (the JSON of :func:`retro.text.probe_answer`), and the key of the board that
        answered (``board``, last)."""
        board, position = self.parse(text, game)
        if board.musketeers:  # the hot path: one kernel finds every value, another writes the JSON
            answer = probe_answer_bytes(position, *board.db.probe_rows(position))
            return answer[:-1] + b',"board":"' + board.key.encode() + b'"}'
        db = board.db
        return _json({**probe_answer(position, db.probe(position), db.children(position), db.game),
                      "board": board.key})

    def tablebase(self, fen: str | None) -> bytes:
        """GET /standard: a chess position's value and every move's, best first, in the
        JSON of lichess's tablebase server (distances to mate; no fifty-move rule, so no
        DTZ: its fields are null)."""
        if fen is None:
            raise RequestError("missing parameter 'fen', e.g. fen=8/8/8/8/8/2k5/8/KQ6_w_-_-")
        board, position = self.parse(fen, "chess")
        db = board.db
        game = position.game
        answer = lichess_entry(position, db.probe(position))
        answer["moves"] = []
        for move, outcome in db.moves(position):
            after = position.play(move)
            entry = {"uci": move.text, "san": game.san(position, move),
                     "zeroing": position.board[game.names.index(move.text[2:4])] != 0
                     or position.board[game.names.index(move.text[:2])] in (6, 12),
                     **lichess_entry(after, outcome)}
            answer["moves"].append(entry)
        return _json(answer)

    def line(self, text: str | None, game: str | None = None) -> bytes:
        """GET /api/v1/line: the principal line to the end, each step with its value, and
        the board that answered."""
        board, position = self.parse(text, game)
        db = board.db
        return _json({**line_json(position, db.probe(position), db.line_steps(position), db.game),
                      "board": board.key})

    def play(self, text: str | None, seed: str | None, game: str | None = None) -> bytes:
        """GET /api/v1/play: the computer's move (as ``retro play`` chooses), its result and
        the board that answered."""
        board, position = self.parse(text, game)
        db = board.db
        rng = self.seed(seed)
        move = computer_move(db, position, rng=np.random.default_rng() if rng is None else rng)
        after = position.play(move)
        return _json({**move_json(move, after, db.probe(after)), "board": board.key})

    def batch(self, items: list, game: str | None = None) -> bytes:
        """POST /api/v1/probe: ``{"results": [...]}`` as JSON bytes, one result per item.

        Every position that :meth:`Position.parse` accepts is first written with single
        spaces (what ``str(position)`` prints), so all of them are parsed and probed a
        whole array at a time (:func:`parse_canonical`, ``probe_many``: on disk each
        chunk the batch touches is decompressed once); only items that are not
        positions go through :meth:`Position.parse` alone, so that their error names
        their own problem.

        Safe to call from another thread than the one answering single probes: one
        batch at a time, and on disk through a database object of its own
        (:meth:`Board.batch_db`), since a database's chunk cache is not thread safe.
        """
        with self._batch_lock:
            return self._batch(items, game)

    def _batch(self, items: list, game: str | None = None) -> bytes:
        texts = [item.replace("_", " ") if isinstance(item, str) and len(item) <= MAX_POSITION_CHARS
                 else None for item in items]
        results: list[str | None] = [None] * len(items)
        answered = self._probe_canonical(texts, results)
        if answered < len(texts) - texts.count(None):
            # Then the others, written with single spaces (only they: splitting every
            # text would cost a canonical batch a third more).
            spaced = [None if result is not None or text is None else " ".join(text.split())
                      for text, result in zip(texts, results)]
            self._probe_canonical(spaced, results)
        for i, item in enumerate(items):
            if results[i] is not None:
                continue
            try:
                if not isinstance(item, str):
                    raise RequestError(f"a position must be text, not {_json_type(item)}")
                board, position = self.parse(item, game)
                outcome = board.batch_db().probe(position)
                answer = {"position": str(position), **value_json(outcome)}
            except (PositionError, RequestError, DatabaseError) as error:
                if isinstance(error, ChecksumError):
                    raise
                answer = {"position": item, "error": public_error(error, self.paths)[1]}
            # The item is echoed as strict JSON: a number JSON cannot write back (1e400)
            # as null, a lone surrogate (valid in Python's JSON only) as "?".
            results[i] = json.dumps(answer, separators=(",", ":"), ensure_ascii=False,
                                    default=_unwritable).encode("utf-8", "replace").decode()
        return ('{"results":[' + ",".join(results) + "]}").encode()

    def _probe_canonical(self, texts: list[str | None], results: list[str | None]) -> int:
        """Probe every text in canonical notation (:func:`parse_canonical`) of a board
        served, an array per board, and write its result into ``results``; how many."""
        answered = 0
        for size, (index, side, musketeers, enemies, men) in parse_canonical(texts).items():
            board = self.boards.get(games.musketeers_board(size).file_stem)
            if board is None:
                continue  # answered one by one, with the error
            fits = men <= board.max_enemy_men
            index, side, musketeers, enemies = index[fits], side[fits], musketeers[fits], enemies[fits]
            if len(index) == 0:
                continue
            musketeers_win, plies = board.batch_db().probe_many((side, musketeers, enemies))
            endings = BATCH_RESULT_ENDINGS
            for i, value in zip(index.tolist(), (2 * plies + musketeers_win).tolist()):
                results[i] = '{"position":"' + texts[i] + endings[value]
            answered += len(index)
        return answered

    def info_etag(self) -> str:
        """The ETag of :meth:`info`: :attr:`etag` once no shared values are loading (what
        info says then stays so), else one naming the boards still loading."""
        if not self._pending:
            return self.etag
        loading = ",".join(board.key for board in self._pending)
        return content_tag(f"{self.etag} loading {loading}".encode())

    def info(self) -> dict:
        """GET /api/v1/info: the boards served and retro's version (never a path)."""
        return {
            "retro_version": __version__,
            "api": "v1",
            "boards": [board.info() for board in self.boards.values()],
        }


def lichess_entry(position, outcome) -> dict:
    """The fields lichess's tablebase server gives a position (or a move's), from its
    side to move's view: ``dtm`` in plies, positive when it mates, negative when it is
    mated (0 when checkmated, and for a draw)."""
    over = position.is_over()
    category = "draw" if outcome.is_draw else "win" if outcome.side_to_move_wins else "loss"
    dtm = 0 if outcome.is_draw else outcome.plies if outcome.side_to_move_wins else -outcome.plies
    return {"checkmate": over and outcome.winner is not None, "stalemate": over and outcome.is_draw,
            "variant_win": False, "variant_loss": False, "insufficient_material": insufficient_material(position),
            "dtz": None, "precise_dtz": None, "dtm": dtm, "dtw": None, "dtc": None, "category": category}


def insufficient_material(position) -> bool:
    """Neither side can mate whatever is played: kings alone, a king and one minor piece
    against a king, or bishops only, all on squares of one colour."""
    pieces = [(s, c) for s, c in enumerate(position.board) if c and c not in (1, 7)]
    if any((c - 1) % 6 in (1, 2, 5) for _, c in pieces):  # a queen, a rook or a pawn
        return False
    if len(pieces) <= 1:
        return True
    bishops = [s for s, c in pieces if (c - 1) % 6 == 3]
    return len(bishops) == len(pieces) and len({(s // 8 + s % 8) % 2 for s in bishops}) == 1


def _json(data: dict) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


class Unwritable:
    """A number of a request body that has no JSON value of its own in the answer: one
    out of float range, or too long to convert."""


def _unwritable(value):
    if isinstance(value, Unwritable):
        return None
    raise TypeError(f"{type(value).__name__} is not JSON")


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, Unwritable)):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
