"""Alveole (docs/ALVEOLE.md) through the shared layers: two players race to join all their pieces in one group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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

    def make_record(self, start: Any, end: Any, actions: Sequence[int], players: Sequence[str]) -> dict[str, Any]:
        from alveole_env.record import make_record

        record: dict[str, Any] = make_record(end, actions, players)
        return record
