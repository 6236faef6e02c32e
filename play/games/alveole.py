"""The Alveole adapter: the engine (alveole_env.engine.AlveoleGame) and its seats behind the play server.

Every rule and legality test is the engine's, every AI decision a seat's of :data:`policies.alveole.SEATS`;
this module only translates JSON to action ints, keeps the record (:mod:`alveole_env.record`) and builds
views (:mod:`play.games.alveole_view`).

Inputs (the same message types as Domain Wheel's): ``{"action": "move", "from": [q, r], "to": [q, r]}``;
a selection is ``{"cell": [q, r]}`` and answers that piece's destinations, each with ``capture``
(R-3.4). There is no pass (R-3.1, A14).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Mapping
from typing import Any

from alveole_env import position
from alveole_env import record as rec
from alveole_env.engine import AlveoleGame, Move
from alveole_env.errors import IllegalActionError, PositionError
from alveole_env.geometry import cell_index
from alveole_env.options import INT_RANGES, AlveoleOptions
from play.games import JSON, GameAdapter, GameSession, InputError
from play.games.alveole_view import LOG_LENGTH, SEAT_DISPLAY_NAMES, SEAT_NAMES, brief, cell, layout, log_entry, view


def parse_cell(value: Any, what: str) -> int:
    """Return the cell index of a ``[q, r]`` pair; InputError naming the field and the board's extent."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError("bad_message", f"{what} must be an axial cell [q, r] of two integers, got {brief(value)}")
    try:
        return cell_index(int(value[0]), int(value[1]))
    except ValueError as exc:
        raise InputError("bad_cell", f"{what}: {exc}") from None


class AlveoleSession(GameSession):
    """One game of Alveole: the engine, the actions played (the record) and the recent log."""

    def __init__(self, game: AlveoleGame, players: list[str], start: AlveoleGame | None = None) -> None:
        self.game = game
        self.players = list(players)
        self.start = start
        self.actions: list[int] = []
        self.log: deque[JSON] = deque(maxlen=LOG_LENGTH)
        self.last: JSON | None = None

    @property
    def turn(self) -> int | None:
        return None if self.game.over else self.game.turn

    @property
    def ply(self) -> int:
        return len(self.actions)

    @property
    def over(self) -> bool:
        return self.game.over

    def view(self) -> JSON:
        return view(self.game, self.ply, self.last, list(self.log))

    def select(self, seat: int, message: Mapping[str, Any]) -> JSON:
        """Return the destinations of the acting seat's piece on ``message["cell"]`` (R-3.7)."""
        src = parse_cell(message.get("cell"), "cell")
        self._check_turn(seat)
        if src not in self.game.pieces(seat):
            raise InputError(
                "not_your_piece",
                f"cell {cell(src)} holds no piece of {SEAT_NAMES[seat]}",
                allowed=[cell(c) for c in sorted({m.src for m in self.game.legal_moves()})],
            )
        return {
            "cell": cell(src),
            "destinations": [{"to": cell(m.dst), "capture": m.capture} for m in self.game.destinations(src).values()],
        }

    def parse_input(self, seat: int, message: Mapping[str, Any]) -> int:
        action = message.get("action")
        self._check_turn(seat)
        if action != "move":
            raise InputError("bad_message", f"action must be move (Alveole has no pass), got {brief(action)}", ["move"])
        src = parse_cell(message.get("from"), "from")
        dst = parse_cell(message.get("to"), "to")
        try:
            return self.game.action_between(src, dst)
        except IllegalActionError as exc:
            raise InputError("illegal_move", str(exc)) from None

    def ai_snapshot(self) -> AlveoleGame:
        return self.game.copy()

    def ai_action(self, policy: Any, snapshot: Any, seat: int) -> int:
        return int(policy.act(snapshot, seat))

    def fallback_action(self, seat: int) -> int:
        """Return the first legal action: Alveole has no pass (R-3.1, A14), and a failing AI must still move."""
        return int(self.game.legal_actions()[0])

    def apply(self, action: Any) -> JSON:
        """Play one action int for the seat to act; return its log entry."""
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        seat = self.game.turn
        try:
            move: Move = self.game.play(action)
        except IllegalActionError as exc:
            raise InputError("illegal_move", str(exc)) from None
        self.actions.append(int(action))
        entry = log_entry(self.game, self.ply, seat, move)
        self.last = entry
        self.log.append(entry)
        return entry

    def record(self) -> JSON:
        return rec.make_record(self.game, self.actions, self.players, self.start)

    def _check_turn(self, seat: int) -> None:
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        if seat != self.game.turn:
            raise InputError("not_your_turn", f"it is {SEAT_NAMES[self.game.turn]}'s turn, not {SEAT_NAMES[seat]}'s")


@dataclasses.dataclass
class ReplayCursor:
    """A record being replayed: its start position (None = the start of a game), options and actions."""

    options: AlveoleOptions
    start: Mapping[str, Any] | None
    actions: list[int]
    players: list[str]


class AlveoleAdapter(GameAdapter):
    """Alveole for the play server."""

    game_id = "alveole"
    title = "Alveole"
    seat_names = SEAT_NAMES
    record_format = rec.FORMAT

    def menu(self) -> JSON:
        defaults = AlveoleOptions()
        from policies.alveole import SEATS

        return {
            "id": self.game_id,
            "title": self.title,
            "seats": [
                {"seat": p, "colour": name, "display_name": SEAT_DISPLAY_NAMES[p]} for p, name in enumerate(SEAT_NAMES)
            ],
            "options": [
                {"name": name, "type": "int", "min": low, "max": high, "default": getattr(defaults, name)}
                for name, (low, high) in INT_RANGES.items()
            ],
            "defaults": defaults.to_dict(),
            "strategies": [{"id": name, "display_name": cls.display_name} for name, cls in SEATS.items()],
        }

    def parse_options(self, data: Any) -> AlveoleOptions:
        if data is None:
            return AlveoleOptions()
        if not isinstance(data, dict):
            raise InputError("bad_options", f"options must be an object, got {brief(data)}")
        try:
            return AlveoleOptions().replace(**data)
        except (ValueError, TypeError) as exc:
            raise InputError("bad_options", str(exc), allowed=self.menu()["options"]) from None

    def new_session(self, options: Any, players: list[str], make_policy: Any = None) -> AlveoleSession:
        return AlveoleSession(AlveoleGame.new(options), players)

    def parse_position(self, data: Any) -> tuple[AlveoleOptions, AlveoleGame]:
        """Return the default options and the game of a position (docs/ALVEOLE.md), validated by the engine."""
        try:
            game = position.from_dict(data)
        except PositionError as exc:
            raise InputError("bad_position", f"position: {exc}") from None
        if game.over:
            raise InputError("bad_position", f"position: the game in it is already over ({game.end_reason})")
        return game.options, game

    def session_at(self, options: Any, players: list[str], start: Any) -> AlveoleSession:
        return AlveoleSession(start.copy(), players, start=start.copy())

    def layout(self, options: Any) -> JSON:
        return layout(options)

    def make_policy(self, spec: str, seed: int | None) -> Any:
        """Return the seat of a spec the server resolved: a seat of :data:`policies.alveole.SEATS`, or a checkpoint,
        exported package or ``search:`` seat of Alveole (through the game's adapter, :mod:`policies.games`)."""
        from policies import games

        return games.get("alveole").make_seat(spec, seed)

    def warm_up(self) -> None:
        """Run every compiled kernel a room uses once (numba loads or compiles them on first call)."""
        from policies.alveole import SEATS

        session = self.new_session(AlveoleOptions(max_plies=4), ["random", "heuristic"])
        seats = [SEATS["random"](seed=0), SEATS["heuristic"](seed=0)]
        while not session.over:
            seat = session.game.turn
            session.select(seat, {"cell": cell(session.game.legal_moves()[0].src)})
            session.apply(session.ai_action(seats[seat], session.ai_snapshot(), seat))
            session.view()

    def tutorial(self) -> JSON:
        """Alveole has no tutorial yet: the rules page is docs/ALVEOLE.md."""
        return {"game": self.game_id, "layouts": {}, "steps": []}

    def record_summary(self, data: Mapping[str, Any]) -> JSON:
        actions = data.get("actions")
        return {
            "game": self.game_id,
            "players": data.get("players"),
            "result": data.get("result"),
            "plies": len(actions) if isinstance(actions, list) else None,
            "options": data.get("options") if isinstance(data.get("options"), dict) else None,
        }

    def replay_start(self, data: Mapping[str, Any]) -> ReplayCursor:
        try:
            game = rec.replay(data)
        except PositionError as exc:
            raise InputError("bad_record", str(exc)) from None
        return ReplayCursor(game.options, data["start"], list(data["actions"]), list(data["players"]))

    def replay_view(self, cursor: Any, ply: int) -> JSON:
        """Return the view after ``ply`` moves (a replay from the start: a whole game is a few ms of engine time)."""
        assert isinstance(cursor, ReplayCursor)
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(cursor.actions):
            raise InputError("bad_ply", f"ply must be an integer in 0..{len(cursor.actions)}, got {brief(ply)}")
        if cursor.start is None:
            game = AlveoleGame.new(cursor.options)
        else:
            game = position.from_dict(cursor.start, cursor.options)
        session = AlveoleSession(game, cursor.players)
        for action in cursor.actions[:ply]:
            session.apply(action)
        out = session.view()
        out["record_plies"] = len(cursor.actions)
        return out
