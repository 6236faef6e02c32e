"""What every two-player board game with int actions shares behind the play server (Alveole, Conquer).

Such a game's engine object has the package contract of the game rooms (``new(options)``, ``copy()``,
``turn``, ``over``, ``end_reason``, ``play(action)`` raising the package's ``IllegalActionError``,
``options``), its records replay from ``(options, start, actions, players)`` and its positions load
through its ``position.from_dict``. :class:`BoardSession` keeps the engine, the actions played, the
recent log and the turn checks; :class:`BoardAdapter` the menu, options, positions, seats, warm-up and
replays. A game subclasses both and supplies only what is its own: how an input message becomes an
action, what a selection answers, its log entries, views, layout, record and options.
"""

from __future__ import annotations

import dataclasses
import json
from abc import abstractmethod
from collections import deque
from collections.abc import Mapping
from typing import Any, ClassVar

from play.games import JSON, GameAdapter, GameSession, InputError


def brief(value: Any) -> str:
    """Return a short JSON rendering of a received value for an error message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def int_pair(value: Any, what: str, expected: str) -> tuple[int, int]:
    """Return the two integers of a ``[a, b]`` pair; InputError naming the field and ``expected`` if it is not one."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError("bad_message", f"{what} must be {expected} of two integers, got {brief(value)}")
    return int(value[0]), int(value[1])


class BoardSession(GameSession):
    """One two-player game: the engine, the actions played (the record) and the recent log."""

    #: the seats' names in turn order (the page's i18n keys); the most log entries a view carries (the record keeps all)
    seat_names: ClassVar[tuple[str, ...]] = ()
    log_length: ClassVar[int] = 40
    #: the engine package's error for an illegal action
    illegal_error: ClassVar[type[Exception]] = ValueError

    def __init__(self, game: Any, players: list[str], start: Any = None) -> None:
        self.game = game
        self.players = list(players)
        self.start = start
        self.actions: list[int] = []
        self.log: deque[JSON] = deque(maxlen=self.log_length)
        self.last: JSON | None = None

    @property
    def turn(self) -> int | None:
        return None if self.game.over else self.game.turn

    @property
    def ply(self) -> int:
        return len(self.actions)

    @property
    def over(self) -> bool:
        return bool(self.game.over)

    @property
    def winners(self) -> list[int]:
        return [int(w) for w in self.game.winners] if self.game.over else []

    def select(self, seat: int, message: Mapping[str, Any]) -> JSON:
        """Return what a selection of ``message["cell"]`` by the seat to act answers (the game's :meth:`_selection`)."""
        target = self._selected(message.get("cell"))
        self._check_turn(seat)
        return self._selection(seat, target, message)

    def parse_input(self, seat: int, message: Mapping[str, Any]) -> int:
        """Return the action of ``seat``'s input message (the game's :meth:`_action_of`) on that seat's turn."""
        self._check_turn(seat)
        return self._action_of(message)

    @abstractmethod
    def _selected(self, value: Any) -> int:
        """Return the cell index or action a selection names; InputError if it names none."""

    @abstractmethod
    def _selection(self, seat: int, target: int, message: Mapping[str, Any]) -> JSON:
        """Return the answer to ``seat``'s selection of ``target``."""

    @abstractmethod
    def _action_of(self, message: Mapping[str, Any]) -> int:
        """Return the action int of an input message; InputError naming what is allowed."""

    def ai_snapshot(self) -> Any:
        return self.game.copy()

    def ai_action(self, policy: Any, snapshot: Any, seat: int) -> int:
        return int(policy.act(snapshot, seat))

    def apply(self, action: Any) -> JSON:
        """Play one action int for the seat to act; return its log entry."""
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        seat = self.game.turn
        try:
            played = self._play(action)
        except self.illegal_error as exc:
            raise InputError("illegal_move", str(exc)) from None
        self.actions.append(int(action))
        entry = self._log_entry(seat, int(action), played)
        self.last = entry
        self.log.append(entry)
        return entry

    def view(self) -> JSON:
        return self._view(self.game, self.ply, self.last, list(self.log))

    @staticmethod
    @abstractmethod
    def _view(game: Any, ply: int, last: JSON | None, log: list[JSON]) -> JSON:
        """Return the state view of ``game`` (the game's view builder, e.g. ``staticmethod(alveole_view.view)``)."""

    def _play(self, action: int) -> Any:
        """Play ``action`` on the engine (raising its ``illegal_error``); return what the log entry needs."""
        return self.game.play(action)

    @abstractmethod
    def _log_entry(self, seat: int, action: int, played: Any) -> JSON:
        """Return the log entry of ``action``, just played by ``seat`` (``played``: what :meth:`_play` returned)."""

    def _check_turn(self, seat: int) -> None:
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        if seat != self.game.turn:
            names = self.seat_names
            raise InputError("not_your_turn", f"it is {names[self.game.turn]}'s turn, not {names[seat]}'s")


@dataclasses.dataclass
class ReplayCursor:
    """A record being replayed: its options, start position (None: the starting position), actions and players."""

    options: Any
    start: Mapping[str, Any] | None
    actions: list[int]
    players: list[str]


class BoardAdapter(GameAdapter):
    """A two-player board game for the play server; subclasses name their engine, session and record module."""

    #: the engine class (``new(options)``), the session class, the options class (its default is the menu's)
    engine: ClassVar[Any] = None
    session_type: ClassVar[Any] = BoardSession
    options_type: ClassVar[Any] = None
    seat_display_names: ClassVar[tuple[str, ...]] = ()
    #: the game's record module (``replay(data)``) and position module (``from_dict``), and their error
    records: Any = None
    positions: Any = None
    position_error: ClassVar[type[Exception]] = ValueError
    #: the options of the short game :meth:`warm_up` plays
    warm_up_options: ClassVar[Mapping[str, Any]] = {}

    @abstractmethod
    def seats(self) -> Mapping[str, Any]:
        """Return the game's registered seat classes (its ``policies.<game>.SEATS``)."""

    @abstractmethod
    def menu_options(self, defaults: Any) -> list[JSON]:
        """Return the menu's option descriptions (name, type, range or choices, default)."""

    @abstractmethod
    def options_from(self, data: dict[str, Any]) -> Any:
        """Return the options of a client's mapping (ValueError or TypeError naming a bad key)."""

    def menu(self) -> JSON:
        defaults = self.options_type()
        return {
            "id": self.game_id,
            "title": self.title,
            "seats": [
                {"seat": p, "colour": name, "display_name": self.seat_display_names[p]}
                for p, name in enumerate(self.seat_names)
            ],
            "options": self.menu_options(defaults),
            **self.menu_extra(),
            "defaults": defaults.to_dict(),
            "strategies": [{"id": name, "display_name": cls.display_name} for name, cls in self.seats().items()],
        }

    def menu_extra(self) -> JSON:
        """Return what else the game's menu carries (e.g. board presets)."""
        return {}

    def parse_options(self, data: Any) -> Any:
        if data is None:
            return self.options_type()
        if not isinstance(data, dict):
            raise InputError("bad_options", f"options must be an object, got {brief(data)}")
        try:
            return self.options_from(data)
        except (ValueError, TypeError) as exc:
            raise InputError("bad_options", str(exc), allowed=self.menu()["options"]) from None

    def new_session(self, options: Any, players: list[str], make_policy: Any = None) -> BoardSession:
        session: BoardSession = self.session_type(self.engine.new(options), players)
        return session

    def parse_position(self, data: Any) -> tuple[Any, Any]:
        """Return the options and game of a JSON position, validated by the engine's position loader."""
        try:
            game = self.positions.from_dict(data)
        except self.position_error as exc:
            raise InputError("bad_position", f"position: {exc}") from None
        if game.over:
            raise InputError("bad_position", f"position: the game in it is already over ({game.end_reason})")
        return game.options, game

    def session_at(self, options: Any, players: list[str], start: Any) -> BoardSession:
        session: BoardSession = self.session_type(start.copy(), players, start=start.copy())
        return session

    def make_policy(self, spec: str, seed: int | None) -> Any:
        """Return the seat of a spec the server resolved: one of the game's registered seats, or a checkpoint,
        exported package or ``search:`` seat of the game (through the game's adapter, :mod:`policies.games`)."""
        from policies import games

        return games.get(self.game_id).make_seat(spec, seed)

    def warm_up(self) -> None:
        """Run every compiled kernel a room uses once (numba loads or compiles them on first call)."""
        seats = self.seats()
        session = self.new_session(self.options_type(**self.warm_up_options), ["random", "heuristic"])
        players = [seats["random"](seed=0), seats["heuristic"](seed=0)]
        while not session.over:
            seat = session.game.turn
            self.warm_up_select(session, seat)
            session.apply(session.ai_action(players[seat], session.ai_snapshot(), seat))
            session.view()

    def warm_up_select(self, session: Any, seat: int) -> None:
        """Answer one selection of ``seat`` during the warm-up game, where selections run kernels (default: none)."""

    def tutorial(self) -> JSON:
        """The board games have no tutorial yet: their rules pages are in docs/."""
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
            game = self.records.replay(data)
        except self.position_error as exc:
            raise InputError("bad_record", str(exc)) from None
        return ReplayCursor(game.options, data.get("start"), [int(a) for a in data["actions"]], list(data["players"]))

    def replay_view(self, cursor: Any, ply: int) -> JSON:
        """Return the view after ``ply`` actions (a replay from the start: a whole game is a few ms of engine time)."""
        assert isinstance(cursor, ReplayCursor)
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(cursor.actions):
            raise InputError("bad_ply", f"ply must be an integer in 0..{len(cursor.actions)}, got {brief(ply)}")
        game = self.engine.new(cursor.options) if cursor.start is None else self.start_game(cursor)
        session: BoardSession = self.session_type(game, cursor.players)
        for action in cursor.actions[:ply]:
            session.apply(action)
        out = session.view()
        out["record_plies"] = len(cursor.actions)
        return out

    def start_game(self, cursor: ReplayCursor) -> Any:
        """Return the game at a replayed record's start position."""
        return self.positions.from_dict(cursor.start)
