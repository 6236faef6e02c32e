"""The Conquer adapter: the engine (conquer_env.engine.ConquerGame) and its seats behind the play server.

Every rule and legality test is the engine's, every AI decision a seat's of :data:`policies.conquer.SEATS`;
this module only translates JSON to action ints, keeps the record (:mod:`conquer_env.record`) and builds
views (:mod:`play.games.conquer_view`).

Inputs: ``{"action": "place", "cell": [x, y]}`` (an ``input`` message) or, as the page's generic
``conn.act`` sends it, a ``move`` message whose ``from`` and ``to`` name the same point; ``{"action":
"pass"}`` (rule R-3.1; two in a row end the game, rule R-9.2). A selection ``{"cell": [x, y]}`` answers
whether that point is legal now (rule R-3.3) and, if not, why.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Mapping
from typing import Any

from conquer_env import position
from conquer_env import record as rec
from conquer_env.engine import ConquerGame
from conquer_env.errors import IllegalActionError, PositionError
from conquer_env.options import MAX_SIDE, MIN_SIDE, PRESETS, SCORING_METHODS, STARTS, ConquerOptions
from play.games import JSON, GameAdapter, GameSession, InputError
from play.games.conquer_view import LOG_LENGTH, SEAT_DISPLAY_NAMES, SEAT_NAMES, brief, layout, log_entry, view


def parse_point(game: ConquerGame, value: Any, what: str) -> int:
    """Return the placement action of an ``[x, y]`` pair; InputError naming the field and the board's extent."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError("bad_message", f"{what} must be a point [x, y] of two integers, got {brief(value)}")
    x, y = int(value[0]), int(value[1])
    if not (0 <= x < game.width and 0 <= y < game.height):
        raise InputError(
            "bad_cell", f"{what}: point ({x}, {y}) is off the board; x is 0..{game.width - 1}, y 0..{game.height - 1}"
        )
    return game.point_action(x, y)


class ConquerSession(GameSession):
    """One game of Conquer: the engine, the actions played (the record) and the recent log."""

    def __init__(self, game: ConquerGame, players: list[str], start: ConquerGame | None = None) -> None:
        self.game = game
        self.start = start
        self.players = list(players)
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
        """Return whether the point ``message["cell"]`` is legal for the acting seat now, and why not."""
        action = parse_point(self.game, message.get("cell"), "cell")
        self._check_turn(seat)
        legal = self.game.is_legal(action)
        out: JSON = {"cell": list(message["cell"]), "legal": legal}
        if not legal:
            try:
                self.game.copy().play(action)
            except IllegalActionError as exc:
                out["reason"] = str(exc)
        return out

    def parse_input(self, seat: int, message: Mapping[str, Any]) -> int:
        action = message.get("action")
        self._check_turn(seat)
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

    def ai_snapshot(self) -> ConquerGame:
        return self.game.copy()

    def ai_action(self, policy: Any, snapshot: Any, seat: int) -> int:
        return int(policy.act(snapshot, seat))

    def apply(self, action: Any) -> JSON:
        """Play one action int for the seat to act; return its log entry."""
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        seat = self.game.turn
        before = (self.game.dots_scores(), self.game.territory_scores())
        try:
            flags = self.game.play(action)
        except IllegalActionError as exc:
            raise InputError("illegal_move", str(exc)) from None
        self.actions.append(int(action))
        entry = log_entry(self.game, self.ply, seat, int(action), flags, before)
        self.last = entry
        self.log.append(entry)
        return entry

    def record(self) -> JSON:
        return rec.make_record(self.game.options, self.players, self.actions, self.game, self.start)

    def _check_turn(self, seat: int) -> None:
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        if seat != self.game.turn:
            raise InputError("not_your_turn", f"it is {SEAT_NAMES[self.game.turn]}'s turn, not {SEAT_NAMES[seat]}'s")


@dataclasses.dataclass
class ReplayCursor:
    """A record being replayed: its options, start position (None: the starting position), actions and players."""

    options: ConquerOptions
    start: Mapping[str, Any] | None
    actions: list[int]
    players: list[str]


class ConquerAdapter(GameAdapter):
    """Conquer for the play server."""

    game_id = "conquer"
    title = "Conquer"
    seat_names = SEAT_NAMES
    record_format = rec.FORMAT

    def menu(self) -> JSON:
        from policies.conquer import SEATS

        defaults = ConquerOptions()
        return {
            "id": self.game_id,
            "title": self.title,
            "seats": [
                {"seat": p, "colour": name, "display_name": SEAT_DISPLAY_NAMES[p]} for p, name in enumerate(SEAT_NAMES)
            ],
            "options": [
                {"name": "width", "type": "int", "min": MIN_SIDE, "max": MAX_SIDE, "default": defaults.width},
                {"name": "height", "type": "int", "min": MIN_SIDE, "max": MAX_SIDE, "default": defaults.height},
                {"name": "scoring", "type": "choice", "choices": list(SCORING_METHODS), "default": defaults.scoring},
                {"name": "start", "type": "choice", "choices": list(STARTS), "default": defaults.start},
            ],
            "presets": [{"name": name, "width": w, "height": h} for name, (w, h) in PRESETS.items()],
            "defaults": defaults.to_dict(),
            "strategies": [{"id": name, "display_name": cls.display_name} for name, cls in SEATS.items()],
        }

    def parse_options(self, data: Any) -> ConquerOptions:
        if data is None:
            return ConquerOptions()
        if not isinstance(data, dict):
            raise InputError("bad_options", f"options must be an object, got {brief(data)}")
        try:
            return ConquerOptions.from_dict(data)
        except (ValueError, TypeError) as exc:
            raise InputError("bad_options", str(exc), allowed=self.menu()["options"]) from None

    def new_session(self, options: Any, players: list[str], make_policy: Any = None) -> ConquerSession:
        return ConquerSession(ConquerGame.new(options), players)

    def parse_position(self, data: Any) -> tuple[ConquerOptions, ConquerGame]:
        """Return the options and game of a JSON position (conquer_env.position), validated by the engine."""
        try:
            game = position.from_dict(data)
        except PositionError as exc:
            raise InputError("bad_position", f"position: {exc}") from None
        if game.over:
            raise InputError("bad_position", f"position: the game in it is already over ({game.end_reason})")
        return game.options, game

    def session_at(self, options: Any, players: list[str], start: Any) -> ConquerSession:
        return ConquerSession(start.copy(), players, start=start.copy())

    def layout(self, options: Any) -> JSON:
        return layout(options)

    def make_policy(self, spec: str, seed: int | None) -> Any:
        """Return the seat of a spec the server resolved: a seat of :data:`policies.conquer.SEATS`, or a checkpoint,
        exported package or ``search:`` seat of Conquer (through the game's adapter, :mod:`policies.games`)."""
        from policies import games

        return games.get("conquer").make_seat(spec, seed)

    def warm_up(self) -> None:
        """Run every compiled kernel a room uses once (numba loads or compiles them on first call)."""
        from policies.conquer import SEATS

        session = self.new_session(ConquerOptions(width=9, height=9, max_plies=6), ["random", "heuristic"])
        seats = [SEATS["random"](seed=0), SEATS["heuristic"](seed=0)]
        while not session.over:
            seat = session.game.turn
            session.apply(session.ai_action(seats[seat], session.ai_snapshot(), seat))
            session.view()

    def tutorial(self) -> JSON:
        """Conquer has no tutorial yet: the rules page is docs/CONQUER.md."""
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
        start = data.get("start")
        return ReplayCursor(game.options, start, [int(a) for a in data["actions"]], list(data["players"]))

    def replay_view(self, cursor: Any, ply: int) -> JSON:
        """Return the view after ``ply`` actions (a replay from the start: a whole game is a few ms)."""
        assert isinstance(cursor, ReplayCursor)
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(cursor.actions):
            raise InputError("bad_ply", f"ply must be an integer in 0..{len(cursor.actions)}, got {brief(ply)}")
        game = ConquerGame.new(cursor.options) if cursor.start is None else position.from_dict(cursor.start)
        session = ConquerSession(game, cursor.players)
        for action in cursor.actions[:ply]:
            session.apply(action)
        out = session.view()
        out["record_plies"] = len(cursor.actions)
        return out
