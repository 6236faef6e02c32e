"""A replay's move log names every move's kind (rule 11.5), not only the moves of the view last fetched."""

from __future__ import annotations

import json
import random
from pathlib import Path

from dw_env.engine import Game, Move
from dw_env.record import GameRecord
from play.games.domain_wheel import LOG_LENGTH, DomainWheelAdapter
from play.games.domain_wheel_view import move_kinds
from play.records import RecordStore


def _random_record(plies: int) -> tuple[GameRecord, list[list[str]]]:
    """Return a record of ``plies`` random moves on the small map and each move's kinds, from the engine."""
    rng = random.Random(7)
    game = Game.new(land_radius=1, map_radius=2)
    record = GameRecord.from_game(game, ["balanced", "random", "human:Ana"])
    kinds: list[list[str]] = []
    for _ in range(plies):
        src = rng.choice(list(game.movable_pieces()))
        dst, flags = rng.choice(sorted(game.destinations(src).items()))
        game.play(Move(src, dst))
        record.append(Move(src, dst))
        kinds.append(move_kinds(flags))
    return record, kinds


def test_rule_11_5_a_replay_names_the_kind_of_every_move(tmp_path: Path) -> None:
    plies = LOG_LENGTH + 20  # more than one view's log carries
    record, kinds = _random_record(plies)
    (tmp_path / "game.json").write_text(json.dumps(record.to_dict()), encoding="utf-8")
    _, summary, _ = RecordStore(tmp_path).open("0/game.json")
    assert summary["kinds"] == kinds
    assert all(summary["kinds"]), "every move of this game is a piece's move, so each has a kind"


def test_rule_11_5_passes_have_no_kind_and_the_log_stops_at_an_illegal_move() -> None:
    game = Game.new(land_radius=1, map_radius=2)
    record = GameRecord.from_game(game)
    record.append("pass")
    data = record.to_dict()
    data["moves"].append("0,0>0,0")  # a move no piece can make
    adapter = DomainWheelAdapter()
    cursor = adapter.replay_start(data)
    assert adapter.replay_log(cursor) == {"kinds": [[]]}
