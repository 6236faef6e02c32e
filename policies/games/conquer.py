"""Conquer (Kepung Titik, docs/CONQUER.md) through the shared layers: enclose the opponent's dots on a grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policies.games.board import BoardGrid


class Conquer(BoardGrid):
    """Conquer on a ``width x height`` grid (``conquer_env``); the network plays any grid size."""

    game_id = "conquer"
    title = "Conquer"
    #: conquer_env.engine.SEAT_NAMES (Red moves first)
    seat_names = ("red", "blue")
    end_reasons = ("board_full", "two_passes", "truncation")
    seat_metrics = {"dots_end": "the seat's live dots on the board at the end"}
    engine_class = "conquer_env.engine:ConquerGame"
    options_class = "conquer_env.options:ConquerOptions"
    vector_env_class = "conquer_env.vector:ConquerVectorEnv"
    seats_dict = "policies.conquer:SEATS"
    encoding_module = "conquer_env.encoding"

    def describe_options(self, options: Mapping[str, Any]) -> str:
        limit = options.get("max_plies")
        plies = f"max {limit} plies" if limit is not None else "no ply limit"
        return (
            f"{options['width']}x{options['height']}, {options['scoring']} scoring, {options['start']} start, {plies}"
        )

    def fallback_action(self, game: Any) -> int:
        """A pass (rule R-3.1): always legal while the game goes on, as in the browser game's rooms."""
        return int(game.pass_action)

    def ply_limit(self, options: Any) -> int:
        return int(options.ply_limit)

    def piece_counts(self, game: Any) -> list[int]:
        return [int(game.live_mask(s).sum()) for s in range(self.num_players)]

    def result_row(self, game: Any, tracker: Any) -> dict[str, Any]:
        row = super().result_row(game, tracker)
        row["dots_end"] = row.pop("pieces_end")
        return row

    def symmetries(self, options: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The grid's turns and mirrors (the rules name no direction): 8 on a square board, 4 on another.

        Every observation plane is a plane over the points (docs/CONQUER.md's encoding), so each turns as
        the board does; the pass (the last action) stays.
        """
        h, w, planes = int(options.height), int(options.width), 8
        grid = np.arange(h * w).reshape(h, w)
        images = [grid, grid[::-1], grid[:, ::-1], grid[::-1, ::-1]]
        if h == w:
            images += [grid.T, grid.T[::-1], grid.T[:, ::-1], grid.T[::-1, ::-1]]
        points = np.stack([image.ravel() for image in images])
        observation = np.concatenate([points + p * h * w for p in range(planes)], axis=1)
        action = np.concatenate([points, np.full((len(points), 1), h * w)], axis=1)
        return observation.astype(np.int64), action.astype(np.int64)

    def make_record(self, start: Any, end: Any, actions: Sequence[int], players: Sequence[str]) -> dict[str, Any]:
        from conquer_env.record import make_record

        record: dict[str, Any] = make_record(end.options, players, actions, end)
        return record
