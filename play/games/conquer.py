"""The Conquer adapter: the engine (conquer_env.engine.ConquerGame) and its seats behind the play server.

Every rule and legality test is the engine's, every AI decision a seat's of :data:`policies.conquer.SEATS`;
this module only translates JSON to action ints, keeps the record (:mod:`conquer_env.record`) and builds
views (:mod:`play.games.conquer_view`); the rest is every board game's (:mod:`play.games.board_session`).

Inputs: ``{"action": "place", "cell": [x, y]}`` (an ``input`` message) or, as the page's generic
``conn.act`` sends it, a ``move`` message whose ``from`` and ``to`` name the same point; ``{"action":
"pass"}`` (rule R-3.1; two in a row end the game, rule R-9.2). A selection ``{"cell": [x, y]}`` answers
whether that point is legal now (rule R-3.3) and, if not, why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conquer_env import position
from conquer_env import record as rec
from conquer_env.engine import ConquerGame
from conquer_env.errors import IllegalActionError, PositionError
from conquer_env.options import MAX_SIDE, MIN_SIDE, PRESETS, SCORING_METHODS, STARTS, ConquerOptions
from play.games import JSON, InputError
from play.games.board_session import BoardAdapter, BoardSession, brief, int_pair
from play.games.conquer_view import SEAT_DISPLAY_NAMES, SEAT_NAMES, layout, log_entry, view


def parse_point(game: ConquerGame, value: Any, what: str) -> int:
    """Return the placement action of an ``[x, y]`` pair; InputError naming the field and the board's extent."""
    x, y = int_pair(value, what, "a point [x, y]")
    if not (0 <= x < game.width and 0 <= y < game.height):
        raise InputError(
            "bad_cell", f"{what}: point ({x}, {y}) is off the board; x is 0..{game.width - 1}, y 0..{game.height - 1}"
        )
    return game.point_action(x, y)


class ConquerSession(BoardSession):
    """One game of Conquer: the engine, the actions played (the record) and the recent log."""

    seat_names = SEAT_NAMES
    illegal_error = IllegalActionError
    game: ConquerGame
    _view = staticmethod(view)

    def _selected(self, value: Any) -> int:
        return parse_point(self.game, value, "cell")

    def _selection(self, seat: int, target: int, message: Mapping[str, Any]) -> JSON:
        """Return whether the point ``target`` is legal for the acting seat now, and why not (rule R-3.3)."""
        legal = bool(self.game.is_legal(target))  # the engine answers a numpy bool, which JSON cannot carry
        out: JSON = {"cell": list(message["cell"]), "legal": legal}
        if not legal:
            try:
                self.game.copy().play(target)
            except IllegalActionError as exc:
                out["reason"] = str(exc)
        return out

    def _action_of(self, message: Mapping[str, Any]) -> int:
        action = message.get("action")
        if action == "pass":
            return self.game.pass_action
        if action == "place":
            return parse_point(self.game, message.get("cell"), "cell")
        if action == "move":
            src = parse_point(self.game, message.get("from"), "from")
            dst = parse_point(self.game, message.get("to"), "to")
            if src != dst:
                raise InputError("bad_message", "a Conquer placement names one point: 'from' and 'to' must be equal")
            return dst
        raise InputError("bad_message", f"action must be one of place, pass; got {brief(action)}", ["place", "pass"])

    def _play(self, action: int) -> tuple[int, tuple[list[int], list[int]]]:
        """Play ``action``; return its flags and both methods' scores before it (the log counts what it took)."""
        before = (self.game.dots_scores(), self.game.territory_scores())
        return self.game.play(action), before

    def _log_entry(self, seat: int, action: int, played: tuple[int, tuple[list[int], list[int]]]) -> JSON:
        flags, before = played
        return log_entry(self.game, self.ply, seat, action, flags, before)

    def record(self) -> JSON:
        return rec.make_record(self.game.options, self.players, self.actions, self.game, self.start)


class ConquerAdapter(BoardAdapter):
    """Conquer for the play server."""

    game_id = "conquer"
    title = "Conquer"
    seat_names = SEAT_NAMES
    seat_display_names = SEAT_DISPLAY_NAMES
    record_format = rec.FORMAT
    #: a leaving player's seat goes to the scripted heuristic, the strongest AI every install has
    takeover_strategy = "heuristic"
    engine = ConquerGame
    session_type = ConquerSession
    options_type = ConquerOptions
    records = rec
    positions = position
    position_error = PositionError
    warm_up_options = {"width": 9, "height": 9, "max_plies": 6}

    def seats(self) -> Mapping[str, Any]:
        from policies.conquer import SEATS

        return SEATS

    def menu_options(self, defaults: Any) -> list[JSON]:
        return [
            {"name": "width", "type": "int", "min": MIN_SIDE, "max": MAX_SIDE, "default": defaults.width},
            {"name": "height", "type": "int", "min": MIN_SIDE, "max": MAX_SIDE, "default": defaults.height},
            {"name": "scoring", "type": "choice", "choices": list(SCORING_METHODS), "default": defaults.scoring},
            {"name": "start", "type": "choice", "choices": list(STARTS), "default": defaults.start},
        ]

    def menu_extra(self) -> JSON:
        return {"presets": [{"name": name, "width": w, "height": h} for name, (w, h) in PRESETS.items()]}

    def options_from(self, data: dict[str, Any]) -> ConquerOptions:
        return ConquerOptions.from_dict(data)

    def layout(self, options: Any) -> JSON:
        return layout(options)
