"""The rules treat the three players alike: rotating a position by 120 degrees rotates its legal moves.

The map is symmetric under a 120-degree rotation that maps Blue's start land onto
Green's and Green's onto Red's (spec 1.4). Rotating every piece, owner, counter
and the player to act therefore must rotate every movable piece, every
destination and its move kinds (rules 4.2-4.12, 5.1), the end-request right
(9.3) and the scores (8.3). This guards against any seat- or colour-specific
shortcut in move generation. (Only the final (r, q) tie-breaks of rules 5.3 and
6.7 are not rotation-covariant, so the check runs along the original trajectory.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dw_env.engine import Game
from dw_env.options import GameOptions
from dw_env.rules import layout as lay


def rotated(game: Game, k: int) -> Game:
    """Return the position rotated by ``k`` times 120 degrees, players renamed p -> p + k."""
    g = game.geometry
    cells, lands = g.rotation_power(k)
    board = np.zeros_like(game.board)
    for cell in np.flatnonzero(game.board):
        code = int(game.board[cell]) - 1
        player, kind = divmod(code, 2)
        board[cells[cell]] = lay.piece_code((player + k) % 3, kind)
    land_rows = np.zeros_like(game.lands)
    owner = game.lands[lay.OWNER]
    land_rows[lay.OWNER, lands] = np.where(owner >= 0, (owner + k) % 3, owner)
    for base in (lay.HOLD, lay.LIB, lay.FIRST):
        for p in range(3):
            land_rows[base + (p + k) % 3, lands] = game.lands[base + p]
    scalars = game.scalars.copy()
    scalars[lay.TURN] = (game.turn + k) % 3
    for p in range(3):
        scalars[lay.KING_CELL + (p + k) % 3] = cells[game.king_cell(p)]
    holder = int(game.scalars[lay.CD_HOLDER])
    if holder >= 0:
        scalars[lay.CD_HOLDER] = (holder + k) % 3
    return Game(game.options, board, land_rows, scalars)


OPTION_SETS = [
    GameOptions(land_radius=1, map_radius=2, max_rounds=60),
    GameOptions(land_radius=2, map_radius=2, fast_knights=False, max_rounds=60),
    GameOptions(land_radius=1, map_radius=3, king_may_be_alone=False, turns_to_conquer=2, max_rounds=60),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"n{o.land_radius}R{o.map_radius}")
def test_rules_are_rotation_covariant(options: GameOptions, biased_game: Callable[..., object]) -> None:
    checked = 0
    for seed in range(6):
        game, moves, _ = biased_game(options, seed)  # type: ignore[misc]
        replay = Game.new(options)
        for move in moves:
            if replay.over:
                break
            for k in (1, 2):
                cells, _ = replay.geometry.rotation_power(k)
                turned = rotated(replay, k)
                assert turned.scores() == [replay.scores()[(p - k) % 3] for p in range(3)]
                assert turned.can_request_end() == replay.can_request_end()
                movable = replay.movable_pieces()
                assert sorted(turned.movable_pieces()) == sorted(int(cells[c]) for c in movable)
                for piece in movable:
                    expected = {int(cells[c]): kinds for c, kinds in replay.destinations(piece).items()}
                    assert turned.destinations(int(cells[piece])) == expected
                    checked += 1
            replay.play(move)
    assert checked > 500
