"""Alveole (docs/ALVEOLE.md) through the shared layers: two players race to join all their pieces in one group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policies.games.board import BoardGrid


class Alveole(BoardGrid):
    """Alveole on the hex board of side 5 (``alveole_env``)."""

    game_id = "alveole"
    title = "Alveole"
    #: the spec's player 1 (moves first, A2) and player 2
    seat_names = ("first", "second")
    #: alveole_env.state.END_REASONS with the ply limit as the shared layers' truncation
    end_reasons = ("mover_connected", "opponent_connected", "no_legal_move", "truncation")
    engine_class = "alveole_env.engine:AlveoleGame"
    options_class = "alveole_env.options:AlveoleOptions"
    vector_env_class = "alveole_env.vector:AlveoleVectorEnv"
    seats_dict = "policies.alveole:SEATS"
    encoding_module = "alveole_env.encoding"
    #: the shipped agent's strength comes from its search (checkpoints/alveole-agent.md): about 0.1 s a move
    #: over its package, 0.4 s over the checkpoint, on one core
    menu_search_playouts = 800

    def symmetries(self, options: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The board's 12 symmetries (spec 1.7) on the encoding's 9 x 9 grid (alveole_env/encoding.py).

        A cell goes to its image, a move's direction to its image, and the three line-count planes (2-4,
        one per axis) to the plane of their axis's image; the grid's off-board squares stay where they are.
        """
        from alveole_env.geometry import CELL_GRID, GRID_CELLS, NUM_SYMMETRIES, SYMMETRY_CELLS, SYMMETRY_DIRECTIONS

        planes, cells = 6, np.arange(len(CELL_GRID))
        observation = np.zeros((NUM_SYMMETRIES, planes * GRID_CELLS), dtype=np.int64)
        action = np.zeros((NUM_SYMMETRIES, 6 * GRID_CELLS), dtype=np.int64)
        for k in range(NUM_SYMMETRIES):
            square = np.arange(GRID_CELLS)  # where each grid square goes
            square[CELL_GRID[cells]] = CELL_GRID[SYMMETRY_CELLS[k, cells]]
            dirs = SYMMETRY_DIRECTIONS[k].astype(np.int64)
            plane = np.array([0, 1, *(2 + dirs[:3] % 3), 5])
            observation[k, (plane[:, None] * GRID_CELLS + square).ravel()] = np.arange(planes * GRID_CELLS)
            action[k, (dirs[:, None] * GRID_CELLS + square).ravel()] = np.arange(6 * GRID_CELLS)
        return observation, action

    def make_record(self, start: Any, end: Any, actions: Sequence[int], players: Sequence[str]) -> dict[str, Any]:
        from alveole_env.record import make_record

        record: dict[str, Any] = make_record(end, actions, players)
        return record
