"""Positions as JSON (spec 1.5) and as the text diagram of :mod:`alveole_env.render_text`, with full validation.

The JSON form is the spec's, players numbered 1 and 2 (player 1 = seat 0, who moves first)::

    {"to_move": 1, "pieces": [[q, r, player], ...], "ply": 0}

``ply`` is optional (default 0; it matters only for truncation, R-4.6). Loading checks, and refuses
with a :class:`~alveole_env.errors.PositionError` naming what was wrong and what is allowed: unknown
or missing keys, types, off-board or doubled cells, player numbers other than 1 and 2, piece counts
outside 2..9, and a player already connected (spec 2.3, A15 (a)). A loaded position whose player
to move has no legal move is the end of the game at once (R-4.4); one loaded at or past
``max_plies`` is truncated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from alveole_env import rules
from alveole_env.engine import AlveoleGame
from alveole_env.errors import PositionError, brief
from alveole_env.geometry import CELLS, GRID, NUM_CELLS, RADIUS, cell_coord, on_board
from alveole_env.options import AlveoleOptions
from alveole_env.state import (
    COUNT0,
    END_NO_LEGAL_MOVE,
    END_REASON,
    END_TRUNCATED,
    MAX_PLIES,
    MAX_PLY,
    MIN_PIECES,
    OVER,
    PIECES,
    PLY,
    TURN,
    WINNER,
    empty_arrays,
    fill_arrays,
)
from gamecore.loaders import parse_json, read_text

#: the longest position text read (a position is under 1 KB; spaces and indentation are welcome)
MAX_POSITION_BYTES = 1 << 16
KEYS: tuple[str, ...] = ("to_move", "pieces", "ply")
REQUIRED: tuple[str, ...] = ("to_move", "pieces")
#: the characters of the text diagram: empty, player 1, player 2
SYMBOLS: str = ".XO"
_LABEL = re.compile(r"^\s*r=\s*-?\d+")


def to_dict(game: AlveoleGame) -> dict[str, Any]:
    """Return the position of ``game`` as the spec's JSON-ready mapping (pieces in cell order)."""
    pieces = [[*cell_coord(c), int(game.board[c])] for c in range(NUM_CELLS) if game.board[c]]
    return {"to_move": game.turn + 1, "pieces": pieces, "ply": game.ply}


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f"{what} must be an integer in {low}..{high}, got {brief(value)}")
    if not low <= value <= high:
        raise PositionError(f"{what} is {value}, out of range; allowed: {low}..{high}")
    return value


def from_dict(data: Mapping[str, Any], options: AlveoleOptions | None = None) -> AlveoleGame:
    """Return the game at the position ``data`` (see the module docs); PositionError naming any problem."""
    if not isinstance(data, Mapping):
        raise PositionError(f"a position must be a mapping with keys {', '.join(KEYS)}, got {type(data).__name__}")
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise PositionError(f"unknown position key {brief(unknown[0])}; allowed: {', '.join(KEYS)}")
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise PositionError(f"position is missing the key {missing[0]!r}; required: {', '.join(REQUIRED)}")
    to_move = _int(data["to_move"], "to_move", 1, 2)
    ply = _int(data.get("ply", 0), "ply", 0, MAX_PLY)
    pieces = data["pieces"]
    if not isinstance(pieces, (list, tuple)):
        raise PositionError(f"pieces must be a list of [q, r, player] triples, got {type(pieces).__name__}")
    board = np.zeros(NUM_CELLS, dtype=np.int8)
    for i, piece in enumerate(pieces):
        if not isinstance(piece, (list, tuple)) or len(piece) != 3:
            raise PositionError(f"pieces[{i}] must be a [q, r, player] triple, got {brief(piece)}")
        q = _int(piece[0], f"pieces[{i}] q", -RADIUS, RADIUS)
        r = _int(piece[1], f"pieces[{i}] r", -RADIUS, RADIUS)
        player = _int(piece[2], f"pieces[{i}] player", 1, 2)
        if not on_board(q, r):
            raise PositionError(f"pieces[{i}] is on ({q},{r}), which is off the board: need |q + r| <= {RADIUS}")
        cell = CELLS.index((q, r))
        if board[cell]:
            raise PositionError(f"pieces[{i}]: cell ({q},{r}) already holds a piece (at most one per cell)")
        board[cell] = player
    return from_board(board, to_move - 1, ply=ply, options=options)


def from_board(board: Any, seat_to_move: int, *, ply: int = 0, options: AlveoleOptions | None = None) -> AlveoleGame:
    """Return the game with ``board`` (61 values: 0 empty, 1 seat 0, 2 seat 1) and ``seat_to_move`` to move.

    PositionError if it is not a valid position in progress (spec 2.3, A15 (a)).
    """
    if options is None:
        options = AlveoleOptions()
    if not isinstance(options, AlveoleOptions):
        raise PositionError(f"options must be an AlveoleOptions or None, got {brief(options)}")
    cells = np.asarray(board)
    if cells.shape != (NUM_CELLS,) or not np.isin(cells, (0, 1, 2)).all():
        raise PositionError(f"a board is {NUM_CELLS} values in 0..2, got shape {cells.shape}")
    _int(seat_to_move, "seat to move", 0, 1)
    _int(ply, "ply", 0, MAX_PLY)
    b, lines, scalars = empty_arrays()
    fill_arrays(b, lines, scalars, cells.astype(np.int8))
    for seat in (0, 1):
        count = int(scalars[COUNT0 + seat])
        if not MIN_PIECES <= count <= PIECES:
            raise PositionError(
                f"player {seat + 1} has {count} pieces; a position in progress has {MIN_PIECES}..{PIECES} each "
                "(spec 2.3)"
            )
    scalars[TURN] = seat_to_move
    scalars[PLY] = ply
    scalars[MAX_PLIES] = options.max_plies
    game = AlveoleGame(options, b, lines, scalars)
    for seat in (0, 1):
        if game.connected(seat):
            raise PositionError(
                f"player {seat + 1} is already connected ({game.num_pieces(seat)} pieces in one group): "
                "the game would be over, not in progress (spec 2.3, A15)"
            )
    if not rules.has_move(rules.tables(), b, lines, seat_to_move):
        scalars[OVER], scalars[WINNER], scalars[END_REASON] = 1, 1 - seat_to_move, END_NO_LEGAL_MOVE
    elif ply >= options.max_plies:
        scalars[OVER], scalars[END_REASON] = 1, END_TRUNCATED
    return game


def dumps(game: AlveoleGame, **kwargs: Any) -> str:
    """Return the position of ``game`` as JSON text."""
    return json.dumps(to_dict(game), **kwargs)


def loads(text: str | bytes, options: AlveoleOptions | None = None) -> AlveoleGame:
    """Return the game of a JSON position (at most :data:`MAX_POSITION_BYTES`); PositionError if it is not one.

    The text is measured (length, nesting depth) before it is parsed (:func:`gamecore.loaders.parse_json`).
    """
    return from_dict(parse_json(text, MAX_POSITION_BYTES, PositionError), options)


def load(path: str | Path, options: AlveoleOptions | None = None) -> AlveoleGame:
    """Return the game of a JSON position file (at most :data:`MAX_POSITION_BYTES`); errors name the file."""
    try:
        return loads(read_text(path, MAX_POSITION_BYTES, PositionError), options)
    except PositionError as error:
        raise PositionError(f"{path}: {error}") from None


def from_text(text: str, to_move: int = 1, *, ply: int = 0, options: AlveoleOptions | None = None) -> AlveoleGame:
    """Return the game of a text diagram (9 rows of ``.``, ``X`` = player 1, ``O`` = player 2; labels ignored).

    The diagram is the one :func:`alveole_env.render_text.render` draws and spec 2.1 shows: row ``r``
    lists the cells of that row with ``q`` ascending. ``to_move`` is 1 or 2.
    """
    if not isinstance(text, str):
        raise PositionError(f"a diagram must be text, got {type(text).__name__}")
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        label = _LABEL.match(line)
        tokens = line[label.end() :].split() if label else line.split()
        bad = [t for t in tokens if t not in SYMBOLS]
        if label and bad:
            raise PositionError(f"diagram line {number}: {brief(bad[0])} is not a cell; allowed: . X O")
        if tokens and not bad:
            rows.append(tokens)
    if len(rows) != GRID:
        raise PositionError(f"a diagram has {GRID} rows of cells, got {len(rows)}")
    board = np.zeros(NUM_CELLS, dtype=np.int8)
    cell = 0
    for r, tokens in zip(range(-RADIUS, RADIUS + 1), rows, strict=True):
        width = GRID - abs(r)
        if len(tokens) != width:
            raise PositionError(f"diagram row r={r} needs {width} cells, got {len(tokens)}")
        for token in tokens:
            board[cell] = SYMBOLS.index(token)
            cell += 1
    return from_board(board, _int(to_move, "to_move", 1, 2) - 1, ply=ply, options=options)
