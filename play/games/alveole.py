"""The Alveole adapter: the engine (alveole_env.engine.AlveoleGame) and its seats behind the play server.

Every rule and legality test is the engine's, every AI decision a seat's of :data:`policies.alveole.SEATS`;
this module only translates JSON to action ints, keeps the record (:mod:`alveole_env.record`) and builds
views (:mod:`play.games.alveole_view`); the rest is every board game's (:mod:`play.games.board_session`).

Inputs (the same message types as Domain Wheel's): ``{"action": "move", "from": [q, r], "to": [q, r]}``;
a selection is ``{"cell": [q, r]}`` and answers that piece's destinations, each with ``capture``
(R-3.4). There is no pass (R-3.1, A14).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alveole_env import position
from alveole_env import record as rec
from alveole_env.engine import AlveoleGame, Move
from alveole_env.errors import IllegalActionError, PositionError
from alveole_env.geometry import cell_index
from alveole_env.options import INT_RANGES, AlveoleOptions
from play.games import JSON, InputError
from play.games.alveole_view import SEAT_DISPLAY_NAMES, SEAT_NAMES, cell, layout, log_entry, view
from play.games.board_session import BoardAdapter, BoardSession, ReplayCursor, brief, int_pair


def parse_cell(value: Any, what: str) -> int:
    """Return the cell index of a ``[q, r]`` pair; InputError naming the field and the board's extent."""
    q, r = int_pair(value, what, "an axial cell [q, r]")
    try:
        return cell_index(q, r)
    except ValueError as exc:
        raise InputError("bad_cell", f"{what}: {exc}") from None


class AlveoleSession(BoardSession):
    """One game of Alveole: the engine, the actions played (the record) and the recent log."""

    seat_names = SEAT_NAMES
    illegal_error = IllegalActionError
    game: AlveoleGame
    _view = staticmethod(view)

    def _selected(self, value: Any) -> int:
        return parse_cell(value, "cell")

    def _selection(self, seat: int, target: int, message: Mapping[str, Any]) -> JSON:
        """Return the destinations of the acting seat's piece on ``target`` (R-3.7)."""
        if target not in self.game.pieces(seat):
            raise InputError(
                "not_your_piece",
                f"cell {cell(target)} holds no piece of {SEAT_NAMES[seat]}",
                allowed=[cell(c) for c in sorted({m.src for m in self.game.legal_moves()})],
            )
        destinations = self.game.destinations(target).values()
        return {"cell": cell(target), "destinations": [{"to": cell(m.dst), "capture": m.capture} for m in destinations]}

    def _action_of(self, message: Mapping[str, Any]) -> int:
        action = message.get("action")
        if action != "move":
            raise InputError("bad_message", f"action must be move (Alveole has no pass), got {brief(action)}", ["move"])
        src = parse_cell(message.get("from"), "from")
        dst = parse_cell(message.get("to"), "to")
        try:
            return self.game.action_between(src, dst)
        except IllegalActionError as exc:
            raise InputError("illegal_move", str(exc)) from None

    def fallback_action(self, seat: int) -> int:
        """Return the first legal action: Alveole has no pass (R-3.1, A14), and a failing AI must still move."""
        return int(self.game.legal_actions()[0])

    def _log_entry(self, seat: int, action: int, played: Move) -> JSON:
        return log_entry(self.game, self.ply, seat, played)

    def record(self) -> JSON:
        return rec.make_record(self.game, self.actions, self.players, self.start)


class AlveoleAdapter(BoardAdapter):
    """Alveole for the play server."""

    game_id = "alveole"
    title = "Alveole"
    seat_names = SEAT_NAMES
    seat_display_names = SEAT_DISPLAY_NAMES
    record_format = rec.FORMAT
    #: a leaving player's seat goes to the scripted heuristic, the strongest AI every install has
    takeover_strategy = "heuristic"
    engine = AlveoleGame
    session_type = AlveoleSession
    options_type = AlveoleOptions
    records = rec
    positions = position
    position_error = PositionError
    warm_up_options = {"max_plies": 4}

    def seats(self) -> Mapping[str, Any]:
        from policies.alveole import SEATS

        return SEATS

    def menu_options(self, defaults: Any) -> list[JSON]:
        return [
            {"name": name, "type": "int", "min": low, "max": high, "default": getattr(defaults, name)}
            for name, (low, high) in INT_RANGES.items()
        ]

    def options_from(self, data: dict[str, Any]) -> AlveoleOptions:
        return AlveoleOptions().replace(**data)

    def layout(self, options: Any) -> JSON:
        return layout(options)

    def warm_up_select(self, session: Any, seat: int) -> None:
        session.select(seat, {"cell": cell(session.game.legal_moves()[0].src)})

    def start_game(self, cursor: ReplayCursor) -> AlveoleGame:
        """Return the game at a record's start position (docs/ALVEOLE.md), under the record's options."""
        assert cursor.start is not None
        return position.from_dict(cursor.start, cursor.options)
