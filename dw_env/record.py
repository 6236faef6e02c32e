"""Game records: an initial position plus the list of actions, as JSON.

A record replays deterministically to the identical final state, so a finished
game, a bug report or a golden transcript is one small file::

    {
      "format": "domain-wheel-game", "version": 1,
      "initial": { ...a position, see dw_env.position... },
      "moves": ["20,-8>19,-9", "pass", "end"],
      "players": ["equilibrada", "aleatoria", "aleatoria"],
      "result": {"end_reason": "end_request", "winners": ["blue"], "scores": {"blue": 36, "green": 4, "red": 0}}
    }

A move is ``"q,r>q,r"`` (axial source cell, then destination cell; rule 4),
``"pass"`` (rule 3.2b) or ``"end"`` (an end request, rule 3.2c). ``players``
(the strategy in each seat, Blue, Green, Red) and ``result`` are optional.
``result`` is checked against the replay when the record is loaded.

Typical use::

    recorder = Recorder(Game.new(land_radius=1, map_radius=2))
    while not recorder.game.over:
        recorder.play(choose(recorder.game.legal_moves()))
    recorder.record.save("game.json")
    final = GameRecord.load("game.json").replay()
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from dw_env import position
from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, IllegalActionError, Move, check_action
from dw_env.errors import brief
from dw_env.geometry import Geometry
from dw_env.info import NUM_PLAYERS, PLAYER_NAMES
from gamecore import loaders
from gamecore.records import check_fields, write_atomically

FORMAT = "domain-wheel-game"
VERSION = 1
_REQUIRED = ("format", "version", "initial", "moves")
_OPTIONAL = ("players", "result")
#: ASCII digits only (``\d`` would accept Arabic-Indic and other Unicode digits, which int() reads); at
#: most 4 digits per coordinate, more than any map has
_MOVE_RE = re.compile(r"(-?[0-9]{1,4}),(-?[0-9]{1,4})>(-?[0-9]{1,4}),(-?[0-9]{1,4})", re.ASCII)
#: the largest record file or text read (bytes): the longest game (max_rounds 100,000, three
#: actions a round) written canonically takes about 6 MB
MAX_RECORD_BYTES = 32 << 20
_MOVE_SYNTAX = '"q,r>q,r" (axial source and destination cells), "pass" or "end"'


class RecordError(ValueError):
    """A game record that is malformed, or whose moves do not replay."""


def format_move(geometry: Geometry, move: Move | tuple[int, int]) -> str:
    """Return the record notation of an action: ``"q,r>q,r"``, ``"pass"`` or ``"end"``."""
    m = _checked_move(geometry, move)
    if m.is_pass:
        return "pass"
    if m.is_end_request:
        return "end"
    (q0, r0), (q1, r1) = geometry.cell_coord(m.src), geometry.cell_coord(m.dst)
    return f"{q0},{r0}>{q1},{r1}"


def parse_move(geometry: Geometry, text: Any) -> Move:
    """Return the action written as ``"q,r>q,r"``, ``"pass"`` or ``"end"``; RecordError if malformed."""
    if not isinstance(text, str):
        raise RecordError(f"a move must be a string {_MOVE_SYNTAX}, got {brief(text)}")
    if text == "pass":
        return PASS_MOVE
    if text == "end":
        return END_REQUEST_MOVE
    match = _MOVE_RE.fullmatch(text.replace(" ", "")) if len(text) <= 64 else None
    if match is None:
        raise RecordError(f"move {brief(text)} is not valid notation; allowed: {_MOVE_SYNTAX} (ASCII digits)")
    q0, r0, q1, r1 = (int(x) for x in match.groups())
    try:
        return Move(geometry.cell_index(q0, r0), geometry.cell_index(q1, r1))
    except ValueError as exc:
        raise RecordError(f"move {brief(text)}: {exc}") from None


def result_of(game: Game) -> dict[str, Any] | None:
    """Return the ``result`` entry of a game: None while it runs, else end reason, winners and scores."""
    if not game.over:
        return None
    scores = game.scores()
    return {
        "end_reason": game.end_reason,
        "winners": [PLAYER_NAMES[p] for p in game.winners],
        "scores": {name: scores[p] for p, name in enumerate(PLAYER_NAMES)},
    }


@dataclass
class GameRecord:
    """An initial position (a position dict) and the actions played from it."""

    FORMAT: ClassVar[str] = FORMAT
    VERSION: ClassVar[int] = VERSION

    initial: dict[str, Any]
    moves: list[Move] = field(default_factory=list)
    players: list[str] | None = None
    result: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        try:
            start = position.from_dict(self.initial)
        except position.PositionError as exc:
            raise RecordError(f"initial: {exc}") from None
        self.initial = position.to_dict(start)  # canonical form
        self.geometry = start.geometry
        if not isinstance(self.moves, list | tuple):
            raise RecordError(f"moves must be a list of {_MOVE_SYNTAX}, got {type(self.moves).__name__}")
        self._max_rounds = start.options.max_rounds
        self._most_moves = 3 * (self._max_rounds - start.round) + 3 - start.turn
        self._check_length(len(self.moves))
        self.moves = [self._to_move(m, i) for i, m in enumerate(self.moves)]
        if self.players is not None:
            self.players = _check_players(self.players)
        if self.result is not None:
            _check_result_shape(self.result)

    def _check_length(self, count: int) -> None:
        """Raise RecordError if ``count`` actions are more than any game from the initial position can play (A57)."""
        if count > self._most_moves:
            raise RecordError(
                f"moves: {count:,} actions, but a game from this initial position ends after at most "
                f"{self._most_moves:,} (one action a turn, truncation after round {self._max_rounds}, A57)"
            )

    # ---- building ------------------------------------------------------------------------
    @classmethod
    def from_game(cls, game: Game, players: Sequence[str] | None = None) -> GameRecord:
        """Return an empty record that starts at the game's current position."""
        return cls(position.to_dict(game), [], list(players) if players is not None else None)

    def append(self, move: Move | tuple[int, int] | str) -> None:
        """Add one action (a Move, a ``(src, dst)`` pair or its notation); legality is checked on replay."""
        m = self._to_move(move, len(self.moves))
        self._check_length(len(self.moves) + 1)
        self.moves.append(m)

    @property
    def notation(self) -> list[str]:
        """Return the actions in record notation (``"q,r>q,r"``, ``"pass"``, ``"end"``)."""
        return [format_move(self.geometry, m) for m in self.moves]

    # ---- replaying -----------------------------------------------------------------------
    def start(self) -> Game:
        """Return a fresh game at the initial position."""
        return position.from_dict(self.initial)

    def positions(self) -> Iterator[Game]:
        """Yield the initial game and an independent copy after every action (``len(moves) + 1`` games)."""
        game = self.start()
        yield game.copy()
        for i, move in enumerate(self.moves):
            self._play(game, move, i)
            yield game.copy()

    def replay(self) -> Game:
        """Return the final game after replaying every action; RecordError names the first illegal one."""
        game = self.start()
        for i, move in enumerate(self.moves):
            self._play(game, move, i)
        if self.result is not None and self.result != result_of(game):
            raise RecordError(
                f"result {brief(self.result, 200)} does not match the replayed game, which gives {result_of(game)!r}"
            )
        return game

    # ---- JSON ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready record."""
        data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "initial": self.initial,
            "moves": self.notation,
        }
        if self.players is not None:
            data["players"] = list(self.players)
        if self.result is not None:
            data["result"] = self.result
        return data

    def dumps(self) -> str:
        """Return the record as JSON text: the initial position, then ten moves a line."""
        data = self.to_dict()
        moves = data.pop("moves")
        lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items() if k != "initial"]
        initial = position.dumps(self.start()).rstrip("\n").replace("\n", "\n  ")
        chunks = [", ".join(json.dumps(m) for m in moves[i : i + 10]) for i in range(0, len(moves), 10)]
        body = "[\n    " + ",\n    ".join(chunks) + "\n  ]" if chunks else "[]"
        lines[2:2] = [f'  "initial": {initial}', f'  "moves": {body}']
        return "{\n" + ",\n".join(lines) + "\n}\n"

    def save(self, path: str | Path) -> None:
        """Write the record to a JSON file, whole or not at all."""
        write_atomically(path, self.dumps())

    @classmethod
    def from_dict(cls, data: Any, *, verify: bool = True) -> GameRecord:
        """Build a record from its JSON mapping; with ``verify`` also replay it (legal moves, matching result)."""
        check_fields(data, _REQUIRED, _OPTIONAL, RecordError)  # a JSON object with the record's fields
        position.check_header(data, FORMAT, VERSION, RecordError)
        if not isinstance(data["moves"], list):
            raise RecordError(f"moves must be a list of {_MOVE_SYNTAX}, got {type(data['moves']).__name__}")
        record = cls(data["initial"], list(data["moves"]), data.get("players"), data.get("result"))
        if verify:
            record.replay()
        return record

    @classmethod
    def loads(cls, text: str, *, verify: bool = True) -> GameRecord:
        """Parse a record from JSON text (at most :data:`MAX_RECORD_BYTES` characters)."""
        return cls.from_dict(loaders.parse_json(text, MAX_RECORD_BYTES, RecordError), verify=verify)

    @classmethod
    def load(cls, path: str | Path, *, verify: bool = True) -> GameRecord:
        """Read a record file (at most :data:`MAX_RECORD_BYTES`); errors name the file."""
        text = loaders.read_text(path, MAX_RECORD_BYTES, RecordError)
        try:
            return cls.loads(text, verify=verify)
        except RecordError as exc:
            raise RecordError(f"{path}: {exc}") from None

    # ---- helpers -------------------------------------------------------------------------
    def _to_move(self, move: Any, index: int) -> Move:
        if isinstance(move, str):
            try:
                return parse_move(self.geometry, move)
            except RecordError as exc:
                raise RecordError(f"moves[{index}]: {exc}") from None
        if isinstance(move, tuple):
            try:
                return _checked_move(self.geometry, move)
            except RecordError as exc:
                raise RecordError(f"moves[{index}]: {exc}") from None
        raise RecordError(f"moves[{index}] must be a Move, a (src, dst) pair or {_MOVE_SYNTAX}, got {brief(move)}")

    def _play(self, game: Game, move: Move, index: int) -> None:
        try:
            game.play(move)
        except IllegalActionError as exc:
            text = format_move(self.geometry, move)
            raise RecordError(f"moves[{index}] {text!r} (ply {index + 1}) is illegal: {exc}") from None


def _checked_move(geometry: Geometry, move: Any) -> Move:
    """Return ``move`` as a Move if it is a well-formed action on this map, else RecordError naming it."""
    try:
        return Move(*check_action(move, geometry.num_cells))
    except IllegalActionError as exc:
        raise RecordError(f"move {brief(move)}: {exc}") from None


def _check_players(players: Any) -> list[str]:
    if (
        not isinstance(players, list | tuple)
        or len(players) != NUM_PLAYERS
        or not all(isinstance(p, str) and p for p in players)
    ):
        raise RecordError(
            f"players must be a list of {NUM_PLAYERS} strategy names (Blue, Green, Red seats), got {brief(players)}"
        )
    return list(players)


def _check_result_shape(result: Any) -> None:
    keys = ["end_reason", "scores", "winners"]
    if not isinstance(result, dict) or len(result) != len(keys) or not all(k in result for k in keys):
        raise RecordError(f"result must be null or an object with exactly {', '.join(keys)}, got {brief(result)}")


class Recorder:
    """Plays actions on a game and records them; ``record`` holds the game so far (with its result)."""

    def __init__(self, game: Game, players: Sequence[str] | None = None) -> None:
        self.game = game
        self._record = GameRecord.from_game(game, players)

    def play(self, move: Move | tuple[int, int]) -> int:
        """Play one action on the game and record it; IllegalActionError (malformed or illegal) changes neither."""
        m = Move(*check_action(move, self.game.geometry.num_cells))  # before the game moves: never half-recorded
        flags = self.game.play(m)
        self._record.moves.append(m)
        return flags

    def pass_turn(self) -> None:
        """Pass (rule 3.2b) and record it."""
        self.play(PASS_MOVE)

    def request_end(self) -> None:
        """Request the end (rules 9.3-9.4) and record it."""
        self.play(END_REQUEST_MOVE)

    @property
    def record(self) -> GameRecord:
        """Return the record so far; its result is filled in once the game is over."""
        self._record.result = result_of(self.game)
        return self._record
