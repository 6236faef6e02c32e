"""The game object: one Alveole game over the compiled rules (:mod:`alveole_env.rules`).

Example::

    from alveole_env.engine import AlveoleGame

    game = AlveoleGame.new()
    while not game.over:
        game.play(game.legal_actions()[0])
    print(game.end_reason, game.winners)

Actions are the ints of :mod:`alveole_env.encoding` (``direction * 81 + grid square of the piece``),
in the absolute frame, identical in the engine, both envs, the seats and the network. Seat 0 is the
spec's player 1 and moves first (A2).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from alveole_env import rules
from alveole_env.encoding import NUM_ACTIONS, OBS_SIZE, action_of, decode_action, encoder_tables, observation
from alveole_env.encoding import legal_actions as legal_action_ints
from alveole_env.errors import IllegalActionError, StateError, brief
from alveole_env.geometry import (
    CELL_GRID,
    DIRECTION_NAMES,
    GRID_CELL,
    GRID_CELLS,
    NUM_CELLS,
    RAYS,
    cell_index,
    cell_name,
)
from alveole_env.options import AlveoleOptions
from alveole_env.state import (
    COUNT0,
    END_REASON,
    END_REASONS,
    END_TRUNCATED,
    LAST_CAPTURE,
    LAST_FROM,
    LAST_TO,
    MAX_PLIES,
    MAX_PLY,
    NUM_PLAYERS,
    OVER,
    PIECES,
    PLY,
    TURN,
    WINNER,
    check_arrays,
    empty_arrays,
    fill_arrays,
    piece_code,
    start_board,
)

_TABLES = rules.tables()
_ENCODER = encoder_tables()
_CELL_GRID = CELL_GRID.copy()
_SQUARE_CELL: list[int] = GRID_CELL.tolist()
_MOVE_TEXT = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*([>x])\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")


class Move(NamedTuple):
    """One legal move: the action int, its start and destination cells and whether it captures (R-3.4)."""

    action: int
    src: int
    dst: int
    direction: int
    capture: bool

    def text(self) -> str:
        """Return the spec's move text, ``(q,r)>(q,r)`` or ``(q,r)x(q,r)`` for a capture (spec 1.5)."""
        return f"{cell_name(self.src)}{'x' if self.capture else '>'}{cell_name(self.dst)}"


class AlveoleGame:
    """One game: the board, the player to move, the result; every rule runs in the compiled kernels.

    Build it with :meth:`new` (the start position, spec 2.1) or :func:`alveole_env.position.from_dict`.
    """

    options: AlveoleOptions
    board: NDArray[np.int8]
    lines: NDArray[np.int8]
    scalars: NDArray[np.int32]
    _stack: NDArray[np.int16]
    _seen: NDArray[np.int8]
    _moves: NDArray[np.int32]

    def __init__(
        self,
        options: AlveoleOptions,
        board: NDArray[np.int8],
        lines: NDArray[np.int8],
        scalars: NDArray[np.int32],
    ) -> None:
        """Wrap state arrays after checking them whole (:func:`alveole_env.state.check_arrays`): StateError if not.

        The compiled kernels trust these arrays (no bounds checks), so a wrong shape, dtype, memory layout or
        value is refused here, before anything compiled reads them.
        """
        if not isinstance(options, AlveoleOptions):
            raise StateError(f"options must be an AlveoleOptions, got {brief(options)}")
        check_arrays(board, lines, scalars, options.max_plies, max_ply=MAX_PLY)
        self._wrap(options, board, lines, scalars)

    @classmethod
    def of_checked_arrays(
        cls,
        options: AlveoleOptions,
        board: NDArray[np.int8],
        lines: NDArray[np.int8],
        scalars: NDArray[np.int32],
    ) -> AlveoleGame:
        """Return a game over arrays already checked (copies of a checked game's or env's); no checks, fast."""
        game = cls.__new__(cls)
        game._wrap(options, board, lines, scalars)
        return game

    def _wrap(
        self, options: AlveoleOptions, board: NDArray[np.int8], lines: NDArray[np.int8], scalars: NDArray[np.int32]
    ) -> None:
        stack, seen = rules.new_workspace()
        state = {"options": options, "board": board, "lines": lines, "scalars": scalars}
        for name, value in {**state, "_stack": stack, "_seen": seen}.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_moves", np.zeros(rules.MAX_MOVES, dtype=np.int32))

    def __setattr__(self, name: str, value: Any) -> None:
        """Refuse replacing the state or the workspace once built: the compiled rules trust what was checked."""
        raise AttributeError(
            f"an AlveoleGame's {name} cannot be replaced; build a new AlveoleGame(options, board, lines, scalars)"
        )

    @classmethod
    def new(cls, options: AlveoleOptions | None = None) -> AlveoleGame:
        """Return a game at the start position (spec 2.1) with seat 0 to move (A2)."""
        if options is None:
            options = AlveoleOptions()
        if not isinstance(options, AlveoleOptions):
            raise ValueError(f"options must be an AlveoleOptions or None, got {brief(options)}")
        board, lines, scalars = empty_arrays()
        fill_arrays(board, lines, scalars, start_board())
        scalars[MAX_PLIES] = options.max_plies
        return cls(options, board, lines, scalars)

    def copy(self) -> AlveoleGame:
        """Return an independent copy of this game."""
        return AlveoleGame.of_checked_arrays(self.options, self.board.copy(), self.lines.copy(), self.scalars.copy())

    # ---- state -------------------------------------------------------------------------------

    @property
    def turn(self) -> int:
        """Return the seat to move (0 or 1); once over: the mover after a connection, the stuck player after R-4.4."""
        return int(self.scalars[TURN])

    @property
    def ply(self) -> int:
        """Return the number of moves played (R-4.6 counts them)."""
        return int(self.scalars[PLY])

    @property
    def over(self) -> bool:
        """Return True once the game has ended, by a rule (R-4.2, R-4.4) or by truncation (R-4.6)."""
        return bool(self.scalars[OVER])

    @property
    def truncated(self) -> bool:
        """Return True if the engine stopped the game at ``max_plies`` (R-4.6: not a rule ending, no winner)."""
        return int(self.scalars[END_REASON]) == END_TRUNCATED

    @property
    def end_reason(self) -> str | None:
        """Return why the game ended, one of ``END_REASONS``, or None while it is in progress."""
        reason = int(self.scalars[END_REASON])
        return None if reason < 0 else END_REASONS[reason]

    @property
    def winners(self) -> list[int]:
        """Return ``[winning seat]``; empty while playing and on truncation (there are no draws, R-4.5)."""
        winner = int(self.scalars[WINNER])
        return [] if winner < 0 else [winner]

    @property
    def last_move(self) -> Move | None:
        """Return the last move played, or None before the first move."""
        src, dst = int(self.scalars[LAST_FROM]), int(self.scalars[LAST_TO])
        if src < 0:
            return None
        direction = next(d for d in range(6) if dst in RAYS[src, d, 1:])
        return Move(action_of(src, direction), src, dst, direction, bool(self.scalars[LAST_CAPTURE]))

    def pieces(self, seat: int) -> list[int]:
        """Return the cells of ``seat``'s pieces, ascending."""
        return [int(c) for c in np.flatnonzero(self.board == piece_code(_seat(seat)))]

    def num_pieces(self, seat: int) -> int:
        """Return how many pieces ``seat`` has left."""
        return int(self.scalars[COUNT0 + _seat(seat)])

    def groups(self, seat: int) -> list[list[int]]:
        """Return ``seat``'s groups under edge adjacency (R-4.1), each a sorted list of cells, largest first."""
        left = set(self.pieces(seat))
        out: list[list[int]] = []
        while left:
            start = min(left)
            group, todo = {start}, [start]
            while todo:
                c = todo.pop()
                for x in _TABLES[2][c]:
                    if x >= 0 and int(x) in left and int(x) not in group:
                        group.add(int(x))
                        todo.append(int(x))
            left -= group
            out.append(sorted(group))
        return sorted(out, key=lambda g: (-len(g), g))

    def num_groups(self, seat: int) -> int:
        """Return the number of ``seat``'s groups (1 = connected, R-4.1)."""
        return int(rules.count_groups(_TABLES, self.board, _seat(seat), self._stack, self._seen))

    def connected(self, seat: int) -> bool:
        """Return True if ``seat``'s pieces form one group (R-4.1; a single piece is connected, A11)."""
        return self.num_groups(seat) == 1

    def scores(self) -> list[int]:
        """Return each seat's connection score, ``10 - groups``: 9 for a connected army, 1 for nine lone pieces.

        The rules have no score (R-4.5); this one measures how far each player is from R-4.1 and
        picks the leaders of a truncated game.
        """
        return [PIECES + 1 - self.num_groups(p) for p in range(NUM_PLAYERS)]

    def leaders(self) -> list[int]:
        """Return the seats with the top score now (fewest groups)."""
        s = self.scores()
        return [p for p in range(NUM_PLAYERS) if s[p] == max(s)]

    # ---- moves -------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Return the legal moves, ordered by (from cell, direction) (R-3.7); empty once the game is over (R-4.3)."""
        if self.over:
            return []
        count = rules.list_moves(_TABLES, self.board, self.lines, self.turn, self._moves)
        own = piece_code(self.turn)
        out = []
        for m in self._moves[:count]:
            src, d = divmod(int(m), 6)
            dst = int(rules.move_target(_TABLES, self.board, self.lines, src, d, own))
            out.append(Move(action_of(src, d), src, dst, d, bool(self.board[dst])))
        return out

    def legal_actions(self) -> list[int]:
        """Return the legal action ints, ascending."""
        if self.over:
            return []
        count = legal_action_ints(_TABLES, _CELL_GRID, self.board, self.lines, self.turn, self._moves)
        actions: list[int] = self._moves[:count].tolist()
        return actions

    def destinations(self, cell: int) -> dict[int, Move]:
        """Return ``{destination cell: move}`` of the piece on ``cell`` (empty if it cannot move now).

        IllegalActionError if ``cell`` is no cell index 0..60 (a negative index never wraps).
        """
        src = _cell(cell, "cell")
        return {m.dst: m for m in self.legal_moves() if m.src == src}

    def action_between(self, src: int, dst: int) -> int:
        """Return the action moving the piece on ``src`` to ``dst``; IllegalActionError if no legal move does (A16)."""
        return self.move_between(src, dst).action

    def parse_move(self, text: str) -> Move:
        """Return the legal move written ``(q,r)>(q,r)`` or, for a capture, ``(q,r)x(q,r)`` (spec 1.5).

        IllegalActionError if the text is malformed, names no legal move, or marks a capture wrongly.
        """
        match = _MOVE_TEXT.fullmatch(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise IllegalActionError(f"a move is written (q,r)>(q,r) or (q,r)x(q,r), got {brief(text)}")
        q0, r0, sep, q1, r1 = match.groups()
        try:
            src, dst = cell_index(int(q0), int(r0)), cell_index(int(q1), int(r1))
        except ValueError as error:
            raise IllegalActionError(f"move {text.strip()!r}: {error}") from None
        move = self.move_between(src, dst)
        if move.capture != (sep == "x"):
            raise IllegalActionError(
                f"move {text.strip()!r} is written as {'a capture' if sep == 'x' else 'a plain move'}; "
                f"it is {move.text()}"
            )
        return move

    def move_between(self, src: int, dst: int) -> Move:
        """Return the legal move from ``src`` to ``dst``; IllegalActionError listing the legal moves if none."""
        src, dst = _cell(src, "source cell"), _cell(dst, "destination cell")
        for m in self.legal_moves():
            if m.src == src and m.dst == dst:
                return m
        raise IllegalActionError(
            f"no legal move from {cell_name(src)} to {cell_name(dst)}; legal moves: "
            f"{', '.join(m.text() for m in self.legal_moves()) or 'none (the game is over)'}"
        )

    def play(self, action: int) -> Move:
        """Play ``action`` and return it as a :class:`Move`; IllegalActionError naming why, state unchanged."""
        if type(action) is int and 0 <= action < NUM_ACTIONS and _SQUARE_CELL[action % GRID_CELLS] >= 0:
            src, d = _SQUARE_CELL[action % GRID_CELLS], action // GRID_CELLS  # the hot path: plain ints
        else:
            try:
                src, d = decode_action(action)
            except ValueError as error:
                raise IllegalActionError(f"{error}; legal actions: {self._allowed()}") from None
        result = rules.apply_move(_TABLES, self.board, self.lines, self.scalars, src, d, self._stack, self._seen)
        if result < 0:
            raise IllegalActionError(
                f"action {int(action)} ({cell_name(src)} {DIRECTION_NAMES[d]}) is illegal: "
                f"{self.why_illegal(src, d)}; legal actions: {self._allowed()}"
            )
        return Move(int(action), src, result // 2, d, bool(result % 2))

    def why_illegal(self, src: int, direction: int) -> str:
        """Return the rule that forbids moving the piece on ``src`` along ``direction`` now ("" if it is legal).

        IllegalActionError if ``src`` is no cell 0..60 or ``direction`` no direction 0..5.
        """
        src = _cell(src, "cell")
        if isinstance(direction, bool) or not isinstance(direction, (int, np.integer)) or not 0 <= direction < 6:
            raise IllegalActionError(f"direction must be an integer in 0..5, got {brief(direction)}")
        direction = int(direction)
        if self.over:
            return f"the game is over ({self.end_reason}, R-4.3)"
        own = piece_code(self.turn)
        if self.board[src] != own:
            what = "empty" if self.board[src] == 0 else f"seat {int(self.board[src]) - 1}'s piece"
            return f"cell {cell_name(src)} holds no piece of seat {self.turn}, the player to move ({what})"
        n = int(self.lines[_TABLES[1][src, direction % 3]])
        t = int(RAYS[src, direction, n]) if n < RAYS.shape[2] else -1
        if t < 0:
            return f"the line holds {n} pieces and {n} cells {DIRECTION_NAMES[direction]} is off the board (R-3.5)"
        for k in range(1, n):
            v = self.board[RAYS[src, direction, k]]
            if v not in (0, own):
                return f"it would jump over the enemy piece on {cell_name(int(RAYS[src, direction, k]))} (R-3.3)"
        if self.board[t] == own:
            return f"it would land on its own piece on {cell_name(t)} (R-3.4)"
        return ""

    def _allowed(self) -> str:
        actions = self.legal_actions()
        return ", ".join(map(str, actions)) if actions else "none (the game is over)"

    # ---- encoding and counting ---------------------------------------------------------------

    def observe(self) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """Return ``(obs int8[OBS_SIZE], mask int8[NUM_ACTIONS])`` of the player to move (:mod:`alveole_env.encoding`).

        Once the game is over the mask is all 0 and the observation is the mover-to-be's.
        """
        obs = np.empty(OBS_SIZE, dtype=np.int8)
        mask = np.empty(NUM_ACTIONS, dtype=np.int8)
        scalars = self.scalars
        observation(_TABLES, _ENCODER, self.board, self.lines, scalars[TURN], not scalars[OVER], self._moves, obs, mask)
        return obs, mask

    def perft(self, depth: int) -> int:
        """Return the number of rule move sequences of ``depth`` plies from here (spec 7.9).

        A game ended by a rule has no moves (spec 7.9's convention); the ply limit is ignored, both the one
        ahead and one already reached (R-4.6: truncation never affects perft), so a truncated game counts
        the moves of its position although :meth:`legal_moves` is empty (the game takes no more moves).
        """
        if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= 16:
            raise ValueError(f"perft depth must be an integer in 0..16, got {brief(depth)}")
        game = self._untruncated()
        return int(rules.perft(_TABLES, game.board, game.lines, game.scalars, depth))

    def divide(self, depth: int) -> dict[str, int]:
        """Return ``{move text: perft(depth - 1) after it}`` for every rule move (spec 7.9's divide counts).

        Like :meth:`perft` it ignores the ply limit: a truncated game divides as if it went on.
        """
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 16:
            raise ValueError(f"divide depth must be an integer in 1..16, got {brief(depth)}")
        game = self._untruncated()
        out = {}
        for m in game.legal_moves():
            child = game.copy()
            child.play(m.action)
            out[m.text()] = child.perft(depth - 1)
        return out

    def _untruncated(self) -> AlveoleGame:
        """Return a copy that never stops at the ply limit (a truncated game resumed): what perft counts."""
        game = AlveoleGame.of_checked_arrays(self.options, self.board.copy(), self.lines.copy(), self.scalars.copy())
        game.scalars[MAX_PLIES] = 2**30
        if self.truncated:
            game.scalars[OVER], game.scalars[END_REASON] = 0, -1
        return game

    def __repr__(self) -> str:
        state = f"over={self.end_reason}" if self.over else f"turn={self.turn}"
        return f"AlveoleGame(ply={self.ply}, {state}, pieces={self.num_pieces(0)}/{self.num_pieces(1)})"


def _cell(value: object, what: str) -> int:
    """Return ``value`` as a cell index 0..60; IllegalActionError naming it otherwise (never a wrapped index)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < NUM_CELLS:
        raise IllegalActionError(f"{what} must be an integer cell index in 0..{NUM_CELLS - 1}, got {brief(value)}")
    return int(value)


def _seat(seat: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < NUM_PLAYERS:
        raise ValueError(f"seat must be 0 or 1, got {brief(seat)}")
    return int(seat)


__all__ = ["END_REASONS", "AlveoleGame", "IllegalActionError", "Move", "StateError"]
