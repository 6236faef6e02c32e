"""Positions as JSON and as text diagrams (spec section 7), with full validation.

A position is (dots, owner, to_move, passes) plus the options (spec section 0) and the ply count.

Text diagram: optional ``key: value`` header lines, then H lines, each the dots row and, after
white space, the owners row (spec section 3's two grids side by side)::

    to_move: B
    passes: 0
    B....   .....
    ..R..   .....
    .RbR.   ..R..
    ..R..   .....
    ....B   .....

Dots: ``R``/``B`` live, ``r``/``b`` dead, ``.`` none. Owners: ``R``/``B`` sealed, ``.`` none. The
owners grid may be left out: then each dead dot's point is owned by the capturer and nothing else is.
Header keys: ``to_move`` (R or B, default R), ``passes`` (0, 1, or 2 for a game ended by two passes),
``ply`` (default 0), ``scoring``, ``start`` and ``max_plies`` (the options; the size comes from the grid).

JSON (``format: "conquer-position-v1"``): ``{"format", "options", "dots": [H strings], "owners":
[H strings], "to_move", "passes", "ply"}``.

Checks (PositionError naming the row, column or key): grid shape and characters; a dot agrees with
its owner (``R`` never on Blue's territory, ``r`` only on Blue's); the border is never owned (rule
R-5.4); and no region of either player holds a live opponent dot (verified fact I2: such a position
can never arise, the capture would have happened).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from conquer_env import kernels
from conquer_env.engine import ConquerGame, initial_arrays
from conquer_env.errors import PositionError, brief
from conquer_env.layout import (
    END_BOARD_FULL,
    END_REASON,
    END_TRUNCATED,
    END_TWO_PASSES,
    FREE,
    OVER,
    PASSES,
    PLY,
    TO_MOVE,
)
from conquer_env.options import ConquerOptions
from gamecore.loaders import parse_json, read_text

FORMAT = "conquer-position-v1"
#: the longest position text read (a 64 x 64 position with both grids is under 10 KB)
MAX_POSITION_BYTES = 1 << 20
_DOT_CODES = {".": (0, None), "R": (1, False), "B": (2, False), "r": (1, True), "b": (2, True)}
_OWNER_CODES = {".": 0, "R": 1, "B": 2}
_COLOUR_LETTERS = ".RB"
_SEATS = {"R": 0, "B": 1}


def build(
    dots_rows: list[str],
    owner_rows: list[str] | None,
    to_move: Any = "R",
    passes: Any = 0,
    ply: Any = 0,
    options: Mapping[str, Any] | ConquerOptions | None = None,
) -> ConquerGame:
    """Return the game of a position given as grids; PositionError naming what is wrong and what is allowed."""
    if not isinstance(dots_rows, list) or not dots_rows or not all(isinstance(r, str) for r in dots_rows):
        raise PositionError(f"dots must be a non-empty list of row strings, got {brief(dots_rows)}")
    height, width = len(dots_rows), len(dots_rows[0])
    opts = _options(options, width, height)
    for y, row in enumerate(dots_rows):
        if len(row) != width:
            raise PositionError(f"dots row {y} has {len(row)} characters; every row must have {width}")
        for x, ch in enumerate(row):
            if ch not in _DOT_CODES:
                raise PositionError(f"dots row {y} column {x}: {brief(ch)} is not a dot; allowed: . R B r b")
    if owner_rows is not None:
        if not isinstance(owner_rows, list) or not all(isinstance(r, str) for r in owner_rows):
            raise PositionError(f"owners must be a list of row strings, got {brief(owner_rows)}")
        if len(owner_rows) != height:
            raise PositionError(f"owners has {len(owner_rows)} rows; the dots grid has {height}")
        for y, row in enumerate(owner_rows):
            if len(row) != width:
                raise PositionError(f"owners row {y} has {len(row)} characters; every row must have {width}")
            for x, ch in enumerate(row):
                if ch not in _OWNER_CODES:
                    raise PositionError(f"owners row {y} column {x}: {brief(ch)} is not an owner; allowed: . R B")
    dots, owner, scalars = initial_arrays(opts)
    for y in range(height):
        for x in range(width):
            q = y * width + x
            colour, dead = _DOT_CODES[dots_rows[y][x]]
            given = _OWNER_CODES[owner_rows[y][x]] if owner_rows is not None else None
            if given is None:
                given = 3 - colour if dead else 0
            if dead is True and given != 3 - colour:
                raise PositionError(
                    f"point ({x}, {y}): dead dot {dots_rows[y][x]!r} must stand on the other colour's territory"
                    f" (owner {_COLOUR_LETTERS[3 - colour]!r}), got owner {_COLOUR_LETTERS[given]!r} (rule R-4.1)"
                )
            if dead is False and given == 3 - colour:
                raise PositionError(
                    f"point ({x}, {y}): live dot {dots_rows[y][x]!r} stands on the other colour's territory;"
                    f" write {dots_rows[y][x].lower()!r} for a dead dot (rule R-4.1)"
                )
            border = x in (0, width - 1) or y in (0, height - 1)
            if given and border:
                raise PositionError(f"point ({x}, {y}) is on the border and cannot be sealed territory (rule R-5.4)")
            dots[q] = colour
            owner[q] = given
    if not isinstance(to_move, str) or to_move not in _SEATS:
        raise PositionError(f"to_move must be 'R' or 'B', got {brief(to_move)}")
    if isinstance(passes, bool) or not isinstance(passes, int) or not 0 <= passes <= 2:
        raise PositionError(f"passes must be 0, 1 or 2 (2: the game ended by two passes), got {brief(passes)}")
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= opts.ply_limit:
        raise PositionError(f"ply must be an integer in 0..{opts.ply_limit}, got {brief(ply)}")
    _check_no_pending_capture(width, height, dots, owner)
    scalars[TO_MOVE] = _SEATS[to_move]
    scalars[PASSES] = passes
    scalars[PLY] = ply
    scalars[FREE] = int(np.count_nonzero((dots == 0) & (owner == 0)))
    end = END_TWO_PASSES if passes == 2 else END_BOARD_FULL if scalars[FREE] == 0 else -1
    if end < 0 and ply >= opts.ply_limit:
        end = END_TRUNCATED
    if end >= 0:
        scalars[OVER] = 1
        scalars[END_REASON] = end
    return ConquerGame(opts, dots, owner, scalars)


def _options(options: Mapping[str, Any] | ConquerOptions | None, width: int, height: int) -> ConquerOptions:
    if isinstance(options, ConquerOptions):
        data = options.to_dict()
    elif options is None:
        data = {}
    elif isinstance(options, Mapping):
        data = dict(options)
    else:
        raise PositionError(f"options must be a mapping, got {type(options).__name__}")
    for key, size in (("width", width), ("height", height)):
        if key in data and data[key] != size:
            raise PositionError(f"options say {key}={brief(data[key])} but the grid has {size}")
    data.update(width=width, height=height)
    try:
        return ConquerOptions.from_dict(data)
    except ValueError as err:
        raise PositionError(f"bad options: {err}") from err


def _check_no_pending_capture(width: int, height: int, dots: np.ndarray, owner: np.ndarray) -> None:
    n = width * height
    labels = np.zeros(n, np.int32)
    queue = np.zeros(n, np.int32)
    for colour in (1, 2):
        kernels.region_labels(width, height, dots, owner, colour, labels, queue)
        live_rival = (dots == 3 - colour) & (owner != colour) & (labels > 0)
        if live_rival.any():
            q = int(np.flatnonzero(live_rival)[0])
            raise PositionError(
                f"point ({q % width}, {q // width}): a live {_COLOUR_LETTERS[3 - colour]} dot is enclosed by"
                f" {_COLOUR_LETTERS[colour]}'s ring but not captured; no game reaches this (rule R-6, fact I2)"
            )


def rows(game: ConquerGame) -> tuple[list[str], list[str]]:
    """Return the (dots rows, owners rows) of a game in the diagram notation."""
    w, h = game.width, game.height
    dots_rows, owner_rows = [], []
    for y in range(h):
        drow, orow = [], []
        for x in range(w):
            q = y * w + x
            d, o = int(game.dots[q]), int(game.owner[q])
            letter = _COLOUR_LETTERS[d]
            drow.append(letter.lower() if d and o == 3 - d else letter)
            orow.append(_COLOUR_LETTERS[o])
        dots_rows.append("".join(drow))
        owner_rows.append("".join(orow))
    return dots_rows, owner_rows


def summary(game: ConquerGame) -> dict[str, Any]:
    """Return what a position implies (spec 6.1's checkpoints): dead dots, both scores, legal points, end state.

    ``dead`` maps ``"R"``/``"B"`` to the sorted (x, y) of that colour's dead dots (rule R-4.1); ``legal`` is
    the number of legal points (rule R-3.3, the pass not counted).
    """
    w = game.width
    return {
        "dead": {"RB"[s]: [(int(q) % w, int(q) // w) for q in np.flatnonzero(game.dead_mask(s))] for s in (0, 1)},
        "dots": game.dots_scores(),
        "territory": game.territory_scores(),
        "legal": len(game.legal_points()),
        "end": game.end_reason,
    }


def to_dict(game: ConquerGame) -> dict[str, Any]:
    """Return the position as a JSON-ready mapping."""
    dots_rows, owner_rows = rows(game)
    return {
        "format": FORMAT,
        "options": game.options.to_dict(),
        "dots": dots_rows,
        "owners": owner_rows,
        "to_move": "RB"[game.turn],
        "passes": min(game.passes, 2),
        "ply": game.ply,
    }


def from_dict(data: Any) -> ConquerGame:
    """Return the game of a JSON position mapping; PositionError naming the bad or unknown key."""
    if not isinstance(data, Mapping):
        raise PositionError(f"a position must be a mapping, got {type(data).__name__}")
    allowed = ("format", "options", "dots", "owners", "to_move", "passes", "ply")
    for key in data:
        if key not in allowed:
            raise PositionError(f"unknown position key {brief(key)}; allowed: {', '.join(allowed)}")
    if data.get("format", FORMAT) != FORMAT:
        raise PositionError(f"format must be {FORMAT!r}, got {brief(data.get('format'))}")
    if "dots" not in data:
        raise PositionError("a position needs 'dots' (a list of row strings)")
    return build(
        data["dots"],
        data.get("owners"),
        data.get("to_move", "R"),
        data.get("passes", 0),
        data.get("ply", 0),
        data.get("options"),
    )


def dumps(game: ConquerGame) -> str:
    """Return the position as a JSON string."""
    return json.dumps(to_dict(game), indent=1)


def loads(text: str) -> ConquerGame:
    """Return the game of a JSON position string (at most :data:`MAX_POSITION_BYTES`); PositionError if not one.

    The text is measured (length, nesting depth) before it is parsed (:func:`gamecore.loaders.parse_json`).
    """
    return from_dict(parse_json(text, MAX_POSITION_BYTES, PositionError))


def save(game: ConquerGame, path: str | Path) -> None:
    """Write the position as JSON to ``path``."""
    Path(path).write_text(dumps(game) + "\n", encoding="utf-8")


def load(path: str | Path) -> ConquerGame:
    """Return the game of a JSON position file (at most :data:`MAX_POSITION_BYTES`); errors name the file."""
    try:
        return loads(read_text(path, MAX_POSITION_BYTES, PositionError))
    except PositionError as err:
        raise PositionError(f"{path}: {err}") from None


_HEADER_KEYS = ("to_move", "passes", "ply", "scoring", "start", "max_plies")


def from_text(text: str, **overrides: Any) -> ConquerGame:
    """Return the game of a text diagram (module docstring).

    Keywords override the header: ``to_move``, ``passes``, ``ply`` or any option (``scoring``, ...).
    """
    if not isinstance(text, str):
        raise PositionError(f"a diagram must be a string, got {type(text).__name__}")
    header: dict[str, Any] = {}
    dots_rows: list[str] = []
    owner_rows: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if ":" in line:
            if dots_rows:
                raise PositionError(f"line {number}: header line {brief(line)} after the grid")
            key, _, value = (part.strip() for part in line.partition(":"))
            if key not in _HEADER_KEYS:
                raise PositionError(
                    f"line {number}: unknown header key {brief(key)}; allowed: {', '.join(_HEADER_KEYS)}"
                )
            header[key] = value
            continue
        parts = line.split()
        if len(parts) > 2:
            raise PositionError(f"line {number}: expected a dots row and an optional owners row, got {brief(line)}")
        dots_rows.append(parts[0])
        if len(parts) == 2:
            owner_rows.append(parts[1])
    if not dots_rows:
        raise PositionError("the diagram has no grid rows")
    if owner_rows and len(owner_rows) != len(dots_rows):
        raise PositionError(
            f"{len(owner_rows)} rows have an owners grid but {len(dots_rows)} have dots: give all or none"
        )
    opts: dict[str, Any] = {}
    for key in ("scoring", "start"):
        if key in header:
            opts[key] = header[key]
    numbers: dict[str, int] = {}
    for key in ("passes", "ply", "max_plies"):
        if key in header:
            try:
                numbers[key] = int(header[key])
            except ValueError:
                raise PositionError(f"header {key} must be an integer, got {brief(header[key])}") from None
    if "max_plies" in numbers:
        opts["max_plies"] = numbers["max_plies"]
    state: dict[str, Any] = {"to_move": header.get("to_move", "R"), "passes": numbers.get("passes", 0)}
    state["ply"] = numbers.get("ply", 0)
    for key, value in overrides.items():
        (state if key in state else opts)[key] = value
    return build(dots_rows, owner_rows or None, state["to_move"], state["passes"], state["ply"], opts)


def to_text(game: ConquerGame, header: bool = True) -> str:
    """Return the text diagram of a position (readable by :func:`from_text`)."""
    dots_rows, owner_rows = rows(game)
    lines = []
    if header:
        lines += [f"to_move: {'RB'[game.turn]}", f"passes: {min(game.passes, 2)}"]
        if game.ply:
            lines.append(f"ply: {game.ply}")
        if game.options.scoring != "dots":
            lines.append(f"scoring: {game.options.scoring}")
        if game.options.max_plies is not None:
            lines.append(f"max_plies: {game.options.max_plies}")
    lines += [f"{d}   {o}" for d, o in zip(dots_rows, owner_rows, strict=True)]
    return "\n".join(lines) + "\n"
