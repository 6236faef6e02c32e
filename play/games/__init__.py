"""What the play server needs from a game: one small adapter per game, the server stays the same.

The server (rooms, seats, tokens, AI seats, replays, the websocket protocol) knows nothing of any
game's rules. A game plugs in with two objects:

* a :class:`GameAdapter`: the game's menu (options and their ranges), starting a session from
  validated options, the static board layout, the tutorial and replays of saved records;
* a :class:`GameSession`: one running game, owning its engine state and its record. It answers
  the acting seat, the state view sent to every client, the legal inputs for a selection, applies
  one input (a human's message or an AI's action) and returns a log entry.

Inputs are game-specific JSON objects (for Domain Wheel ``{"from": [q, r], "to": [q, r]}``); every
failure raises :class:`InputError` with a code, a message naming what was wrong and, where it helps,
what is allowed. A second game means a new adapter and a new board view in the page, not a new server.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

JSON = dict[str, Any]


class InputError(ValueError):
    """A request the game refuses; the game is unchanged. ``code`` is a stable machine-readable name.

    ``re`` is the id of the client message it answers, when that message had a valid one.
    """

    re: str | int | None = None

    def __init__(self, code: str, message: str, allowed: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.allowed = allowed

    def to_json(self) -> JSON:
        data: JSON = {"code": self.code, "message": self.message}
        if self.allowed is not None:
            data["allowed"] = self.allowed
        return data


class GameSession(ABC):
    """One running game: engine state, record and recent log, driven by the server one input at a time.

    A game with hidden information sets :attr:`private_views`: the server then sends each connection
    :meth:`view_for` its own seat (None for spectators) and filters replayed events with :meth:`event_for`.
    A game where several seats act at once (Frontera's deployment) lists them in :meth:`acting`.
    """

    #: whether views differ per seat (the server then never sends one seat's view to another)
    private_views: bool = False

    @property
    @abstractmethod
    def turn(self) -> int | None:
        """Return the seat to act, or None once the game is over."""

    @property
    @abstractmethod
    def ply(self) -> int:
        """Return the number of inputs applied so far (the replay position of the current state)."""

    @property
    @abstractmethod
    def over(self) -> bool:
        """Return True once the game has ended."""

    @property
    def winners(self) -> list[int]:
        """Return the winning seats of a finished game (empty while it runs, and for a draw or a cut-off game)."""
        return []

    @abstractmethod
    def view(self) -> JSON:
        """Return the JSON state view every client (players and spectators alike) receives."""

    def view_for(self, seat: int | None) -> JSON:
        """Return the view of ``seat`` (None: a spectator's); the same for everyone by default."""
        return self.view()

    def event_for(self, event: JSON, seat: int | None) -> JSON:
        """Return a remembered room event as ``seat`` may see it (None: a spectator); unchanged by default."""
        return event

    def acting(self) -> list[int]:
        """Return the seats that may act now (by default the seat to act, none once over)."""
        turn = self.turn
        return [] if turn is None else [turn]

    def clock_key(self) -> Any:
        """Return what identifies the current turn: the turn clock restarts when it changes (default: every ply)."""
        return self.ply

    @abstractmethod
    def select(self, seat: int, message: Mapping[str, Any]) -> JSON:
        """Return the legal inputs that follow a selection by ``seat`` (e.g. a piece's destinations)."""

    @abstractmethod
    def parse_input(self, seat: int, message: Mapping[str, Any]) -> Any:
        """Return the game action of a client's input message; InputError if malformed or not ``seat``'s."""

    @abstractmethod
    def ai_snapshot(self) -> Any:
        """Return an independent copy of the state for an AI to think on (off the event loop)."""

    @abstractmethod
    def ai_action(self, policy: Any, snapshot: Any, seat: int) -> Any:
        """Return the action ``policy`` chooses for ``seat`` on ``snapshot`` (runs in a worker thread)."""

    @abstractmethod
    def apply(self, action: Any) -> JSON:
        """Apply one action of the seat to act; return its log entry. InputError if illegal (state unchanged)."""

    @abstractmethod
    def record(self) -> JSON:
        """Return the game record (JSON-ready) of the game so far, with its result once over."""

    def fallback_action(self, seat: int) -> Any:
        """Return what ``seat`` plays when its AI fails or chooses an illegal action (default: a pass).

        Games without a pass override it (e.g. the first legal action), so that a failing AI never stops a room.
        """
        return self.parse_input(seat, {"action": "pass"})

    def timeout_action(self, seat: int) -> Any:
        """Return what ``seat`` plays when its turn clock runs out (default: the fallback action).

        Each game's doc says what a timeout does: Domain Wheel and Conquer pass, Alveole (no pass) plays
        its first legal move.
        """
        return self.fallback_action(seat)

    def leave_action(self, seat: int) -> Any | None:
        """Return the stored move by which ``seat`` leaves the game under its own rules, or None if none applies.

        Used only for games whose adapter sets ``leave_by_rule`` (Frontera: R-11 abandonment, the leaver's
        territories become ownerless); None also when the seat is already out or the game is over.
        """
        return None


class GameAdapter(ABC):
    """A game the server can host: its menu data, sessions, layout, tutorial and replays."""

    #: stable id used in the API (``"domain_wheel"``) and the game's display title
    game_id: str = ""
    title: str = ""
    #: seat names in turn order and their count
    seat_names: tuple[str, ...] = ()
    #: the ``format`` field of this game's saved records (play/records.py picks the adapter by it)
    record_format: str = ""
    #: the strategy that takes a seat over when its player leaves the game (docs/PLAY.md, "Seats change hands"),
    #: and a left seat in the rematch
    takeover_strategy: str = "random"
    #: whether a player who leaves is taken out by the game's own rules (:meth:`GameSession.leave_action`,
    #: Frontera's R-11) instead of handing the seat to the takeover strategy
    leave_by_rule: bool = False

    @abstractmethod
    def menu(self) -> JSON:
        """Return the game's menu data: options with defaults and ranges, seat names and colours."""

    @abstractmethod
    def parse_options(self, data: Any) -> Any:
        """Return validated options from a client's mapping (missing keys take defaults); InputError if not."""

    def seat_count(self, options: Any) -> int:
        """Return the number of seats a game with ``options`` has (by default every seat name's)."""
        return len(self.seat_names)

    def seeded(self, options: Any, seed: int) -> Any:
        """Return the options a room's session starts from, given the room's secret seed (default: unchanged)."""
        return options

    def public_options(self, options: Any) -> Any:
        """Return the options as a room's summary shows them to everyone."""
        return options.to_dict() if hasattr(options, "to_dict") else options

    @abstractmethod
    def new_session(self, options: Any, players: list[str], make_policy: Any = None) -> GameSession:
        """Return a session at the initial position; ``players`` names each seat's strategy for the record."""

    def parse_position(self, data: Any) -> tuple[Any, Any]:
        """Return (options, start) of a client's starting position (a designer's set-up); InputError if bad.

        ``start`` is what :meth:`new_session` takes as ``start``. Games without a position format refuse.
        """
        raise InputError("bad_position", f"{self.title} rooms cannot start from a given position")

    def session_at(self, options: Any, players: list[str], start: Any) -> GameSession:
        """Return a session starting at ``start`` (from :meth:`parse_position`) instead of the initial position."""
        raise InputError("bad_position", f"{self.title} rooms cannot start from a given position")

    @abstractmethod
    def layout(self, options: Any) -> JSON:
        """Return the static board layout for ``options`` (cells, lands, colours); the same for a whole game."""

    @abstractmethod
    def make_policy(self, spec: str, seed: int | None) -> Any:
        """Return an AI seat for a strategy spec (a registered name or a file path the server resolved)."""

    def warm_up(self) -> None:  # noqa: B027 - an optional hook: most games need no warm-up
        """Load or compile whatever the first game would otherwise wait for (called once, off the event loop)."""

    @abstractmethod
    def tutorial(self) -> JSON:
        """Return the tutorial's situations as layouts, state views, actions and expected outcomes."""

    @abstractmethod
    def record_summary(self, data: Mapping[str, Any]) -> JSON:
        """Return a short description of a game record (players, result, plies) without replaying it."""

    @abstractmethod
    def replay_start(self, data: Mapping[str, Any]) -> Any:
        """Return a replay cursor over a record (raises InputError if the record is malformed)."""

    @abstractmethod
    def replay_view(self, cursor: Any, ply: int) -> JSON:
        """Return the state view after ``ply`` inputs of the record behind ``cursor``."""

    def replay_log(self, cursor: Any) -> JSON:
        """Return what a replay's move log shows of every input besides the record's notation (none by default)."""
        return {}


_ADAPTERS: dict[str, GameAdapter] = {}
#: the game a request means when it names none
DEFAULT_GAME = "domain_wheel"


def register(adapter: GameAdapter) -> None:
    """Make a game available to the server under ``adapter.game_id``."""
    _ADAPTERS[adapter.game_id] = adapter


def get(game_id: Any) -> GameAdapter:
    """Return the adapter of a game id; InputError naming the games the server hosts."""
    _load_builtin()
    if not isinstance(game_id, str) or game_id not in _ADAPTERS:
        raise InputError("unknown_game", f"unknown game {game_id!r}", allowed=sorted(_ADAPTERS))
    return _ADAPTERS[game_id]


def for_record(data: Any) -> GameAdapter | None:
    """Return the adapter whose records have ``data``'s ``format``, or None."""
    _load_builtin()
    fmt = data.get("format") if isinstance(data, dict) else None
    return next((a for a in _ADAPTERS.values() if a.record_format and a.record_format == fmt), None)


def available() -> list[GameAdapter]:
    """Return every hosted game's adapter."""
    _load_builtin()
    return list(_ADAPTERS.values())


def _load_builtin() -> None:
    if not _ADAPTERS:
        from play.games.domain_wheel import DomainWheelAdapter

        register(DomainWheelAdapter())
        from play.games.alveole import AlveoleAdapter

        register(AlveoleAdapter())
        from play.games.conquer import ConquerAdapter

        register(ConquerAdapter())
        from play.games.frontera import FronteraAdapter

        register(FronteraAdapter())
