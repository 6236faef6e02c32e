"""Conquer (Kepung Titik, docs/CONQUER.md) through the shared layers: enclose the opponent's dots on a grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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

    def make_record(self, start: Any, end: Any, actions: Sequence[int], players: Sequence[str]) -> dict[str, Any]:
        from conquer_env.record import make_record

        record: dict[str, Any] = make_record(end.options, players, actions, end)
        return record
