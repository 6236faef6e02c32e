"""The Domain Wheel adapter: the engine (dw_env.engine.Game) and its seats behind the play server.

Every rule, legality test and AI decision is the engine's and the policies': this module only
translates JSON inputs to :class:`dw_env.engine.Move` values, records the game
(:class:`dw_env.record.Recorder`) and builds views (:mod:`play.games.domain_wheel_view`).

Inputs (docs/PLAY.md): ``{"action": "move", "from": [q, r], "to": [q, r]}``,
``{"action": "pass"}`` (rule 3.2b) and ``{"action": "end_request"}`` (rules 9.3-9.4);
a selection is ``{"cell": [q, r]}`` and answers the piece's destinations with their move kinds
and colours (rule 11.1).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from dw_env import position
from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, IllegalActionError, Move
from dw_env.info import NUM_PLAYERS, PLAYER_DISPLAY_NAMES, PLAYER_NAMES
from dw_env.options import BOOL_OPTIONS, INT_RANGES, GameOptions
from dw_env.record import GameRecord, Recorder, RecordError, format_move
from dw_env.rules import layout as lay
from play.games import JSON, GameAdapter, GameSession, InputError
from play.games.domain_wheel_view import Viewer, cell, layout, layout_key, move_colour, move_kinds

#: the most log entries a view carries (the record keeps every move)
LOG_LENGTH = 40
#: the tutorial's scenario files (Paso 1-20), shared with tests/test_tutorial_scenarios.py
SCENARIO_DIR = Path(__file__).resolve().parents[2] / "tests" / "scenarios"
#: a replay cursor keeps a snapshot every this many plies (bounded memory, short seeks)
SNAPSHOT_EVERY = 50


def parse_cell(game: Game, value: Any, what: str) -> int:
    """Return the cell index of a ``[q, r]`` pair; InputError naming the field and the map's extent."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InputError("bad_message", f"{what} must be an axial cell [q, r] of two integers, got {_brief(value)}")
    try:
        return game.geometry.cell_index(int(value[0]), int(value[1]))
    except ValueError as exc:
        raise InputError("bad_cell", f"{what}: {exc}") from None


def _brief(value: Any) -> str:
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


class DomainWheelSession(GameSession):
    """One game of Domain Wheel: engine state, recorder, recent log and a view builder."""

    def __init__(self, game: Game, players: list[str]) -> None:
        self.recorder = Recorder(game, players)
        self.game = game
        self.viewer = Viewer(game.geometry)
        self.log: deque[JSON] = deque(maxlen=LOG_LENGTH)
        self.last: JSON | None = None

    @property
    def turn(self) -> int | None:
        return None if self.game.over else self.game.turn

    @property
    def ply(self) -> int:
        return int(self.game.scalars[lay.PLY])

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def winners(self) -> list[int]:
        return [int(w) for w in self.game.winners] if self.game.over else []

    def view(self) -> JSON:
        return self.viewer.view(self.game, self.last, list(self.log))

    def select(self, seat: int, message: Mapping[str, Any]) -> JSON:
        """Return the destinations of the acting seat's piece on ``message["cell"]`` (rule 11.1)."""
        game = self.game
        src = parse_cell(game, message.get("cell"), "cell")
        self._check_turn(seat)
        if int(game.board[src]) not in (lay.piece_code(seat, lay.KING), lay.piece_code(seat, lay.KNIGHT)):
            raise InputError(
                "not_your_piece",
                f"cell {cell(game.geometry, src)} holds no piece of {PLAYER_NAMES[seat]}",
                allowed=[cell(game.geometry, c) for c in game.movable_pieces()],
            )
        g = game.geometry
        return {
            "cell": cell(g, src),
            "destinations": [
                {"to": cell(g, dst), "kinds": move_kinds(flags), "colour": move_colour(flags)}
                for dst, flags in game.destinations(src).items()
            ],
        }

    def parse_input(self, seat: int, message: Mapping[str, Any]) -> Move:
        action = message.get("action")
        self._check_turn(seat)
        if action == "pass":
            return PASS_MOVE
        if action == "end_request":
            return END_REQUEST_MOVE
        if action == "move":
            return Move(
                parse_cell(self.game, message.get("from"), "from"), parse_cell(self.game, message.get("to"), "to")
            )
        raise InputError(
            "bad_message",
            f"action must be one of move, pass, end_request; got {_brief(action)}",
            ["move", "pass", "end_request"],
        )

    def ai_snapshot(self) -> Game:
        return self.game.copy()

    def ai_action(self, policy: Any, snapshot: Any, seat: int) -> Move:
        move = policy.act(snapshot, seat)
        return Move(int(move[0]), int(move[1]))

    def apply(self, action: Any) -> JSON:
        """Play ``action`` for the seat to act; return the log entry with what it caused (rule 11.5)."""
        game = self.game
        if game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        seat, ply, rnd = game.turn, self.ply, game.round
        before_owner = game.lands[lay.OWNER].copy()
        before_lib = game.lands[lay.LIB : lay.LIB + NUM_PLAYERS].copy()
        before_kings = [game.king_cell(p) for p in range(NUM_PLAYERS)]
        before_knights = [set(game.pieces(p)[1]) for p in range(NUM_PLAYERS)]
        before_countdown = game.countdown
        move = Move(int(action[0]), int(action[1]))
        try:
            flags = self.recorder.play(move)
        except IllegalActionError as exc:
            raise InputError("illegal_move", str(exc)) from None
        g = game.geometry
        entry: JSON = {
            "ply": ply + 1,
            "round": rnd,
            "seat": seat,
            "notation": format_move(g, move),
            "action": "pass" if move.is_pass else "end_request" if move.is_end_request else "move",
            "from": None if move.src < 0 else cell(g, move.src),
            "to": None if move.src < 0 else cell(g, move.dst),
            "kinds": move_kinds(flags) if move.src >= 0 else [],
            "events": self._events(
                seat, move, before_owner, before_lib, before_kings, before_knights, before_countdown
            ),
        }
        self.last = entry
        self.log.append(entry)
        return entry

    def record(self) -> JSON:
        return self.recorder.record.to_dict()

    # ---- helpers -------------------------------------------------------------------------
    def _check_turn(self, seat: int) -> None:
        if self.game.over:
            raise InputError("game_over", "the game is over; no action is allowed")
        if seat != self.game.turn:
            raise InputError(
                "not_your_turn", f"it is {PLAYER_NAMES[self.game.turn]}'s turn, not {PLAYER_NAMES[seat]}'s"
            )

    def _events(
        self,
        seat: int,
        move: Move,
        owner0: np.ndarray,
        lib0: np.ndarray,
        kings0: list[int],
        knights0: list[set[int]],
        countdown0: tuple[int, int] | None,
    ) -> list[JSON]:
        """Return what an action caused: conquests, liberations, lost lands, exiles, new knights, countdown, end."""
        game, g = self.game, self.game.geometry
        events: list[JSON] = []
        owner1 = game.lands[lay.OWNER]
        for land in np.flatnonzero(owner0 != owner1):
            old, new = int(owner0[land]), int(owner1[land])
            old_owner = None if old < 0 else old
            if new >= 0:
                events.append({"type": "conquest", "land": int(land), "player": new, "from_owner": old_owner})
            elif move.is_end_request and old == seat:
                events.append({"type": "land_lost", "land": int(land), "player": seat})  # rule 9.4
            else:
                takers = [p for p in range(NUM_PLAYERS) if lib0[p, land] > 0 and p != old]
                by = max(takers, key=lambda p: int(lib0[p, land])) if takers else seat
                events.append({"type": "liberation", "land": int(land), "player": by, "from_owner": old_owner})
        for p in range(NUM_PLAYERS):
            king = game.king_cell(p)
            moved_by_swap = p == seat and move.src >= 0
            if king != kings0[p] and not moved_by_swap:
                events.append({"type": "exile", "player": p, "from": cell(g, kings0[p]), "to": cell(g, king)})
            knights = set(game.pieces(p)[1])
            if len(knights) > len(knights0[p]):
                moved = {move.dst} if p == seat and move.src >= 0 else set()
                for c in sorted(knights - knights0[p] - moved - {move.src}):
                    events.append({"type": "new_knight", "player": p, "cell": cell(g, c)})
        countdown = game.countdown
        if countdown is not None and countdown0 is None:
            events.append({"type": "countdown", "holder": countdown[0], "turns_left": countdown[1]})
        if game.over:
            events.append({"type": "game_over", "end_reason": game.end_reason, "winners": game.winners})
        return events


@dataclasses.dataclass
class ReplayCursor:
    """A record being replayed: its moves and a few snapshots (every SNAPSHOT_EVERY plies), not every position."""

    record: GameRecord
    snapshots: dict[int, Game]
    players: list[str] | None
    kinds: list[list[str]] | None = None


class DomainWheelAdapter(GameAdapter):
    """Domain Wheel for the play server."""

    game_id = "domain_wheel"
    title = "Domain Wheel"
    seat_names = PLAYER_NAMES
    record_format = GameRecord.FORMAT
    #: a leaving player's seat goes to the balanced scripted AI, the menu's first (rule 10.1)
    takeover_strategy = "balanced"

    def menu(self) -> JSON:
        defaults = GameOptions()
        options: list[JSON] = []
        for name, (low, high) in INT_RANGES.items():
            options.append({"name": name, "type": "int", "min": low, "max": high, "default": getattr(defaults, name)})
        for name in BOOL_OPTIONS:
            options.append({"name": name, "type": "bool", "default": getattr(defaults, name)})
        return {
            "id": self.game_id,
            "title": self.title,
            "seats": [
                {"seat": p, "colour": name, "display_name": PLAYER_DISPLAY_NAMES[p]}
                for p, name in enumerate(PLAYER_NAMES)
            ],
            "options": options,
            "defaults": defaults.to_dict(),
        }

    def parse_options(self, data: Any) -> GameOptions:
        if data is None:
            return GameOptions()
        if not isinstance(data, dict):
            raise InputError("bad_options", f"options must be an object, got {_brief(data)}")
        try:
            return GameOptions().replace(**data)
        except (ValueError, TypeError) as exc:
            raise InputError("bad_options", str(exc), allowed=self.menu()["options"]) from None

    def new_session(self, options: Any, players: list[str], make_policy: Any = None) -> DomainWheelSession:
        return DomainWheelSession(Game.new(options), players)

    def parse_position(self, data: Any) -> tuple[GameOptions, Game]:
        """Return the options and game of a position (docs/POSITIONS.md), validated by the engine's loader."""
        try:
            game = position.from_dict(data)
        except (position.PositionError, ValueError) as exc:
            raise InputError("bad_position", f"position: {exc}") from None
        if game.over:
            raise InputError("bad_position", "position: the game in it is already over; give a position to play from")
        return game.options, game

    def session_at(self, options: Any, players: list[str], start: Any) -> DomainWheelSession:
        return DomainWheelSession(start.copy(), players)

    def layout(self, options: Any) -> JSON:
        return layout(options)

    def make_policy(self, spec: str, seed: int | None) -> Any:
        from policies.files import make_seat_policy

        return make_seat_policy(spec, seed=seed)

    def warm_up(self) -> None:
        """Run every compiled kernel a room uses once (numba loads or compiles them on first call)."""
        from policies.registry import make

        session = self.new_session(GameOptions(land_radius=1, map_radius=2, max_rounds=3), ["random"] * NUM_PLAYERS)
        policy = make("random", seed=0)
        while not session.over:
            seat = session.game.turn
            session.select(seat, {"cell": cell(session.game.geometry, session.game.movable_pieces()[0])})
            session.apply(session.ai_action(policy, session.ai_snapshot(), seat))
            session.view()

    # ---- tutorial ------------------------------------------------------------------------
    def tutorial(self) -> JSON:
        """Return the 20 situations of tests/scenarios (Paso 1-20) as views, actions and expectations."""
        return _tutorial(str(SCENARIO_DIR))

    # ---- replays -------------------------------------------------------------------------
    def record_summary(self, data: Mapping[str, Any]) -> JSON:
        moves = data.get("moves")
        initial = data.get("initial")
        options = initial.get("options") if isinstance(initial, dict) else None
        return {
            "game": self.game_id,
            "players": data.get("players"),
            "result": data.get("result"),
            "plies": len(moves) if isinstance(moves, list) else None,
            "options": options if isinstance(options, dict) else None,
        }

    def replay_start(self, data: Mapping[str, Any]) -> ReplayCursor:
        try:
            record = GameRecord.from_dict(dict(data), verify=False)
        except RecordError as exc:
            raise InputError("bad_record", str(exc)) from None
        return ReplayCursor(record, {0: record.start()}, record.players)

    def replay_view(self, cursor: Any, ply: int) -> JSON:
        """Return the view after ``ply`` moves, replaying from the nearest earlier snapshot.

        The view's log holds the moves replayed since that snapshot (up to LOG_LENGTH of them).
        """
        assert isinstance(cursor, ReplayCursor)
        moves = cursor.record.moves
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(moves):
            raise InputError("bad_ply", f"ply must be an integer in 0..{len(moves)}, got {_brief(ply)}")
        base = max(k for k in cursor.snapshots if k <= ply)
        session = DomainWheelSession(cursor.snapshots[base].copy(), cursor.players or ["?"] * NUM_PLAYERS)
        for i in range(base, ply):
            if i >= ply - LOG_LENGTH:  # the last moves go through the session, so the view carries their log
                try:
                    session.apply(moves[i])
                except InputError as exc:
                    raise InputError("bad_record", f"moves[{i}] (ply {i + 1}) is illegal: {exc.message}") from None
            else:
                try:
                    session.game.play(moves[i])
                except IllegalActionError as exc:
                    raise InputError("bad_record", f"moves[{i}] (ply {i + 1}) is illegal: {exc}") from None
            if (i + 1) % SNAPSHOT_EVERY == 0 and i + 1 not in cursor.snapshots:
                cursor.snapshots[i + 1] = session.game.copy()
        view = session.view()
        view["record_plies"] = len(moves)
        return view

    def replay_log(self, cursor: Any) -> JSON:
        """Return each move's kinds (rule 11.1), so every log entry of a replay names its move kind (rule 11.5)."""
        assert isinstance(cursor, ReplayCursor)
        if cursor.kinds is None:
            game = cursor.snapshots[0].copy()
            kinds: list[list[str]] = []
            for move in cursor.record.moves:
                try:
                    flags = game.play(move)
                    kinds.append([] if move.is_pass or move.is_end_request else move_kinds(flags))
                except IllegalActionError:  # the view of that ply names the fault; the log stops there
                    break
            cursor.kinds = kinds
        return {"kinds": cursor.kinds}


@functools.lru_cache(maxsize=2)
def _tutorial(directory: str) -> JSON:
    """Return the tutorial data (cached by the server): one entry per scenario file, in order."""
    steps: list[JSON] = []
    layouts: dict[str, JSON] = {}
    for path in sorted(Path(directory).glob("paso_*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        game = position.from_dict(data["position"])
        layouts.setdefault(layout_key(game.options), layout(game.options))
        viewer = Viewer(game.geometry)
        before = viewer.view(game)
        session = DomainWheelSession(game.copy(), ["human"] * NUM_PLAYERS)
        actions = []
        for action in data.get("actions", []):
            actions.append(_tutorial_action(session, action))
        show = data.get("show", {})
        steps.append(
            {
                "id": path.stem,
                "index": len(steps) + 1,
                "title": data.get("title"),
                "caption_es": data.get("tutorial"),
                "note_en": data.get("note"),
                "rules": data.get("rules", []),
                "layout": layout_key(game.options),
                "view": before,
                "actions": actions,
                "after": session.view(),
                # a situation with no action to play shows the piece it is about (its `view` is its `after`)
                "highlight": None if actions else _highlight(session.game, data.get("expect", {})),
                "expect": data.get("expect", {}),
                # what the page draws: the moment the step's text speaks of, and the cells it must keep in sight
                "show": {k: show[k] for k in ("frame", "focus", "mark") if k in show},
                "frame_view": _framed_view(show.get("frame", "before"), before, actions, session.view()),
            }
        )
    return {"game": "domain_wheel", "layouts": layouts, "steps": steps}


def _framed_view(frame: str, before: JSON, actions: list[JSON], after: JSON) -> JSON:
    """Return the view of the moment a tutorial step shows: before its actions, at its first checkpoint, or after."""
    if frame == "checkpoint":
        return next((a["view"] for a in actions if a.get("checkpoint")), after)
    return after if frame == "after" else before


def _highlight(game: Game, expect: Mapping[str, Any]) -> JSON | None:
    """Return the piece of an expectation's first destinations check and its destinations, from the engine.

    The tutorial shows what a situation is about (rule 11.11): the piece it checks and where that piece may
    go, coloured by move kind (rule 11.1). None when the expectation checks no destinations.
    """
    checks = expect.get("destinations")
    first = (checks[0] if checks else None) if isinstance(checks, list) else checks
    if not isinstance(first, Mapping) or "from" not in first:
        return None
    q, r = first["from"]
    src = game.geometry.cell_index(q, r)
    return {
        "from": [q, r],
        "destinations": [
            {"to": cell(game.geometry, d), "kinds": move_kinds(f), "colour": move_colour(f)}
            for d, f in (game.destinations(src).items() if not game.over else ())
        ],
    }


def _tutorial_action(session: DomainWheelSession, action: Mapping[str, Any]) -> JSON:
    """Play one scenario action on ``session``; return what the page needs to show it."""
    game = session.game
    out: JSON = {"illegal": bool(action.get("illegal", False))}
    if "expect" in action:
        return {
            "checkpoint": True,
            "expect": action["expect"],
            "view": session.view(),
            "highlight": _highlight(game, action["expect"]),
        }
    if "move" in action:
        (q0, r0), (q1, r1) = action["move"]
        move = Move(game.geometry.cell_index(q0, r0), game.geometry.cell_index(q1, r1))
        src = move.src
        out.update(
            {
                "action": "move",
                "from": [q0, r0],
                "to": [q1, r1],
                "destinations": [
                    {"to": cell(game.geometry, d), "kinds": move_kinds(f), "colour": move_colour(f)}
                    for d, f in game.destinations(src).items()
                ]
                if not game.over
                and int(game.board[src]) in (lay.piece_code(game.turn, 0), lay.piece_code(game.turn, 1))
                else [],
            }
        )
        moves = [move]
    elif action.get("end_request"):
        out["action"] = "end_request"
        moves = [END_REQUEST_MOVE]
    else:
        out["action"] = "pass"
        out["repeat"] = int(action.get("repeat", 1))
        moves = [PASS_MOVE] * out["repeat"]
    if "kind" in action:
        out["kind"] = action["kind"]
    if out["illegal"]:
        try:
            game.copy().play(moves[0])
        except IllegalActionError as exc:
            out["refusal"] = str(exc)
        return out
    entries = [session.apply(m) for m in moves]
    out["log"] = entries[-1] if entries else None
    out["view"] = session.view()
    return out
