"""The OpenAPI document of API v1, and a plain docs page made from it (no CDN)."""

from __future__ import annotations

import html
import json
import re

from .._version import __version__
from .service import CHOICE

START = "M_XXXXO_XXXXX_XXOXX_XXXXX_OXXXX"

_POSITION = {
    "name": "position", "in": "query", "required": True,
    "description": "A position in the notation of its game, groups separated by spaces "
                   "(URL-encoded) or by _. Three Musketeers: M or E (side to move), then one "
                   "group per row from row 1, columns a to e; O musketeer, X enemy man, . "
                   "empty. Tic-tac-toe: X or O, then the rows (X_..._.X._..O). Morris: W or B, "
                   "White's and Black's pieces in hand, then the points row by row "
                   "(W_3_3_..._.W._...). GET /api/v1/info gives each game's notation.",
    "schema": {"type": "string", "maxLength": 100}, "example": START,
}
_GAME = {
    "name": "game", "in": "query", "required": False,
    "description": "The game whose notation the position is in, where the notation alone does "
                   "not say: a name of `retro games` (e.g. three-mens-morris-diagonal), a game "
                   "and its variant (`nine-mens-morris 3`) or a board's `key` from "
                   "/api/v1/info (nine-mens-morris-3); without it, the game whose notation "
                   "reads the position. " + CHOICE,
    "schema": {"type": "string", "maxLength": 40}, "example": "tic-tac-toe",
}
_FEN = {
    "name": "fen", "in": "query", "required": True,
    "description": "A chess position: FEN's first four fields (castling '-'), separated by spaces "
                   "(URL-encoded) or by _; the move counters may follow.",
    "schema": {"type": "string"}, "example": "8/8/8/8/8/8/8/K2kr3_w_-_-",
}
_SEED = {
    "name": "seed", "in": "query", "required": False,
    "description": "Makes the choice among equally good moves reproducible (without it the "
                   "choice is random and the answer is not cached).",
    "schema": {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}, "example": 7,
}
_VALUE = {
    "winner": {"type": ["string", "null"], "examples": ["musketeers", "enemy", "X", "white"],
               "description": "the side that wins under perfect play (a side of the game), or "
                              "null for a draw"},
    "plies": {"type": ["integer", "null"], "minimum": 0,
              "description": "plies to the end under perfect play (0: the game is over; a ply is "
                             "one move of one side), or null for a draw"},
    "values": {"type": "object", "description": "a game of more than two players (the four-player "
                                                "race): each player's value against the others "
                                                "together; winner is then the player who can force a "
                                                "win, if any",
               "additionalProperties": {"type": "object", "required": ["result", "plies"], "properties": {
                   "result": {"type": "string", "enum": ["win", "loss", "draw"]},
                   "plies": {"type": ["integer", "null"], "minimum": 0}}},
               "example": {"P1": {"result": "loss", "plies": 16}, "P2": {"result": "loss", "plies": 14}}},
}
_BOARD = {"board": {"type": "string", "example": "nine-mens-morris-3",
                    "description": "the `key` of the board (database) that answered: see the "
                                   "`game` parameter for which one answers"}}
_STEP = {
    "type": "object", "required": ["move", "position", "winner", "plies"],
    "properties": {"move": {"type": "string", "example": "e1-e2"},
                   "san": {"type": "string", "example": "Nf3",
                           "description": "chess: the move in SAN (`move` is UCI)"},
                   "position": {"type": "string", "description": "the position the move leads to"},
                   **_VALUE,
                   "lines": {"type": "array", "description": "in a principal line, the lines the "
                                                             "position marks (a finishing line, mills)"}},
}
_PLAYED = {  # GET /api/v1/play: a step, and the board that answered
    "type": "object", "required": ["move", "position", "winner", "plies", "board"],
    "properties": {**_STEP["properties"], **_BOARD},
}
_ERROR = {"type": "object", "required": ["error"],
          "properties": {"error": {"type": "string", "description": "one line, as the CLI says it"}}}


def _errors(*codes: int) -> dict:
    words = {
        304: "not modified (If-None-Match matched the ETag)",
        400: "bad position, move, parameter or body",
        404: "unknown path, or a game, board size (or number of enemy men) not served",
        405: "method not allowed",
        413: "body over 1 MB, or more than 10,000 positions",
    }
    out = {}
    for code in codes:
        if code == 304:
            out["304"] = {"description": words[304]}
        else:
            out[str(code)] = {"description": words[code],
                              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    return out


def openapi() -> dict:
    """The OpenAPI 3.1 document served at /api/v1/openapi.json."""
    probe_answer = {
        "type": "object",
        "required": ["position", "side", "winner", "plies", "value", "over", "result", "moves", "board"],
        "properties": {
            "position": {"type": "string"},
            "size": {"type": "integer", "enum": [3, 4, 5],
                     "description": "Three Musketeers: the board size"},
            "game": {"type": "string", "description": "every other game: its name (and variant)"},
            "side": {"type": "string", "description": "side to move (musketeers, enemy, X, O, "
                                                      "white, black)"},
            **_VALUE,
            "value": {"type": "string", "example": "the enemy wins in 33 plies"},
            "over": {"type": "boolean"},
            "result": {"type": "string", "description": "why the game is over, or 'the game goes on'"},
            "moves": {"type": "array", "items": {"$ref": "#/components/schemas/Step"},
                      "description": "every legal move, best first for the side to move"},
            "lines": {"type": "array", "description": "the lines the position marks (a finishing "
                                                      "line, mills), when it has some"},
            "check": {"type": "array", "items": {"type": "string"}, "example": ["e1"],
                      "description": "chess: the square of the king in check, when it is"},
            **_BOARD,
        },
    }
    get = lambda summary, description, params, schema, codes: {
        "summary": summary, "description": description, "parameters": params,
        "responses": {"200": {"description": "OK", "headers": {
            "ETag": {"schema": {"type": "string"}}, "Cache-Control": {"schema": {"type": "string"}}},
            "content": {"application/json": {"schema": schema}}}, **_errors(*codes)},
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "retro: games strongly solved",
            "version": __version__,
            "description": "Every position's value under perfect play (who wins, in how many "
                           "plies, or a draw), its moves, principal lines and the perfect "
                           "player's move, for every game served (Three Musketeers, tic-tac-toe, "
                           "three, six and nine men's morris). Read-only and stateless; GET answers "
                           "are cacheable (ETag).",
        },
        "servers": [{"url": "/"}],
        "paths": {
            "/api/v1/probe": {
                "get": get("Probe a position",
                           "The value of a position and every legal move, best first, with the "
                           "position it leads to and that position's value. The fields of "
                           "`retro probe --json` and more.",
                           [_POSITION, _GAME], {"$ref": "#/components/schemas/Probe"}, (304, 400, 404)),
                "post": {
                    "summary": "Probe many positions",
                    "description": "Up to 10,000 positions (body at most 1 MB); results in the same "
                                   "order. A bad position gets an error entry; the batch goes on. "
                                   "Each position is answered by the board GET /api/v1/probe would "
                                   "answer it with (see its `game` parameter), which names it.",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": {
                        "type": "object", "required": ["positions"],
                        "properties": {"positions": {"type": "array", "maxItems": 10000,
                                                     "items": {"type": "string"}},
                                       "game": {"type": "string",
                                                "description": "as the game parameter"}}},
                        "example": {"positions": [START.replace("_", " "), "E .O. XOX ..."]}}}},
                    "responses": {"200": {"description": "OK", "content": {"application/json": {
                        "schema": {"type": "object", "properties": {"results": {"type": "array", "items": {
                            "oneOf": [
                                {"type": "object", "required": ["position", "winner", "plies"],
                                 "properties": {"position": {"type": "string"}, **_VALUE}},
                                {"type": "object", "required": ["position", "error"],
                                 "properties": {"position": {"description": "the entry as sent (null "
                                                             "for a number JSON cannot write)"},
                                                "error": {"type": "string"}}},
                            ]}}}}}}}, **_errors(400, 413)},
                },
            },
            "/api/v1/line": {"get": get(
                "Principal line",
                "Perfect play from the position to the end of the game, each move with the "
                "position it leads to and its value (a drawn line stops when a position comes "
                "back).",
                [_POSITION, _GAME], {"type": "object", "required": ["position", "winner", "plies", "line",
                                                                    "board"],
                              "properties": {"position": {"type": "string"},
                                             "game": {"type": "string", "description": "every game but "
                                                      "Three Musketeers: its name (and variant)"},
                                             **_VALUE,
                                             "value": {"type": "string"},
                                             "line": {"type": "array",
                                                      "items": {"$ref": "#/components/schemas/Step"}},
                                             **_BOARD}},
                (304, 400, 404))},
            "/api/v1/play": {"get": get(
                "The perfect player's move",
                "The move `retro play` makes: a fastest win, or when lost the move after which "
                "the largest share of the opponent's replies throws the win away, then the "
                "longest resistance; when drawn, the drawing move that sets the most traps. 400 "
                "for a finished position.",
                [_POSITION, _SEED, _GAME], {"$ref": "#/components/schemas/Played"}, (304, 400, 404))},
            "/api/v1/info": {"get": get(
                "The boards served",
                "Per board: its `key` (a `game` parameter naming it), its game (name, "
                "variant, title, `short_name`, rules, notation), the page's `label` for it, its "
                "`references` (`[{\"title\", \"url\"}, ...]`: papers and articles on the "
                "game, which the page links), its sides (with `mates` where a win is said in "
                "moves: chess), its geometry (points with their grid coordinates; lines between "
                "points for the morris boards; the pieces and which side each belongs to; "
                "`writes: fen` for chess), a `note` the page shows under the board (chess: the "
                "fifty-move rule is ignored), its start, "
                "positions, format version, content digest, build time and how the values are "
                "held (`values`: `disk` or `memory`; `loading`: whether the shared in-memory "
                "table is still being filled); Three Musketeers also its board size and "
                "enemy-men limit. And retro's version.",
                [], {"type": "object"}, (304,))},
            "/standard": {"get": get(
                "A chess position, as lichess's tablebase server answers",
                "The value of a chess position and of every move, best first, in the JSON of "
                "lichess's tablebase server (`category` win, draw or loss; `dtm` in plies, "
                "positive when the side to move mates, 0 for a draw; `dtz` and `precise_dtz` "
                "null: no fifty-move rule).",
                [_FEN], {"type": "object", "required": ["category", "dtm", "checkmate", "stalemate",
                                                       "insufficient_material", "moves"]},
                (304, 400, 404))},
            "/health": {"get": {"summary": "Liveness", "responses": {"200": {
                "description": "OK", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"status": {"const": "ok"}}}}}}}}},
        },
        "components": {"schemas": {"Probe": probe_answer, "Step": _STEP, "Played": _PLAYED,
                                   "Error": _ERROR}},
    }


def _prose(text: str) -> str:
    """``text`` as HTML: escaped, with its `backticks` as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def docs_html(spec: dict) -> str:
    """A small self-contained page describing the API, made from ``spec``."""
    e = html.escape
    parts = []
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            params = op.get("parameters", [])
            query = "&".join(f"{p['name']}={p.get('example', '')}" for p in params if p["required"])
            url = path + (f"?{query}" if query else "")
            rows = "".join(
                f"<tr><td><code>{e(p['name'])}</code>{'' if p['required'] else ' (optional)'}</td>"
                f"<td>{_prose(p['description'])}</td></tr>" for p in params)
            example = ""
            if method == "get":
                example = f'<p>Try: <a href="{e(url)}"><code>GET {e(url)}</code></a></p>'
            else:
                body = json.dumps(op["requestBody"]["content"]["application/json"]["example"])
                example = (f"<pre>curl -s -X POST -H 'Content-Type: application/json' "
                           f"-d '{e(body)}' http://HOST{e(path)}</pre>")
            codes = ", ".join(op["responses"])
            parts.append(
                f"<section><h2><span class=m>{method.upper()}</span> <code>{e(path)}</code></h2>"
                f"<p><b>{e(op['summary'])}.</b> {_prose(op.get('description', ''))}</p>"
                + (f"<table>{rows}</table>" if rows else "") + example
                + f"<p class=codes>Statuses: {e(codes)}</p></section>")
    style = ("body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;"
             "color:#1d2433}code,pre{font:13px ui-monospace,monospace;background:#f1f3f7;padding:.1em .3em;"
             "border-radius:4px}pre{padding:.6rem;overflow:auto}section{border-top:1px solid #dde1ea;"
             "padding:.4rem 0}.m{font:600 13px ui-monospace,monospace;color:#fff;background:#3558a8;"
             "padding:.1em .4em;border-radius:4px}td{vertical-align:top;padding:.2rem .6rem .2rem 0}"
             ".codes{color:#5b6478;font-size:13px}")
    info = spec["info"]
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8>"
            f"<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>retro API v1</title><style>{style}</style></head><body>"
            f"<h1>{e(info['title'])}</h1><p>API v1, retro {e(info['version'])}. "
            f"{_prose(info['description'])} "
            f"Errors are <code>{{\"error\": \"...\"}}</code>. The machine-readable document: "
            f"<a href='/api/v1/openapi.json'>/api/v1/openapi.json</a>; the board: <a href='/'>/</a>.</p>"
            + "".join(parts) + "</body></html>")
