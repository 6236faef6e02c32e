"""The Frontera adapter: the engine (frontera_env.engine.Game), its scripted seats and records behind the play server.

Every rule is the engine's, every AI decision a seat's of :data:`policies.frontera.SEATS`; this module maps the
page's JSON inputs to :mod:`frontera_env.actions`, keeps the record (:mod:`frontera_env.record`) and builds the
per-seat views and log entries (:mod:`play.games.frontera_view`). Several seats act at once during the hidden
deployment (R-2.7): :meth:`FronteraSession.acting` lists them and each action names its seat.

An action, as the server stores it, is ``{"seat": s, "action": {...}}`` with the record's action JSON
(``{"type": "Place", "seat": 1, "territory": 4, "count": 3}``) or a clock event (``{"type": "timeout"}``).

Inputs (``{"type": "input", "action": NAME, ...}``): ``place`` / ``take_back`` / ``deploy`` with ``cell`` (a
territory id) and ``count``; ``ready``; ``trade`` with ``cards`` (three card ids); ``attack`` / ``blitz`` with
``from`` and ``to``; ``occupy`` with ``count``; ``end_attack``; ``regroup`` with ``from``, ``to``, ``count``;
``end_turn``. A selection ``{"cell": t}`` answers the territories ``t`` may attack or regroup to now.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import deque
from collections.abc import Mapping
from typing import Any

from frontera_env import record as rec
from frontera_env.actions import (
    Action,
    Attack,
    Blitz,
    Deploy,
    EndAttack,
    EndTurn,
    Occupy,
    Place,
    Ready,
    Regroup,
    TakeBack,
    Trade,
)
from frontera_env.board import SIZES, FronteraMap
from frontera_env.engine import Game
from frontera_env.generator import normalise_code
from frontera_env.rules_errors import IllegalAction, RecordError
from frontera_env.state import ACTIVE, SETUP, WINDOW
from play.games import JSON, GameAdapter, GameSession, InputError
from play.games.board_session import brief
from play.games.frontera_view import SEAT_DISPLAY_NAMES, SEAT_NAMES, active, entries, layout, public_view, seat_view
from play.games.frontera_view import sight as sight_of

#: log entries a view carries, and per-viewer entries the session keeps for missed events (play/room.py)
LOG_LENGTH = 40
ENTRY_MEMORY = 256
#: the input names and the engine action each makes
INPUTS = (
    "place",
    "take_back",
    "ready",
    "deploy",
    "trade",
    "attack",
    "blitz",
    "occupy",
    "end_attack",
    "regroup",
    "end_turn",
)
_KINDS = {
    cls: name
    for name, cls in zip(
        INPUTS, (Place, TakeBack, Ready, Deploy, Trade, Attack, Blitz, Occupy, EndAttack, Regroup, EndTurn), strict=True
    )
}
_CLOCK_EVENTS = ("timeout", "deployment_timeout")


@dataclasses.dataclass(frozen=True)
class FronteraRoomOptions:
    """A room's options: map size, world code ('' for the reference map), players (2..6), fog and cards.

    ``seed`` (the lot, deal and dice, R-2) is the room's secret: it never appears in :meth:`to_dict`, so neither
    the room's summary nor a rematch carries it (the server gives it with :meth:`FronteraAdapter.seeded`).
    """

    map: str = "small"
    world: str = ""
    players: int = 3
    fog: bool = False
    cards: bool = True
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.map, str) or self.map not in SIZES:
            raise ValueError(f"option map must be one of {', '.join(SIZES)}, got {brief(self.map)}")
        if not isinstance(self.world, str) or len(self.world) > 64:
            raise ValueError(
                f"option world must be a world code (up to 32 of A-Z, 0-9, '-') or '', got {brief(self.world)}"
            )
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 2 <= self.players <= 6:
            raise ValueError(f"option players must be an integer 2..6, got {brief(self.players)}")
        for name in ("fog", "cards"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"option {name} must be true or false, got {brief(getattr(self, name))}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FronteraRoomOptions:
        """Return options from a client's mapping; ValueError naming an unknown key or a bad value."""
        known = ("map", "world", "players", "fog", "cards")
        for key in data:
            if key not in known:
                raise ValueError(f"unknown Frontera option {brief(key)}; allowed: {', '.join(known)}")
        options = cls(**data)
        if options.world:
            try:
                code = normalise_code(options.world)
            except ValueError as exc:
                raise ValueError(f"option world: {exc}") from None
            options = dataclasses.replace(options, world=code)
        board_for(options)  # a world code the generator cannot build is refused here, not when the room starts
        return options

    def to_dict(self) -> JSON:
        return {"map": self.map, "world": self.world, "players": self.players, "fog": self.fog, "cards": self.cards}


@functools.lru_cache(maxsize=16)
def _board(size: str, world: str) -> FronteraMap:
    from frontera_env.generator import generate
    from frontera_env.map_file import reference_map

    return reference_map(size) if not world else generate(size, world)


def board_for(options: FronteraRoomOptions) -> FronteraMap:
    """Return the options' map: the reference map of the size, or the generator's map of the world code (M-9)."""
    try:
        return _board(options.map, options.world)
    except ValueError as exc:
        raise ValueError(f"option world: {exc}") from None


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError("bad_message", f"{what} must be an integer {lo}..{hi}, got {brief(value)}")
    return int(value)


class FronteraSession(GameSession):
    """One game of Frontera: the recorded engine game, per-viewer log entries and the AI's view of it."""

    private_views = True

    def __init__(self, game: Game, players: list[str], seed: int) -> None:
        self.recorder = rec.Recorder(game, seed)
        self.game = game
        self.players = list(players)
        #: per ply: the entry of every seat, then the spectators' (so a missed event tells no more than a view)
        self.entries: deque[tuple[int, list[JSON]]] = deque(maxlen=ENTRY_MEMORY)

    @property
    def turn(self) -> int | None:
        acting = active(self.game)
        return acting[0] if acting else None

    @property
    def ply(self) -> int:
        return len(self.recorder.actions)

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def winners(self) -> list[int]:
        return [] if self.game.winner is None else [self.game.winner]

    def acting(self) -> list[int]:
        return active(self.game)

    def clock_key(self) -> Any:
        """Return the turn (and whether it is the deployment): the clock restarts per turn, not per action (R-12)."""
        return int(self.game.state.turn_index), self.game.state.phase == SETUP

    def view(self) -> JSON:
        return self.view_for(None)

    def view_for(self, seat: int | None) -> JSON:
        """Return ``seat``'s view (None: a spectator's), with its log entries (R-13)."""
        col = self.game.state.players if seat is None else seat
        log = [entry[col] for _, entry in list(self.entries)[-LOG_LENGTH:]]
        state = public_view(self.game) if seat is None else seat_view(self.game, seat)
        return {
            "game": "frontera",
            "ply": self.ply,
            "seat": seat,
            "acting": self.acting(),
            "turn": self.turn,
            "over": self.over,
            "winners": self.winners,
            "state": state,
            "last": log[-1] if log else None,
            "log": log,
        }

    def event_for(self, event: JSON, seat: int | None) -> JSON:
        """Return a stored room event as ``seat`` may see it: a move's entry is that viewer's (R-13)."""
        if event.get("type") != "move":
            return event
        col = self.game.state.players if seat is None else seat
        for ply, per_viewer in self.entries:
            if ply == event.get("ply"):
                return {**event, "entry": per_viewer[col]}
        return {**event, "entry": {k: event["entry"].get(k) for k in ("ply", "seat")}}

    # ---- inputs ----------------------------------------------------------------------------------------
    def select(self, seat: int, message: Mapping[str, Any]) -> JSON:
        """Return the territories ``message["cell"]`` may attack or regroup to now (R-5.1, R-7.1)."""
        source = self._territory(message.get("cell"), "cell")
        self._check_acting(seat)
        targets = set()
        for act in self.game.legal_actions(seat if self.game.state.phase == SETUP else None):
            if isinstance(act, Attack) and act.source == source:
                targets.add(act.target)
            elif isinstance(act, Regroup) and act.source == source:
                targets.add(act.dest)
        return {"cell": source, "targets": sorted(targets)}

    def parse_input(self, seat: int, message: Mapping[str, Any]) -> JSON:
        """Return ``seat``'s action of an input message; InputError naming the inputs and fields allowed."""
        self._check_acting(seat)
        name = message.get("action")
        if name not in INPUTS:
            raise InputError(
                "bad_message", f"action must be one of {', '.join(INPUTS)}; got {brief(name)}", list(INPUTS)
            )
        count = message.get("count", 1)
        action: Action
        if name in ("place", "take_back", "deploy"):
            t = self._territory(message.get("cell"), "cell")
            n = _int(count, "count", 1, 10_000)
            action = (
                Place(seat, t, n) if name == "place" else TakeBack(seat, t, n) if name == "take_back" else Deploy(t, n)
            )
        elif name == "ready":
            action = Ready(seat)
        elif name == "trade":
            action = Trade(self._cards(message.get("cards")))
        elif name in ("attack", "blitz", "regroup"):
            src = self._territory(message.get("from"), "from")
            dst = self._territory(message.get("to"), "to")
            if name == "regroup":
                action = Regroup(src, dst, _int(count, "count", 1, 10_000))
            else:
                action = Attack(src, dst) if name == "attack" else Blitz(src, dst)
        elif name == "occupy":
            action = Occupy(_int(count, "count", 0, 10_000))
        else:
            action = EndAttack() if name == "end_attack" else EndTurn()
        return {"seat": seat, "action": rec.action_to_json(action)}

    def _territory(self, value: Any, what: str) -> int:
        return _int(value, f"{what} (a territory id)", 0, self.game.ctx.n - 1)

    def _cards(self, value: Any) -> tuple[int, int, int]:
        most = self.game.ctx.n + 1
        if not isinstance(value, list) or len(value) != 3:
            raise InputError("bad_message", f"cards must be a list of 3 card ids, got {brief(value)}")
        ids = sorted(_int(c, "a card id", 0, most) for c in value)
        return ids[0], ids[1], ids[2]

    def _check_acting(self, seat: int) -> None:
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        st = self.game.state
        # in the deployment a ready seat may still take armies back, which makes it unready again
        acting = [p for p in range(st.players) if st.status[p] == ACTIVE] if st.phase == SETUP else self.acting()
        if seat not in acting:
            names = ", ".join(SEAT_NAMES[s] for s in acting)
            raise InputError("not_your_turn", f"seat {SEAT_NAMES[seat]} cannot act now; acting: {names}", acting)

    # ---- AI seats and the clock ------------------------------------------------------------------------
    def ai_snapshot(self) -> Game:
        return self.game.copy()

    def ai_action(self, policy: Any, snapshot: Any, seat: int) -> JSON:
        """Return ``policy``'s action for ``seat`` on a copy; in the deployment that copy asks ``seat`` (R-2.7)."""
        if snapshot.state.phase == SETUP:
            snapshot.state.current = seat  # the copy only: a seat acts for itself while others deploy too
        return {"seat": seat, "action": rec.action_to_json(policy.act(snapshot, seat))}

    def fallback_action(self, seat: int) -> JSON:
        """Return what the clock's automatic player (R-12) would do for ``seat``."""
        from policies.frontera.automatic import AutomaticSeat

        return self.ai_action(AutomaticSeat(seed=0), self.ai_snapshot(), seat)

    def leave_action(self, seat: int) -> JSON | None:
        """Return the R-11.1 abandonment of ``seat``, or None if it is already out of the game or the game is over."""
        if self.game.over or self.game.state.status[seat] != ACTIVE:
            return None
        return {"seat": seat, "action": {"type": "abandon", "seat": seat}}

    def timeout_action(self, seat: int) -> JSON:
        """Return the engine's clock expiry: the deployment's (R-12.3) or the turn's (R-12.2)."""
        kind = "deployment_timeout" if self.game.state.phase == SETUP else "timeout"
        return {"seat": seat, "action": {"type": kind}}

    # ---- applying --------------------------------------------------------------------------------------
    def apply(self, action: Any) -> JSON:
        """Apply ``{"seat", "action"}``; return its public entry (per-viewer entries are kept for views)."""
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        seat, act = self._decode(action)
        st = self.game.state
        viewers = [*range(st.players), None]
        before = [sight_of(self.game, v) for v in viewers]
        status, target = st.status.copy(), int(st.window[1]) if st.phase == WINDOW else None
        try:
            if act is None and action["action"]["type"] == "abandon":
                self.recorder.abandon(seat)
            elif act is None:
                getattr(self.recorder, action["action"]["type"])()
            else:
                self.recorder.apply(act)
        except IllegalAction as exc:
            raise InputError("illegal_move", str(exc)) from None
        full = action_entry(self.game, self.ply, seat, act, action["action"]["type"], status, target)
        per_viewer = entries(self.game, before, full, act)
        self.entries.append((self.ply, per_viewer))
        return {k: full[k] for k in ("ply", "seat")} | {"kind": per_viewer[-1]["kind"]}

    def _decode(self, action: Any) -> tuple[int, Action | None]:
        if not isinstance(action, Mapping) or set(action) != {"seat", "action"}:
            raise InputError("bad_message", f"a Frontera action is {{seat, action}}, got {brief(action)}")
        seat = _int(action["seat"], "seat", 0, self.game.state.players - 1)
        data = action["action"]
        if isinstance(data, Mapping) and data.get("type") in _CLOCK_EVENTS and len(data) == 1:
            return seat, None
        if isinstance(data, Mapping) and data.get("type") == "abandon" and data.get("seat") == seat and len(data) == 2:
            return seat, None  # stored by the server when the seat's player leaves (leave_action)
        try:
            act = rec.action_from_json(data)
        except RecordError as exc:
            raise InputError("bad_message", str(exc)) from None
        if isinstance(act, tuple):
            raise InputError("bad_message", f"{act[0]} is no seat's action")
        st = self.game.state
        # during the deployment a turn action is the engine's to refuse (R-2.7 names the phase), not a turn error
        owner = seat if st.phase == SETUP else int(st.current)
        if isinstance(act, Place | TakeBack | Ready):
            owner = act.seat
        if owner != seat:
            raise InputError("not_your_turn", f"seat {seat} cannot play seat {owner}'s action {brief(data)}")
        return seat, act

    def record(self) -> JSON:
        return self.recorder.to_dict()


def action_entry(
    game: Game, ply: int, seat: int, act: Action | None, kind: str, status: Any, target: int | None
) -> JSON:
    """Return everything action ``ply`` did, just applied to ``game`` (the acting seat's entry, a replay's entry).

    ``status`` is the seats' status and ``target`` the adjust window's territory from before the action.
    """
    st = game.state
    entry: JSON = {"ply": ply, "seat": seat, "kind": _KINDS.get(type(act), kind), "events": []}
    if isinstance(act, Place | TakeBack | Deploy):
        entry.update(territory=act.territory, count=act.count)
    elif isinstance(act, Trade):
        entry["cards"] = list(act.cards)
    elif isinstance(act, Attack | Blitz):
        last = st.last_roll
        entry.update(source=act.source, target=act.target, conquered=int(st.owner[act.target]) == seat)
        entry["roll"] = {
            "attacker": int(last[3]),
            "defender": int(last[2]),
            "attack": [int(d) for d in last[4:7] if d],
            "defence": [int(d) for d in last[7:10] if d],
        }
    elif isinstance(act, Occupy):
        entry.update(target=target, count=act.garrison)
    elif isinstance(act, Regroup):
        entry.update(source=act.source, target=act.dest, count=act.count)
    for p in range(st.players):
        if status[p] == ACTIVE and st.status[p] != ACTIVE:
            entry["events"].append({"type": "eliminated", "seat": p})
    if game.over:
        entry["events"].append({"type": "game_over", "winner": game.winner, "truncated": bool(st.truncated)})
    return entry


def replay_to(data: Mapping[str, Any], board: FronteraMap, ply: int) -> tuple[Game, list[JSON]]:
    """Return the game after ``ply`` actions of a checked record and the entries of its last LOG_LENGTH actions.

    A finished game's replay hides nothing: the entries are the acting seats' own (placements, traded cards, dice).
    """
    actions = data["actions"]
    first = max(0, ply - LOG_LENGTH)
    game = rec.replay({k: v for k, v in data.items() if k != "result"} | {"actions": actions[:first]}, board)
    log = []
    for i in range(first, ply):
        act = rec.action_from_json(actions[i])
        st = game.state
        status, target = st.status.copy(), int(st.window[1]) if st.phase == WINDOW else None
        if isinstance(act, tuple):  # a clock or abandon event: the seat it happened to
            kind, who = act
            seat = int(st.current) if who is None else who
            if kind == "abandon":
                game.abandon(seat)
            else:
                getattr(game, kind)()
            log.append(action_entry(game, i + 1, seat, None, kind, status, target))
            continue
        seat = act.seat if isinstance(act, Place | TakeBack | Ready) else int(st.current)
        game.apply(act)
        log.append(action_entry(game, i + 1, seat, act, "", status, target))
    return game, log


def record_options(data: Mapping[str, Any]) -> JSON | None:
    """Return a record's room options (map size, world code, players, fog, cards), None if it does not say them."""
    ref, opts, players = data.get("map"), data.get("options"), data.get("players")
    try:
        size, code = ref["size"], ref["world_code"]  # type: ignore[index]
        world = "" if code == _board(size, "").world_code else code
        options = {"map": size, "world": world, "players": players, "fog": opts["fog"], "cards": opts["cards"]}  # type: ignore[index]
        FronteraRoomOptions(**options)
    except (KeyError, TypeError, ValueError):
        return None
    return options


class FronteraAdapter(GameAdapter):
    """Frontera for the play server: 2 to 6 seats, the hidden deployment and fog (docs/FRONTERA.md)."""

    game_id = "frontera"
    title = "Frontera"
    seat_names = SEAT_NAMES
    record_format = rec.FORMAT
    #: a leaving player's seat goes to the expansionist, which keeps its armies pressing on (docs/PLAY.md)
    takeover_strategy = "expansionist"  # a left seat in the rematch
    leave_by_rule = True  # a player who leaves abandons; their territories become ownerless

    def seat_count(self, options: Any) -> int:
        return int(options.players)

    def seeded(self, options: Any, seed: int) -> FronteraRoomOptions:
        """Return the options with the room's secret seed (the lot, the deal and every die, R-2)."""
        room_options: FronteraRoomOptions = options
        return dataclasses.replace(room_options, seed=int(seed))

    def public_options(self, options: Any) -> JSON:
        room_options: FronteraRoomOptions = options
        return room_options.to_dict()

    def menu(self) -> JSON:
        from policies.frontera import SEATS

        defaults = FronteraRoomOptions()
        return {
            "id": self.game_id,
            "title": self.title,
            "seats": [
                {"seat": p, "colour": name, "display_name": SEAT_DISPLAY_NAMES[p]} for p, name in enumerate(SEAT_NAMES)
            ],
            "options": [
                {"name": "map", "type": "choice", "choices": list(SIZES), "default": defaults.map},
                {"name": "world", "type": "text", "max_length": 32, "default": defaults.world},
                {"name": "players", "type": "int", "min": 2, "max": 6, "default": defaults.players},
                {"name": "fog", "type": "bool", "default": defaults.fog},
                {"name": "cards", "type": "bool", "default": defaults.cards},
            ],
            "defaults": defaults.to_dict(),
            "strategies": [{"id": name, "display_name": cls.display_name} for name, cls in SEATS.items()],
        }

    def parse_options(self, data: Any) -> FronteraRoomOptions:
        if data is None:
            return FronteraRoomOptions()
        if not isinstance(data, dict):
            raise InputError("bad_options", f"options must be an object, got {brief(data)}")
        try:
            return FronteraRoomOptions.from_dict(data)
        except (ValueError, TypeError) as exc:
            raise InputError("bad_options", str(exc), allowed=self.menu()["options"]) from None

    def new_session(self, options: Any, players: list[str], make_policy: Any = None) -> FronteraSession:
        seed = 0 if options.seed is None else options.seed
        board = board_for(options)
        game = Game.new(
            board, options.players, seed, fog=options.fog, cards=options.cards, max_turns=250 * options.players
        )
        return FronteraSession(game, players, seed)

    def layout(self, options: Any) -> JSON:
        key = f"frontera-{options.map}-{options.world or 'ref'}-{options.players}"
        return layout(board_for(options), key, options.players, options.to_dict())

    def make_policy(self, spec: str, seed: int | None) -> Any:
        from policies import games

        return games.get(self.game_id).make_seat(spec, seed)

    def warm_up(self) -> None:
        """Read the reference maps once (the first room would otherwise wait for them)."""
        for size in SIZES:
            _board(size, "")

    def tutorial(self) -> JSON:
        return {"game": self.game_id, "layouts": {}, "steps": []}

    def record_summary(self, data: Mapping[str, Any]) -> JSON:
        """Return a record's listing line; its result also names the winner's seat, as the other games' do."""
        actions = data.get("actions")
        result = data.get("result")
        if isinstance(result, dict) and type(result.get("winner")) is int and 0 <= result["winner"] < len(SEAT_NAMES):
            result = {**result, "winners": [SEAT_NAMES[result["winner"]]]}
        elif isinstance(result, dict):
            result = {**result, "winners": []}
        return {
            "game": self.game_id,
            "players": data.get("players"),
            "result": result,
            "plies": len(actions) if isinstance(actions, list) else None,
            "options": record_options(data),
        }

    def replay_start(self, data: Mapping[str, Any]) -> tuple[FronteraMap, JSON]:
        """Return (map, record) once the record replays on the map it names (reference or world code)."""
        ref = data.get("map")
        if not isinstance(ref, dict) or ref.get("size") not in SIZES or not isinstance(ref.get("world_code"), str):
            raise InputError("bad_record", f"a Frontera record names its map by size and world code, got {brief(ref)}")
        try:
            board = _board(ref["size"], "")
            if board.world_code != ref["world_code"]:
                board = _board(ref["size"], ref["world_code"])
            rec.replay(dict(data), board)
        except (RecordError, ValueError) as exc:
            raise InputError("bad_record", str(exc)) from None
        return board, dict(data)

    def replay_view(self, cursor: Any, ply: int) -> JSON:
        """Return the whole board after ``ply`` actions: a finished game's replay has no fog (docs/PLAY.md)."""
        board, data = cursor
        actions = data["actions"]
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(actions):
            raise InputError("bad_ply", f"ply must be an integer in 0..{len(actions)}, got {brief(ply)}")
        game, log = replay_to(data, board, ply)
        acting = active(game)
        return {
            "game": "frontera",
            "ply": ply,
            "seat": None,
            "acting": acting,
            "turn": acting[0] if acting else None,
            "over": game.over,
            "winners": [] if game.winner is None else [game.winner],
            "state": public_view(game, lifted=True),
            "last": log[-1] if log else None,
            "log": log,
            "record_plies": len(actions),
        }
